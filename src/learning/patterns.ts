/**
 * Patterns about tasks: what in a task predicts which files change and how a run ends, measured as
 * lift over comparable episodes without it. Pure.
 *
 * One episode yields facts (patterns.md in docs/LEARNING.md, section 4):
 * - file_change [scope, term, path]: the task mentions `term` and the run changed `path`;
 * - task_outcome [scope, term]: the task mentions `term` (consequent: the run succeeded);
 * - tool_outcome [scope, tool]: the run used `tool` successfully (consequent: success);
 * - error_outcome [scope, error]: the run hit `error`, its step's error class or an error name its
 *   failed steps' output shows (consequent: success);
 * - error_fix [scope, error, path]: the run's failed steps showed the error name `error` and the run
 *   changed `path`: the file that fixed that error (served to a task that mentions the error);
 * - procedure [scope, procedure]: the run ran `procedure` (procedures.ts: `python tests/runtests.py`,
 *   `npm test`); its hits are the runs it worked in (a step running it succeeded), and its strength is
 *   the share of the scope's runs it worked in, not a lift: how to work in a repository is what most
 *   of its runs did successfully.
 * The scope is the episode's domain (else its language, else `*`), so one fact is one pattern, not
 * one per context field. A pattern's strength is a comparison inside its scope and harness stratum
 * (the episode's agent): how often the consequent holds with the antecedent against how often it
 * holds in comparable episodes without it. Statistics are counts, so they do not depend on the order
 * episodes arrive in, and neither does which patterns meet the bar.
 */
import type { Outcome } from '../episodes/outcome.ts';
import { type ContextFacts, clamp, episodeSucceeded, type StepFacts } from './facts.ts';
import { filesWritten, PROCEDURE_RULES, proceduresOf } from './procedures.ts';
import { taskTerms } from './task-terms.ts';

const PATTERN_KINDS = ['file_change', 'task_outcome', 'tool_outcome', 'error_outcome', 'error_fix', 'procedure'] as const;
export type PatternKind = (typeof PATTERN_KINDS)[number];

/** Kinds whose consequent is a changed file (`file:<path>`); their support is their antecedent's (FILE_ANTECEDENT). */
export const FILE_KINDS: ReadonlySet<PatternKind> = new Set(['file_change', 'error_fix']);
/** The kind whose support (episodes with the cue) a file kind's support is. */
export const FILE_ANTECEDENT = { file_change: 'task_outcome', error_fix: 'error_outcome' } as const satisfies Partial<Record<PatternKind, PatternKind>>;
/** Kinds whose cue must be informative in its scope (the idf floor). */
const CUED_KINDS: ReadonlySet<PatternKind> = new Set(['file_change', 'task_outcome', 'error_fix']);

export const PATTERN_RULES = {
  /** Episodes with the antecedent a pattern needs, by kind. */
  minSupport: { file_change: 3, task_outcome: 5, tool_outcome: 5, error_outcome: 5, error_fix: 3, procedure: 3 },
  /** Episodes with both antecedent and consequent a file pattern needs: a file two runs changed may be chance. */
  minFileHits: 3,
  /**
   * The largest share of a scope's episodes whose task may mention a cue term (file and task-outcome
   * patterns): an idf floor, ln(1 / 0.2) = 1.6. A word most tasks of a project say ("python", the
   * project's name, "model" in a web framework) predicts nothing about any one task.
   */
  maxCueShare: 0.2,
  /** Comparable episodes (same scope and stratum) without the antecedent. */
  minComparable: 5,
  /** |lift| a pattern needs: file patterns must predict a change (positive lift); outcome patterns may warn. */
  minLift: { file_change: 0.15, task_outcome: 0.1, tool_outcome: 0.1, error_outcome: 0.1, error_fix: 0.15, procedure: 0 },
  /**
   * A procedure is kept when it worked in at least minSupport runs, in at least this share of the
   * scope's runs (a way of working, not one run's habit), and in most runs that tried it (a command
   * that usually fails there is not how to work there).
   */
  procedureShare: 0.3,
  procedureWorkedRate: 0.5,
  /** Pseudo-observations at the comparable rate added to the rate with the antecedent (shrinks small samples). */
  priorWeight: 2,
  /** |lift| / its standard error a pattern needs (about 95% two-sided): small samples need a larger lift. */
  minZ: 2,
  /** Changed files per episode paired with its terms. */
  filesPerEpisode: 3,
  toolsPerEpisode: 8,
  errorsPerEpisode: 8,
} as const;

/** The consequent of outcome kinds: the run succeeded. File patterns' consequent is `file:<path>`. */
const SUCCESS_TARGET = '';

export interface TaskEpisode {
  description: string;
  agent: string | null;
  context: ContextFacts;
  outcome: Outcome;
  steps: StepFacts[];
  /** The episode's normalised reward, in [0, 1]. */
  reward: number;
}

export interface PatternCandidate {
  /** `${kind}:${JSON.stringify(signature)}`: the same fact in another episode has the same key. */
  key: string;
  kind: PatternKind;
  signature: string[];
  description: string;
  /** The term or name a task is matched by (relevantPatterns). */
  cue: string;
  /** SUCCESS_TARGET or `file:<path>`. */
  target: string;
  /** A procedure's consequent: it worked in this run. The other kinds' is the run's success (or the file). */
  worked?: boolean;
}

/** What one episode adds to the counts of its scope and stratum. */
export interface EpisodeObservation {
  scope: string;
  stratum: string;
  success: boolean;
  reward: number;
  /** `file:<path>` for each changed file counted (baselines of file patterns). */
  fileTargets: string[];
  candidates: PatternCandidate[];
}

export function observeEpisode(episode: TaskEpisode): EpisodeObservation {
  const scope = scopeOf(episode.context);
  const terms = taskTerms(episode.description);
  const files = changedFiles(episode.outcome).slice(0, PATTERN_RULES.filesPerEpisode);
  const tools = distinctNames(episode.steps.filter((s) => s.resultKind === 'success').map((s) => s.tool)).slice(0, PATTERN_RULES.toolsPerEpisode);
  const failed = episode.steps.filter((s) => s.resultKind === 'error' || s.resultKind === 'timeout');
  const named = distinctNames(failed.flatMap((s) => s.errorNames ?? [])).slice(0, PATTERN_RULES.errorsPerEpisode);
  const errors = [...new Set([...distinctNames(failed.map((s) => s.errorClass)), ...named])].slice(0, 2 * PATTERN_RULES.errorsPerEpisode);
  const procedures = [...proceduresRun(episode.steps)].slice(0, PROCEDURE_RULES.perEpisode);
  const candidates: PatternCandidate[] = [
    ...terms.flatMap((term) =>
      files.map((path) => candidate('file_change', [scope, term, path], term, `file:${path}`, `in ${scope}, tasks mentioning "${term}" change ${path}`)),
    ),
    ...terms.map((term) => candidate('task_outcome', [scope, term], term, SUCCESS_TARGET, `in ${scope}, tasks mentioning "${term}"`)),
    ...tools.map((tool) => candidate('tool_outcome', [scope, tool], tool, SUCCESS_TARGET, `in ${scope}, runs that used ${tool}`)),
    ...errors.map((error) => candidate('error_outcome', [scope, error], error, SUCCESS_TARGET, `in ${scope}, runs that hit ${error}`)),
    ...named.flatMap((error) =>
      files.map((path) => candidate('error_fix', [scope, error, path], error, `file:${path}`, `in ${scope}, runs that hit ${error} changed ${path}`)),
    ),
    ...procedures.map(([procedure, worked]) => ({
      ...candidate('procedure', [scope, procedure], procedure, SUCCESS_TARGET, `in ${scope}, runs ran \`${procedure}\``),
      worked,
    })),
  ];
  return {
    scope,
    stratum: name(episode.agent ?? ''),
    success: episodeSucceeded(episode.outcome),
    reward: clamp(episode.reward, 0, 1),
    fileTargets: files.map((path) => `file:${path}`),
    candidates,
  };
}

/** Each procedure the steps ran, in first-run order, and whether a step running it succeeded; the run's own scripts are not procedures. */
function proceduresRun(steps: readonly StepFacts[]): Map<string, boolean> {
  const commands = steps.filter((s) => s.command && s.resultKind !== null);
  const scratch = new Set(commands.flatMap((s) => filesWritten(s.command as string)));
  const worked = new Map<string, boolean>();
  for (const step of commands) {
    for (const procedure of proceduresOf(step.command as string, scratch)) {
      worked.set(procedure, (worked.get(procedure) ?? false) || step.resultKind === 'success');
    }
  }
  return worked;
}

function patternKey(kind: PatternKind, signature: readonly string[]): string {
  return `${kind}:${JSON.stringify(signature)}`;
}

/** The one scope a pattern is learnt in: the domain, else the language, else `*`. */
export function scopeOf(context: Pick<ContextFacts, 'domain' | 'language'>): string {
  if (context.domain?.trim()) return name(context.domain);
  if (context.language?.trim()) return `language:${name(context.language)}`;
  return '*';
}

/** The outcome's artifacts that name files, normalised (diff prefixes and `./` dropped), distinct. */
export function changedFiles(outcome: Outcome): string[] {
  const artifacts = 'artifacts' in outcome && Array.isArray(outcome.artifacts) ? outcome.artifacts : [];
  const paths = artifacts.map((a) => a.trim().replace(/^(?:[ab]\/|\.\/)/, '')).filter((a) => a.length > 0 && a.length <= 300 && /[./]/.test(a));
  return [...new Set(paths)];
}

function candidate(kind: PatternKind, signature: string[], cue: string, target: string, description: string): PatternCandidate {
  return { key: patternKey(kind, signature), kind, signature, cue, target, description };
}

function distinctNames(values: ReadonlyArray<string | null | undefined>): string[] {
  return [...new Set(values.flatMap((v) => (v?.trim() ? [name(v)] : [])))];
}

function name(text: string): string {
  return text.trim().toLowerCase();
}

// ---- strength ----

/** Counts of one pattern in one stratum of its scope. */
export interface StratumCounts {
  /** Episodes of the stratum with the antecedent. */
  support: number;
  /** Of those, episodes where the consequent held (success, or the file changed). */
  hits: number;
  /** Every episode of the stratum. */
  episodes: number;
  /** Episodes of the stratum where the consequent held, with or without the antecedent. */
  baseHits: number;
}

export type RejectionReason = 'too_few_occurrences' | 'uninformative_cue' | 'no_comparable_episodes' | 'low_lift';

export interface PatternStrength {
  support: number;
  hits: number;
  /** hits / support. */
  rate: number;
  /** The consequent's rate in comparable episodes without the antecedent (stratum-weighted). */
  baselineRate: number;
  /** Shrunk rate with the antecedent minus baselineRate, stratum-weighted; null without comparable episodes. */
  lift: number | null;
  /** lift over its standard error (liftZ); 0 without comparable episodes. */
  z: number;
  comparable: number;
  /** null: the pattern meets the bar. */
  failure: RejectionReason | null;
  /** What a reader ranks it by, in [0, 1]: min(1, |lift|); a procedure's share of the scope's runs it worked in. */
  effectiveness: number;
}

/**
 * Lift as a stratified risk difference: in each stratum s, with_s = (hits + k·without_s) / (support + k)
 * (k = priorWeight pseudo-observations at the comparable rate, so 2 of 2 is not certainty) and
 * without_s = (baseHits − hits) / (episodes − support); strata are weighted by
 * support·(episodes − support)/episodes (Cochran-Mantel-Haenszel), so a harness that succeeds more
 * often overall does not make its own tools look effective.
 */
export function patternStrength(kind: PatternKind, strata: readonly StratumCounts[]): PatternStrength {
  if (kind === 'procedure') return procedureStrength(strata);
  let support = 0,
    hits = 0,
    comparable = 0,
    weight = 0,
    weightedWith = 0,
    weightedWithout = 0,
    episodes = 0,
    baseHits = 0;
  for (const s of strata) {
    support += s.support;
    hits += s.hits;
    episodes += s.episodes;
    baseHits += s.baseHits;
    const others = s.episodes - s.support;
    comparable += Math.max(0, others);
    if (others <= 0 || s.support <= 0) continue;
    const without = clamp((s.baseHits - s.hits) / others, 0, 1);
    const withShrunk = (s.hits + PATTERN_RULES.priorWeight * without) / (s.support + PATTERN_RULES.priorWeight);
    const w = (s.support * others) / s.episodes;
    weight += w;
    weightedWith += w * withShrunk;
    weightedWithout += w * without;
  }
  const rate = support > 0 ? hits / support : 0;
  const baselineRate = weight > 0 ? weightedWithout / weight : 0;
  const lift = weight > 0 ? (weightedWith - weightedWithout) / weight : null;
  const z = lift === null ? 0 : liftZ(lift, episodes > 0 ? baseHits / episodes : 0, support, comparable);
  const failure = barFailure(kind, { support, hits, episodes, comparable }, lift, z);
  return { support, hits, rate, baselineRate, lift, z, comparable, failure, effectiveness: Math.min(1, Math.abs(lift ?? 0)) };
}

/**
 * A procedure's support is the runs that ran it, its hits the runs it worked in; its strength the
 * share of the scope's runs it worked in. It has no lift: it is not compared with runs without it.
 */
function procedureStrength(strata: readonly StratumCounts[]): PatternStrength {
  const sum = (pick: (s: StratumCounts) => number) => strata.reduce((total, s) => total + pick(s), 0);
  const [support, hits, episodes] = [sum((s) => s.support), sum((s) => s.hits), sum((s) => s.episodes)];
  const share = episodes > 0 ? Math.min(1, hits / episodes) : 0;
  const rate = support > 0 ? hits / support : 0;
  const failure: RejectionReason | null =
    hits < PATTERN_RULES.minSupport.procedure || share < PATTERN_RULES.procedureShare
      ? 'too_few_occurrences'
      : rate < PATTERN_RULES.procedureWorkedRate
        ? 'low_lift'
        : null;
  return { support, hits, rate, baselineRate: 0, lift: null, z: 0, comparable: Math.max(0, episodes - support), failure, effectiveness: share };
}

/**
 * The lift over its standard error under "no difference": the consequent's rate p in the whole
 * scope, and the two groups' sizes, give se = sqrt(p(1 − p)(1/support + 1/comparable)). A
 * consequent that never happens outside the antecedent's episodes (p(1 − p) = 0) has nothing to
 * doubt.
 */
function liftZ(lift: number, p: number, support: number, comparable: number): number {
  const variance = p * (1 - p) * (1 / Math.max(1, support) + 1 / Math.max(1, comparable));
  return variance > 0 ? lift / Math.sqrt(variance) : Math.sign(lift) * Number.POSITIVE_INFINITY;
}

function barFailure(
  kind: PatternKind,
  { support, hits, episodes, comparable }: { support: number; hits: number; episodes: number; comparable: number },
  lift: number | null,
  z: number,
): RejectionReason | null {
  if (support < PATTERN_RULES.minSupport[kind]) return 'too_few_occurrences';
  if (FILE_KINDS.has(kind) && hits < PATTERN_RULES.minFileHits) return 'too_few_occurrences';
  if (CUED_KINDS.has(kind) && support > PATTERN_RULES.maxCueShare * episodes) return 'uninformative_cue';
  if (lift === null || comparable < PATTERN_RULES.minComparable) return 'no_comparable_episodes';
  const signed = FILE_KINDS.has(kind) ? lift : Math.abs(lift);
  const signedZ = FILE_KINDS.has(kind) ? z : Math.abs(z);
  return signed >= PATTERN_RULES.minLift[kind] && signedZ >= PATTERN_RULES.minZ ? null : 'low_lift';
}

export type PatternStatus = 'candidate' | 'active' | 'superseded';

/**
 * A pattern is active exactly when its current counts meet the bar, so the active set is a function
 * of the episodes counted. One that met the bar before and no longer does is superseded (kept, never
 * deleted); a superseded one that meets the bar again is active again.
 */
export function nextStatus(current: PatternStatus, meetsBar: boolean): PatternStatus {
  if (meetsBar) return 'active';
  return current === 'candidate' ? 'candidate' : 'superseded';
}

/** A procedure that usually failed in its scope (tried in minSupport runs or more, worked in fewer than half): what not to run instead. */
export function usuallyFails(p: { occurrences: number; successes: number }): boolean {
  return p.occurrences >= PATTERN_RULES.minSupport.procedure && p.successes < PATTERN_RULES.procedureWorkedRate * p.occurrences;
}

/** How a procedure that usually fails is told: "`python -m pytest` worked in 1 of the 56 runs that ran it". */
export function failedProcedureSummary(p: { cue: string; occurrences: number; successes: number }): string {
  return `\`${p.cue}\` worked in ${p.successes} of the ${p.occurrences} runs that ran it`;
}

/** One sentence an agent can read: the fact, its counts, and the comparison it is measured against. */
export function patternSummary(p: {
  kind: PatternKind;
  scope: string;
  cue: string;
  target: string;
  occurrences: number;
  successes: number;
  baselineRate: number;
  lift: number | null;
  /** A procedure's share of the scope's runs it worked in. */
  effectiveness?: number;
}): string {
  const percent = (x: number) => `${Math.round(x * 100)}%`;
  const compared = `comparable runs without it: ${percent(p.baselineRate)}; lift ${p.lift === null ? 'n/a' : (p.lift >= 0 ? '+' : '') + p.lift.toFixed(2)}`;
  const counts = `${p.successes} of ${p.occurrences}`;
  switch (p.kind) {
    case 'file_change':
      return `In ${p.scope}, tasks mentioning "${p.cue}" changed ${p.target.replace(/^file:/, '')} in ${counts} runs (${compared}).`;
    case 'task_outcome':
      return `In ${p.scope}, tasks mentioning "${p.cue}" succeeded in ${counts} runs (${compared}).`;
    case 'tool_outcome':
      return `In ${p.scope}, runs that used ${p.cue} succeeded in ${counts} (${compared}).`;
    case 'error_outcome':
      return `In ${p.scope}, runs that hit ${p.cue} succeeded in ${counts} (${compared}).`;
    case 'error_fix':
      return `In ${p.scope}, runs that hit ${p.cue} changed ${p.target.replace(/^file:/, '')} in ${counts} (${compared}).`;
    case 'procedure':
      return `In ${p.scope}, \`${p.cue}\` worked in ${p.successes} of the ${p.occurrences} runs that ran it: ${percent(p.effectiveness ?? 0)} of the runs in ${p.scope}.`;
  }
}
