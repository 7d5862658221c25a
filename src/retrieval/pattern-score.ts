/**
 * Pattern ranking for relevantPatterns: how well a pattern has worked (effectiveness, which
 * already folds in success rate, mean reward and sample size) and how well it fits the asking
 * context, plus the retrieval-feedback credit. The pattern store's SQL mirrors this.
 *
 *   total = 0.5 × effectiveness + 0.4 × fit + 0.1 × feedback
 *
 * fit: a context pattern is about one context feature, so it fits fully when the query has that
 * feature and not at all otherwise; any other kind fits by contextMatch against the context of the
 * episode that first produced it.
 */
import { clamp, type ContextFacts } from '../learning/facts.ts';
import type { PatternKind } from '../learning/patterns.ts';
import { contextMatch } from './score.ts';

export const PATTERN_RELEVANCE_WEIGHTS = { effectiveness: 0.5, fit: 0.4, feedback: 0.1 } as const;

export interface RankedPattern {
  kind: PatternKind;
  /** The candidate signature; a context pattern's is [field, value, tool]. */
  signature: readonly string[];
  /** PatternStats.effectiveness, in [0, 1]. */
  effectiveness: number;
  /** Context of the episode that first produced the pattern. */
  context: ContextFacts;
  /** Retrieval-feedback credit in [-1, 1]; 0 when none. */
  feedbackCredit: number;
}

export interface PatternRelevance {
  effectiveness: number;
  fit: number;
  feedback: number;
  total: number;
}

export function patternRelevance(context: ContextFacts, pattern: RankedPattern): PatternRelevance {
  const components = {
    effectiveness: clamp(pattern.effectiveness, 0, 1),
    fit: patternFit(context, pattern),
    feedback: clamp(pattern.feedbackCredit, -1, 1),
  };
  const total =
    PATTERN_RELEVANCE_WEIGHTS.effectiveness * components.effectiveness +
    PATTERN_RELEVANCE_WEIGHTS.fit * components.fit +
    PATTERN_RELEVANCE_WEIGHTS.feedback * components.feedback;
  return { ...components, total };
}

export function patternFit(context: ContextFacts, pattern: RankedPattern): number {
  if (pattern.kind === 'context_pattern') return hasFeature(context, pattern.signature[0], pattern.signature[1]) ? 1 : 0;
  return contextMatch({ taskType: null, context }, { taskType: null, context: pattern.context });
}

// Signatures hold trimmed, lower-cased names (patterns.ts), so the query side is normalised the same way.
function hasFeature(context: ContextFacts, field: string | undefined, value: string | undefined): boolean {
  const normalised = (text: string | null): string | null => (text === null ? null : text.trim().toLowerCase());
  if (field === 'tag') return context.tags.some((tag) => normalised(tag) === value);
  if (field === 'domain' || field === 'language' || field === 'framework') return normalised(context[field]) === value;
  return false;
}
