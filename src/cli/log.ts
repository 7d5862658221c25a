// episodic log <episodeId> [file|-]: steps as JSON lines (one StepInput per line), journaled in
// batches, with a progress bar on a terminal and the final count of accepted, duplicate and
// rejected steps. A step that breaks a limit is rejected alone and named by its line; the command
// then exits 2. Steps without a sideEffectKey get one from the input's BLAKE3 and their line, so
// running the same input again journals nothing twice.
import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import type { StepInput } from '../client/types.ts';
import { CliError } from './errors.ts';
import { progressBar } from './progress.ts';
import { defineCommand, EXIT, failOnErrorResult, intOption, usage } from './remote.ts';

const HELP = `Usage: episodic log <episodeId> [file|-] [--batch <n>] [--truncate]
Journals steps read as JSON lines (one step per line; blank lines are skipped) from a file, or
from stdin when the file is "-" or omitted. Each line is a StepInput, e.g.
  {"kind":"tool_call","tool":"shell","action":"npm test","result":{"kind":"SUCCESS","output":"ok"},"tokens":120}
  --batch <n>   steps per call, 1..500 (default 200)
  --truncate    keep text past its inline limit as head + tail (default: whole, as a blob)
Prints the counts of accepted, duplicate (same sideEffectKey) and rejected steps; a refused step
is named by its line and the command exits 2. Running the same input again adds nothing: a step
without a sideEffectKey gets "log:<BLAKE3 of the input>:<line>".`;

export interface StepLine {
  line: number;
  step: StepInput;
}

function parseJsonLines(input: string): StepLine[] {
  const steps: StepLine[] = [];
  for (const [i, line] of input.split('\n').entries()) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw usage(`line ${i + 1} is not JSON`, HELP);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw usage(`line ${i + 1} is not a JSON object (a step)`, HELP);
    steps.push({ line: i + 1, step: value as StepInput });
  }
  return steps;
}

/** A side-effect key for each step that has none, from the input's hash and the step's line. */
async function withLineKeys(input: string, lines: StepLine[]): Promise<StepInput[]> {
  // Loaded here, not at start-up: `episodic --help` loads no dependency.
  const { createBLAKE3 } = await import('hash-wasm');
  const hash = (await createBLAKE3()).init().update(input).digest('hex');
  return lines.map(({ line, step }) => (step.sideEffectKey ? step : { ...step, sideEffectKey: `log:${hash}:${line}` }));
}

/** failOnErrorResult, with the error kept for --json. */
function withErrorDetails<T extends { __typename: string }>(result: T) {
  try {
    return failOnErrorResult(result);
  } catch (err) {
    const r = result as unknown as { __typename: string; message?: string; violations?: unknown };
    throw Object.assign(err as Error, { details: { error: { type: r.__typename, message: r.message ?? null, violations: r.violations ?? null } } });
  }
}

/**
 * The server names a field by its place in the call (`steps.1.latencyMs`, 0-based in the batch);
 * the line already names the step, so the field is said relative to it (`latencyMs`).
 */
const stepRelative = (message: string | null) => (message ?? '').replace(/\bsteps\.\d+\./g, '');

export const logCommand = defineCommand({
  name: 'log',
  summary: 'journal steps from JSON lines (file or stdin)',
  help: HELP,
  options: { batch: { type: 'string' }, truncate: { type: 'boolean' } },
  async run({ values, positionals, json, client, io }) {
    const [id, source = '-'] = positionals;
    if (!id) throw usage('missing the episode id', HELP);
    const batchSize = intOption(values.batch, '--batch', HELP, 1) ?? 200;
    if (batchSize > 500) throw usage('--batch must be at most 500', HELP);
    const input = source === '-' ? await text(io.stdin) : await readFile(source, 'utf8');
    const lines = parseJsonLines(input);
    const steps = await withLineKeys(input, lines);
    const bar = progressBar('logging', io.stderr);
    const answer = await client
      .logSteps(id, steps, {
        batchSize,
        largeContent: values.truncate ? 'TRUNCATE' : 'BLOB',
        onInvalidStep: 'REJECT_STEP',
        onProgress: (sent, total) => bar.update(sent, total),
      })
      .finally(() => bar.finish());
    const result = withErrorDetails(answer);
    const rejected = result.results
      .filter((r) => r.status === 'REJECTED')
      .map((r) => ({ line: lines[r.index]?.line ?? null, index: r.index, reason: r.reason, message: r.message, violations: r.violations }));
    const stoppedBy = result.stoppedBy ? { type: result.stoppedBy.__typename, message: result.stoppedBy.message } : null;
    const summary = {
      read: steps.length,
      accepted: result.accepted,
      duplicates: result.duplicates,
      rejected: result.rejected,
      notSent: result.notSent,
      budgetExhausted: result.budgetExhausted,
      status: result.episode.status,
      rejectedSteps: rejected,
      error: stoppedBy,
    };
    const out = [
      `accepted ${summary.accepted}, duplicate ${summary.duplicates}, rejected ${summary.rejected}${summary.notSent ? `, not sent ${summary.notSent}` : ''} (episode ${summary.status})`,
    ];
    if (summary.budgetExhausted) out.push(`budget exhausted: ${summary.budgetExhausted}`);
    for (const r of rejected.slice(0, 10)) out.push(`  ${source === '-' ? 'stdin' : source}:${r.line}: ${r.reason}: ${stepRelative(r.message)}`);
    if (stoppedBy) out.push(`stopped: ${stoppedBy.type}: ${stoppedBy.message}`);
    const refusedInput = rejected.some((r) => r.reason === 'invalid') || stoppedBy?.type === 'InputLimitError';
    if (refusedInput) {
      if (!json) io.stdout.write(`${out.join('\n')}\n`);
      throw Object.assign(new CliError(`${rejected.length} step(s) refused${stoppedBy ? `; ${stoppedBy.type}` : ''}`, EXIT.usage), { details: summary });
    }
    return { text: out.join('\n'), json: summary };
  },
});
