// What went wrong in a failed run, in its own words: its last failed step (error or timeout), the
// step's number, tool, error and the last line of its output (a traceback ends with the error).
// A harness verdict ("not resolved by the harness") says that a run failed, not how.
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';

/** Characters of the output's last line kept. */
export const LAST_LINE_CHARS = 200;

export interface LastError {
  stepNumber: number;
  tool: string | null;
  kind: string;
  message: string;
  /** The last non-empty line of the step's output, at most LAST_LINE_CHARS. */
  lastLine: string | null;
}

interface StepResult {
  message?: unknown;
  errorClass?: unknown;
  output?: unknown;
}

export function lastLineOf(output: unknown): string | null {
  if (typeof output !== 'string') return null;
  const line = output
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1);
  if (!line) return null;
  return line.length > LAST_LINE_CHARS ? `${line.slice(0, LAST_LINE_CHARS - 1)}…` : line;
}

/** The columns of a step that describe how it failed. */
interface FailedStepRow {
  step_number: number;
  tool: string | null;
  result_kind: string;
  result: StepResult | null;
}

export function describeLastError(row: FailedStepRow): LastError {
  const r = row.result ?? {};
  const message = typeof r.message === 'string' && r.message ? r.message : row.result_kind === 'timeout' ? 'timed out' : 'failed';
  const errorClass = typeof r.errorClass === 'string' && r.errorClass ? `${r.errorClass}: ` : '';
  return { stepNumber: row.step_number, tool: row.tool, kind: row.result_kind, message: `${errorClass}${message}`, lastLine: lastLineOf(r.output) };
}

/** The episode's last step that ended in an error or a timeout; null when none did. */
export async function findLastError(pool: pg.Pool, tenantId: string, episodeId: string): Promise<LastError | null> {
  const p = new Params();
  const sql = `SELECT step_number, tool, result_kind, result FROM steps
      WHERE tenant_id = ${p.add(tenantId)} AND episode_id = ${p.add(episodeId)} AND result_kind IN ('error', 'timeout')
      ORDER BY step_number DESC LIMIT 1`;
  const rows = await queryRows<FailedStepRow>(pool, sql, p);
  return rows[0] ? describeLastError(rows[0]) : null;
}
