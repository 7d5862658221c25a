// What went wrong in a failed run's work, for its warning: the last failing step's command (or
// tool) and error, the last line of its output (a traceback ends with the error) and the files it
// was changing. The harness's verdict ("not resolved: exit status Submitted") says that a run
// failed, not how, so it is the text only when no step failed.
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';
import { commandOf } from '../steps/command.ts';

const FAILURE_TEXT = { commandChars: 160, files: 3, lastLineChars: 200 } as const;

/** A run's last failing step (error or timeout): its number, tool, error and the last line of its output. */
interface LastError {
  stepNumber: number;
  tool: string | null;
  message: string;
  lastLine: string | null;
}

/** A failed run's last failing step, its command, and the files its outcome names. */
export interface FailedWork {
  error: LastError | null;
  command: string | null;
  files: readonly string[];
  /** The outcome's reason and details: the text when no step failed. */
  verdict: string | null;
}

const clip = (text: string, chars: number) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > chars ? `${line.slice(0, chars - 1)}…` : line;
};

/** One sentence: `pytest tests/x.py` failed (step 12): TypeError: …; last output: …; was changing a.py, b.py. */
export function describeFailedWork(work: FailedWork): string | null {
  const files = work.files.slice(0, FAILURE_TEXT.files);
  const changing = files.length
    ? `was changing ${files.join(', ')}${work.files.length > files.length ? ` and ${work.files.length - files.length} more` : ''}`
    : null;
  if (!work.error) return [work.verdict, changing].filter(Boolean).join('; ') || null;
  const what = work.command ? `\`${clip(work.command, FAILURE_TEXT.commandChars)}\`` : (work.error.tool ?? 'a step');
  const last = work.error.lastLine && work.error.lastLine !== work.error.message ? `last output: ${work.error.lastLine}` : null;
  return [`${what} failed (step ${work.error.stepNumber}): ${work.error.message}`, last, changing].filter(Boolean).join('; ');
}

/** The step's error as it reported it ("TypeError: ..."), and its output's last non-empty line. */
function lastErrorOf(row: FailedRow & { step_number: number; result_kind: string }): LastError {
  const { errorClass, message, output } = row.result ?? {};
  const text = typeof message === 'string' && message ? message : row.result_kind === 'timeout' ? 'timed out' : 'failed';
  const prefix = typeof errorClass === 'string' && errorClass && !text.startsWith(errorClass) ? `${errorClass}: ` : '';
  const line =
    typeof output === 'string'
      ? output
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean)
          .at(-1)
      : undefined;
  return { stepNumber: row.step_number, tool: row.tool, message: `${prefix}${text}`, lastLine: line ? clip(line, FAILURE_TEXT.lastLineChars) : null };
}

interface FailedRow {
  episode_id: string;
  step_number: number | null;
  tool: string | null;
  result_kind: string | null;
  result: Record<string, unknown> | null;
  parameters: unknown;
  artifacts: string[] | null;
  verdict: string | null;
}

/** describeFailedWork for each of these episodes of the tenant (one statement). */
export async function failedWorkOf(pool: pg.Pool, tenantId: string, ids: readonly string[]): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const p = new Params();
  const rows = await queryRows<FailedRow>(
    pool,
    `SELECT e.id AS episode_id, s.step_number, s.tool, s.result_kind, s.result, s.parameters,
            CASE WHEN jsonb_typeof(e.outcome->'artifacts') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(e.outcome->'artifacts')) END AS artifacts,
            nullif(concat_ws(': ', e.outcome->>'reason', e.outcome->>'details'), '') AS verdict
       FROM episodes e LEFT JOIN LATERAL (
         SELECT step_number, tool, result_kind, result, parameters FROM steps
          WHERE tenant_id = e.tenant_id AND episode_id = e.id AND result_kind IN ('error', 'timeout') ORDER BY step_number DESC LIMIT 1) s ON true
      WHERE e.tenant_id = ${p.add(tenantId)} AND e.id = ANY(${p.add(ids)}::uuid[])`,
    p,
  );
  return new Map(
    rows.map((r) => {
      const error = r.step_number === null || r.result_kind === null ? null : lastErrorOf({ ...r, step_number: r.step_number, result_kind: r.result_kind });
      return [r.episode_id, describeFailedWork({ error, command: commandOf(r.parameters), files: r.artifacts ?? [], verdict: r.verdict })];
    }),
  );
}
