// The outcome of a run without an agent root span, once it has been idle: nothing ends such a run
// but time, so its outcome is what one of its calls stated (episodic.outcome on the span or its
// resource, kept in the step's metadata as statedOutcome by mapping.ts; the latest call's wins),
// else unknown (an OK model call is not a solved task).
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';
import type { Outcome } from '../episodes/outcome.ts';

const VERDICT_CHARS = 10_000;

/** The outcome a stated kind and verdict make. Pure. */
function runOutcomeOf(stated: string | null, verdict: string | null): Outcome {
  const said = verdict?.slice(0, VERDICT_CHARS) || null;
  if (stated === 'success') return { kind: 'success', verdict: said ?? 'a call of the run stated episodic.outcome = success', artifacts: [] };
  if (stated === 'failure') return { kind: 'failure', reason: said ?? 'a call of the run stated episodic.outcome = failure' };
  if (stated === 'partial') return { kind: 'partial', verdict: said ?? 'a call of the run stated episodic.outcome = partial', completed: [], failed: [] };
  return { kind: 'unknown', verdict: said ?? 'the run ended (idle) without episodic.outcome: whether the task was solved is unknown' };
}

/** What the run's latest call that stated an outcome said (by step number: the calls' start order). */
export async function statedRunOutcome(pool: pg.Pool, tenantId: string, episodeId: string): Promise<Outcome> {
  const p = new Params();
  const [row] = await queryRows<{ stated: string | null; verdict: string | null }>(
    pool,
    `SELECT metadata->>'statedOutcome' AS stated, metadata->>'statedVerdict' AS verdict FROM steps
      WHERE tenant_id = ${p.add(tenantId)} AND episode_id = ${p.add(episodeId)} AND metadata ? 'statedOutcome'
      ORDER BY step_number DESC LIMIT 1`,
    p,
  );
  return runOutcomeOf(row?.stated ?? null, row?.verdict ?? null);
}
