// episodic log <episodeId> [file|-]: steps as JSON lines (one StepInput per line), journaled in
// batches, with a progress bar on a terminal and the final count of accepted, duplicate and
// rejected steps.
import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import type { StepInput } from '../client/types.ts';
import { progressBar } from './progress.ts';
import { failOnErrorResult, intOption, usage, type RemoteCommand } from './remote.ts';

const HELP = `Usage: episodic log <episodeId> [file|-] [--batch <n>]
Journals steps read as JSON lines (one step per line; blank lines are skipped) from a file, or
from stdin when the file is "-" or omitted. Each line is a StepInput, e.g.
  {"kind":"tool_call","tool":"shell","action":"npm test","result":{"kind":"SUCCESS","output":"ok"},"tokens":120}
  --batch <n>   steps per call, 1..500 (default 200)
Prints the counts of accepted, duplicate (same sideEffectKey) and rejected steps.`;

export function parseJsonLines(input: string): StepInput[] {
  const steps: StepInput[] = [];
  for (const [i, line] of input.split('\n').entries()) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw usage(`line ${i + 1} is not JSON`, HELP);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw usage(`line ${i + 1} is not a JSON object (a step)`, HELP);
    steps.push(value as StepInput);
  }
  return steps;
}

export const logCommand: RemoteCommand = {
  name: 'log',
  summary: 'journal steps from JSON lines (file or stdin)',
  help: HELP,
  options: { batch: { type: 'string' } },
  async run({ values, positionals, client }) {
    const [id, source = '-'] = positionals;
    if (!id) throw usage('missing the episode id', HELP);
    const batchSize = intOption(values.batch, '--batch', HELP, 1) ?? 200;
    if (batchSize > 500) throw usage('--batch must be at most 500', HELP);
    const steps = parseJsonLines(source === '-' ? await text(process.stdin) : await readFile(source, 'utf8'));
    const bar = progressBar('logging');
    const result = failOnErrorResult(await client.logSteps(id, steps, { batchSize, onProgress: (sent, total) => bar.update(sent, total) }).finally(() => bar.finish()));
    const rejected = result.results.filter((r) => r.status === 'REJECTED').map((r) => ({ index: r.index, reason: r.reason, message: r.message }));
    const summary = {
      read: steps.length,
      accepted: result.accepted,
      duplicates: result.duplicates,
      rejected: result.rejected,
      notSent: result.notSent,
      budgetExhausted: result.budgetExhausted,
      status: result.episode.status,
      rejectedSteps: rejected,
    };
    const lines = [`accepted ${summary.accepted}, duplicate ${summary.duplicates}, rejected ${summary.rejected}${summary.notSent ? `, not sent ${summary.notSent}` : ''} (episode ${summary.status})`];
    if (summary.budgetExhausted) lines.push(`budget exhausted: ${summary.budgetExhausted}`);
    for (const r of rejected.slice(0, 10)) lines.push(`  line item ${r.index + 1}: ${r.reason}: ${r.message ?? ''}`);
    if (result.stoppedBy) lines.push(`stopped: ${result.stoppedBy.__typename}: ${result.stoppedBy.message}`);
    return { text: lines.join('\n'), json: summary };
  },
};
