// relevantPatterns in SQL: active patterns of the tenant, capped (the most effective ones, plus
// the context patterns about a feature the query has), then patternRelevance (pattern-score.ts)
// over just those candidates.
import type pg from 'pg';
import { compareText, type ContextFacts } from '../learning/facts.ts';
import type { PatternKind } from '../learning/patterns.ts';
import { patternRelevance, type PatternRelevance } from './pattern-score.ts';

export const PATTERN_CANDIDATE_CAPS = { effective: 300, features: 200 } as const;

export interface ScoredPattern {
  id: string;
  score: PatternRelevance;
}

/** The query's context features as context patterns store them: [field, trimmed lower-cased value]. */
function features(context: ContextFacts): Array<[string, string]> {
  const norm = (text: string) => text.trim().toLowerCase();
  const fields: Array<[string, string | null]> = [
    ['domain', context.domain],
    ['language', context.language],
    ['framework', context.framework],
  ];
  return [
    ...fields.flatMap(([field, value]): Array<[string, string]> => (value ? [[field, norm(value)]] : [])),
    ...context.tags.map((tag): [string, string] => ['tag', norm(tag)]),
  ];
}

export async function rankPatterns(pool: pg.Pool, tenantId: string, context: ContextFacts, limit: number): Promise<ScoredPattern[]> {
  const wanted = features(context);
  const { rows } = await pool.query(
    `WITH c AS (
       (SELECT id FROM patterns WHERE tenant_id = $1 AND status = 'active' ORDER BY effectiveness DESC LIMIT ${PATTERN_CANDIDATE_CAPS.effective})
       UNION
       (SELECT p.id FROM patterns p
         WHERE p.tenant_id = $1 AND p.status = 'active' AND p.kind = 'context_pattern'
           AND EXISTS (SELECT 1 FROM unnest($2::text[], $3::text[]) AS q(field, value) WHERE q.field = p.signature[1] AND q.value = p.signature[2])
         LIMIT ${PATTERN_CANDIDATE_CAPS.features})
     )
     SELECT p.id, p.kind, p.signature, p.effectiveness, p.domain, p.language, p.framework, p.tags, p.feedback_credit
       FROM patterns p JOIN c USING (id)`,
    [tenantId, wanted.map(([field]) => field), wanted.map(([, value]) => value)],
  );
  return rows
    .map((row) => ({
      id: row.id as string,
      score: patternRelevance(context, {
        kind: row.kind as PatternKind,
        signature: row.signature ?? [],
        effectiveness: row.effectiveness,
        context: { domain: row.domain, language: row.language, framework: row.framework, tags: row.tags ?? [] },
        feedbackCredit: row.feedback_credit,
      }),
    }))
    .sort((a, b) => b.score.total - a.score.total || compareText(a.id, b.id))
    .slice(0, limit);
}
