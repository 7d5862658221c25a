// Limits of the lifecycle calls other than start, steps and complete: reasons, labels, comments
// and a critic's result.
import { countViolations, type LimitViolation, textViolations } from '../validation/violations.ts';

export const CALL_LIMITS = {
  // Free text of lifecycle calls: reasons, verdicts, feedback, comments.
  reasonBytes: 10 * 1024,
  labelBytes: 256,
  virtueScores: 32,
  virtueNameBytes: 100,
} as const;

/** Free text of a lifecycle call (a reason, verdict, label): at most maxBytes of UTF-8, no NUL. */
export function freeTextViolations(field: string, value: string | null | undefined, maxBytes: number = CALL_LIMITS.reasonBytes): LimitViolation[] {
  return textViolations(field, value, { maxBytes });
}

function unitScoreViolations(field: string, score: number | null | undefined): LimitViolation[] {
  if (score == null || (score >= 0 && score <= 1)) return [];
  return [{ field, limit: '0..1', message: `${field} must be between 0 and 1` }];
}

export interface CritiqueInput {
  verdict: string;
  score?: number | null;
  feedback?: string | null;
  virtueScores: ReadonlyArray<{ name: string; score: number }>;
}

/** A critic result: bounded texts, scores in [0, 1], at most 32 named virtue scores. */
export function validateCritique(c: CritiqueInput): LimitViolation[] {
  return [
    ...freeTextViolations('verdict', c.verdict),
    ...freeTextViolations('feedback', c.feedback),
    ...unitScoreViolations('score', c.score),
    ...countViolations('virtueScores', c.virtueScores.length, CALL_LIMITS.virtueScores, 'virtue scores'),
    ...c.virtueScores.flatMap((v, i) => [
      ...textViolations(`virtueScores.${i}.name`, v.name, { maxBytes: CALL_LIMITS.virtueNameBytes, nonEmpty: true }),
      ...unitScoreViolations(`virtueScores.${i}.score`, v.score),
    ]),
  ];
}
