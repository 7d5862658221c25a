/**
 * Pattern ranking for relevantPatterns: how well a pattern fits the asking task, times how strong it
 * is, plus the retrieval-feedback credit. Pure; pattern-store.ts loads the candidates.
 *
 *   relevance = 0.5 × cue + 0.5 × scope
 *   total     = relevance × (0.5 + 0.5 × strength) + 0.1 × feedback,   strength = min(1, |lift| / 0.5)
 *
 * cue: 1 when the task mentions the pattern's term or error (file, task-outcome and error-fix patterns); tool and error
 * patterns are about runs of a scope, not about words of a task, so their cue is 0. A procedure (how to
 * run the tests or build the project) is about every task of its repository: the task's domain is its
 * cue, it is served only to a task of that domain, and its strength is the share of the domain's runs
 * it worked in (effectiveness), not a lift.
 * scope: 1 when the task's domain is the pattern's scope, 0.5 when the task names no domain and its
 * language is the pattern's, 0 when the task gives neither. A task of another domain (or, naming no
 * domain, of another language) is about another project: the pattern is not relevant at all (a Java
 * task gets nothing from Python repositories). Patterns below the floor are not served.
 */
import { type ContextFacts, clamp } from '../learning/facts.ts';
import type { PatternKind } from '../learning/patterns.ts';

export const PATTERN_RELEVANCE = { cue: 0.5, scope: 0.5, feedback: 0.1, floor: 0.5, fullStrengthLift: 0.5 } as const;

export interface RankedPattern {
  kind: PatternKind;
  scope: string;
  cue: string;
  /** Language of the episode that first produced the pattern. */
  language: string | null;
  lift: number | null;
  /** min(1, |lift|); a procedure's share of its scope's runs it worked in. */
  effectiveness: number;
  /** Retrieval-feedback credit in [-1, 1]; 0 when none. */
  feedbackCredit: number;
}

export interface PatternQuery {
  /** taskTerms of the task description (lower-cased). */
  terms: ReadonlySet<string>;
  context: ContextFacts;
}

export interface PatternRelevance {
  relevance: number;
  strength: number;
  lift: number;
  feedback: number;
  total: number;
}

/** null: not relevant to this task (another project, or below the floor). */
export function patternRelevance(query: PatternQuery, pattern: RankedPattern): PatternRelevance | null {
  const scope = scopeFit(query.context, pattern);
  if (scope === null) return null;
  if (pattern.kind === 'procedure') return procedureRelevance(scope, pattern);
  const cued = pattern.kind === 'file_change' || pattern.kind === 'task_outcome' || pattern.kind === 'error_fix';
  const cue = cued && query.terms.has(pattern.cue) ? 1 : 0;
  if (cued && cue === 0) return null;
  const relevance = PATTERN_RELEVANCE.cue * cue + PATTERN_RELEVANCE.scope * scope;
  if (relevance < PATTERN_RELEVANCE.floor) return null;
  const lift = pattern.lift ?? 0;
  const strength = clamp(Math.abs(lift) / PATTERN_RELEVANCE.fullStrengthLift, 0, 1);
  const feedback = clamp(pattern.feedbackCredit, -1, 1);
  return { relevance, strength, lift, feedback, total: relevance * (0.5 + 0.5 * strength) + PATTERN_RELEVANCE.feedback * feedback };
}

/** A procedure of the task's own domain (scope fit 1): full relevance, its share of the domain's runs as its strength. */
function procedureRelevance(scope: number, pattern: RankedPattern): PatternRelevance | null {
  if (scope < 1) return null;
  const strength = clamp(pattern.effectiveness, 0, 1);
  const feedback = clamp(pattern.feedbackCredit, -1, 1);
  return { relevance: 1, strength, lift: 0, feedback, total: 0.5 + 0.5 * strength + PATTERN_RELEVANCE.feedback * feedback };
}

/**
 * 1 same domain, 0.5 same language when the task names no domain, 0 nothing to compare, null
 * another project. A task that names its domain gets only that domain's patterns: another
 * repository's files and success rates are not about it, even in the same language.
 */
export function scopeFit(context: ContextFacts, pattern: Pick<RankedPattern, 'scope' | 'language'>): number | null {
  const domain = normalised(context.domain);
  const language = normalised(context.language);
  if (domain !== null) return pattern.scope === domain ? 1 : null;
  if (language === null) return 0;
  const patternLanguage = pattern.scope.startsWith('language:') ? pattern.scope.slice('language:'.length) : normalised(pattern.language);
  if (language !== null && patternLanguage === language) return 0.5;
  return null;
}

function normalised(text: string | null): string | null {
  const value = text?.trim().toLowerCase() ?? '';
  return value === '' ? null : value;
}
