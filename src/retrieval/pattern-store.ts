// relevantPatterns in SQL: the active patterns whose cue the task mentions, plus the active tool, error and procedure
// error patterns of the task's domain, capped; then patternRelevance (pattern-score.ts) over just
// those candidates, with its floor.
import type pg from 'pg';
import type { PatternsRow } from '../db/rows.ts';
import { Params, queryRows } from '../db/sql.ts';
import { type ContextFacts, compareText } from '../learning/facts.ts';
import { PATTERN_RULES, type PatternKind, usuallyFails } from '../learning/patterns.ts';
import { TASK_TERM_RULES, taskTerms } from '../learning/task-terms.ts';
import { type PatternRelevance, patternRelevance } from './pattern-score.ts';

const PATTERN_CANDIDATE_CAPS = { cued: 500, scope: 200 } as const;

export interface ScoredPattern {
  id: string;
  score: PatternRelevance;
}

export interface PatternTask {
  description: string;
  context: ContextFacts;
}

export async function rankPatterns(pool: pg.Pool, tenantId: string, task: PatternTask, limit: number): Promise<ScoredPattern[]> {
  const terms = taskTerms(task.description, TASK_TERM_RULES.perQuery);
  const domain = task.context.domain?.trim().toLowerCase() || null;
  const p = new Params();
  const tenant = p.add(tenantId);
  const sql = `WITH c AS (
       (SELECT id FROM patterns WHERE tenant_id = ${tenant} AND cue = ANY(${p.add(terms)}::text[]) AND status = 'active' AND kind IN ('file_change', 'task_outcome', 'error_fix')
         ORDER BY effectiveness DESC, id LIMIT ${PATTERN_CANDIDATE_CAPS.cued})
       UNION
       (SELECT id FROM patterns WHERE tenant_id = ${tenant} AND scope = ${p.add(domain)} AND status = 'active' AND kind IN ('tool_outcome', 'error_outcome', 'procedure')
         ORDER BY effectiveness DESC, id LIMIT ${PATTERN_CANDIDATE_CAPS.scope})
     )
     SELECT p.id, p.key, p.kind, p.scope, p.cue, p.language, p.lift, p.effectiveness, p.feedback_credit FROM patterns p JOIN c USING (id)`;
  const rows = await queryRows<Pick<PatternsRow, 'id' | 'key' | 'kind' | 'scope' | 'cue' | 'language' | 'lift' | 'effectiveness' | 'feedback_credit'>>(
    pool,
    sql,
    p,
  );
  const query = { terms: new Set(terms), context: task.context };
  const scored: Array<ScoredPattern & { key: string }> = [];
  for (const row of rows) {
    const score = patternRelevance(query, {
      kind: row.kind as PatternKind,
      scope: row.scope,
      cue: row.cue,
      language: row.language,
      lift: row.lift,
      effectiveness: row.effectiveness,
      feedbackCredit: row.feedback_credit,
    });
    if (score) scored.push({ id: row.id, key: row.key, score });
  }
  // Ties break by key (the fact), not id, so two tenants with the same history get the same order.
  return scored
    .sort((a, b) => b.score.total - a.score.total || compareText(a.key, b.key))
    .slice(0, limit)
    .map(({ id, score }) => ({ id, score }));
}

/** Per procedure cue shown, at most this many commands that usually failed in its scope. */
const FAILED_INSTEAD = 3;

/**
 * The procedures that usually failed in a scope (usuallyFails), most often tried first: what runs of
 * the repository tried before what worked, so an agent does not try them again.
 */
export async function failedProcedures(
  pool: pg.Pool,
  tenantId: string,
  scope: string,
): Promise<Array<{ cue: string; occurrences: number; successes: number }>> {
  const p = new Params();
  const rows = await queryRows<Pick<PatternsRow, 'cue' | 'occurrences' | 'successes'>>(
    pool,
    `SELECT cue, occurrences, successes FROM patterns
      WHERE tenant_id = ${p.add(tenantId)} AND scope = ${p.add(scope)} AND kind = 'procedure' AND occurrences >= ${p.add(PATTERN_RULES.minSupport.procedure)}
      ORDER BY occurrences DESC, cue COLLATE "C"`,
    p,
  );
  return rows.filter(usuallyFails).slice(0, FAILED_INSTEAD);
}
