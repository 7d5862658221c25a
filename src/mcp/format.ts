// What the MCP tools say to an agent: short plain text it can put in its prompt (the task, the
// outcome, the files, what went wrong, the retrieval id to credit). Pure: GraphQL results in,
// text out; the structured result goes beside it unchanged.

export interface BriefOutcome {
  kind?: string | null;
  verdict?: string | null;
  artifacts?: string[] | null;
  completed?: string[] | null;
  failed?: string[] | null;
  reason?: string | null;
  details?: string | null;
}

export interface BriefEpisode {
  id: string;
  status?: string | null;
  taskDescription?: string | null;
  stepCount?: number | null;
  outcome?: BriefOutcome | null;
  reflection?: { improvements?: string[] | null; successes?: string[] | null; insights?: string[] | null } | null;
}

export interface ScoredEpisode {
  episode: BriefEpisode;
  score?: { total?: number | null; strength?: number | null; strengthWord?: string | null } | null;
  failed?: boolean | null;
  whatWentWrong?: string | null;
}

export interface RelevantFile {
  path: string;
  score: number;
  runs: number;
  resolved: number;
  failed: number;
  evidence: Array<{ id: string; taskDescription?: string | null }>;
}

export interface ScoredPattern {
  pattern: {
    id: string;
    kind?: string | null;
    /** The pattern and its numbers in one sentence, as the monitor shows it (Pattern.summary). */
    summary?: string | null;
    /** PROCEDURE: commands that usually failed in its repository, with their counts. */
    failedInstead?: string[] | null;
    description?: string | null;
    changedFile?: string | null;
    occurrences?: number | null;
    successRate?: number | null;
    lift?: number | null;
  };
  score?: { total?: number | null } | null;
}

export interface ViolationLike {
  field?: string | null;
  limit?: unknown;
  actual?: unknown;
  message?: string | null;
}

/** One line of at most max characters: task descriptions are often kilobytes of pasted logs. */
export function oneLine(text: string | null | undefined, max: number): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const score = (n: number | null | undefined) => (n == null ? '?' : n.toFixed(2));

function creditLine(retrievalId: string | null | undefined): string {
  return retrievalId
    ? `Retrieval ${retrievalId}: if this helped, pass it to complete_episode in usedRetrievals (credited on success, debited on failure).`
    : 'No retrieval id (a read-only key records nothing to credit).';
}

function filesOf(outcome: BriefOutcome | null | undefined): string[] {
  return outcome?.artifacts ?? [];
}

/** The outcome in a few words: the verdict of a success, what failed and why otherwise. */
export function outcomeText(outcome: BriefOutcome | null | undefined): string {
  if (!outcome?.kind) return 'no outcome yet';
  const parts = [outcome.kind];
  if (outcome.verdict) parts.push(oneLine(outcome.verdict, 200));
  if (outcome.failed?.length) parts.push(`failed: ${oneLine(outcome.failed.join('; '), 200)}`);
  if (outcome.reason) parts.push(oneLine(outcome.reason, 200));
  if (outcome.details) parts.push(oneLine(outcome.details, 300));
  return parts.join(': ');
}

/** The run's strength, an absolute chance ("nothing similar" reads low), and the relative ranking total beside it. */
function strengthText(s: ScoredEpisode['score']): string {
  const chance = s?.strength == null ? '?' : `${Math.round(s.strength * 100)}%`;
  return `${s?.strengthWord ?? 'unknown'} match: ${chance} chance it is useful; ranking score ${score(s?.total)}`;
}

function scoredEpisodeLines(s: ScoredEpisode, index: number): string[] {
  const e = s.episode;
  const lines = [`${index + 1}. ${outcomeText(e.outcome)} (${strengthText(s.score)}) episode ${e.id}`, `   task: ${oneLine(e.taskDescription, 300)}`];
  const files = filesOf(e.outcome);
  if (files.length) lines.push(`   files: ${oneLine(files.join(', '), 300)}`);
  if (s.whatWentWrong) lines.push(`   what went wrong: ${oneLine(s.whatWentWrong, 300)}`);
  const lessons = e.reflection?.improvements ?? [];
  if (lessons.length) lines.push(`   lesson: ${oneLine(lessons.slice(0, 2).join('; '), 300)}`);
  return lines;
}

export function relevantEpisodesText(r: { retrievalId?: string | null; episodes?: ScoredEpisode[] | null; warnings?: ScoredEpisode[] | null }): string {
  const episodes = r.episodes ?? [];
  const warnings = r.warnings ?? [];
  if (!episodes.length && !warnings.length) return 'No completed past run matches this task yet.';
  const lines = [creditLine(r.retrievalId), `${episodes.length} past run(s) of similar tasks, best first:`, ...episodes.flatMap(scoredEpisodeLines)];
  if (warnings.length) lines.push('Similar runs that failed (avoid what they did):', ...warnings.flatMap(scoredEpisodeLines));
  return lines.join('\n');
}

export function relevantFilesText(r: { retrievalId?: string | null; files?: RelevantFile[] | null }): string {
  const files = r.files ?? [];
  if (!files.length) return 'No past run of a similar task changed any file yet.';
  const lines = files.map((f, i) => {
    const example = f.evidence[0];
    const seen = example ? `; e.g. episode ${example.id}: ${oneLine(example.taskDescription, 120)}` : '';
    return `${i + 1}. ${f.path} (score ${score(f.score)}): changed in ${f.runs} run(s), ${f.resolved} resolved, ${f.failed} failed${seen}`;
  });
  return [creditLine(r.retrievalId), 'Files past runs of similar tasks changed, most likely first (read them before you start):', ...lines].join('\n');
}

export function relevantPatternsText(r: { retrievalId?: string | null; patterns?: ScoredPattern[] | null }): string {
  const patterns = r.patterns ?? [];
  if (!patterns.length) return 'No learnt pattern applies to this task yet.';
  const lines = patterns.map(({ pattern: p, score: s }, i) => {
    // The summary names each number with what it counts (a procedure's runs, a file pattern's lift over comparable runs).
    const instead = p.failedInstead?.length ? `\n   usually failed there: ${p.failedInstead.join('; ')}` : '';
    if (p.summary) return `${i + 1}. ${p.kind ?? 'PATTERN'}: ${oneLine(p.summary, 300)} (score ${score(s?.total)})${instead}`;
    const rate = p.successRate == null ? '' : `, success rate ${Math.round(p.successRate * 100)}%`;
    const lift = p.lift == null ? '' : `, lift ${p.lift >= 0 ? '+' : ''}${p.lift.toFixed(2)}`;
    const file = p.changedFile ? ` [file ${p.changedFile}]` : '';
    return `${i + 1}. ${p.kind ?? 'PATTERN'}: ${oneLine(p.description, 300)}${file} (${p.occurrences ?? 0} run(s)${rate}${lift}; score ${score(s?.total)})`;
  });
  return [
    creditLine(r.retrievalId),
    'Patterns learnt from past runs (a PROCEDURE is how runs of the repository worked; a negative lift is a warning):',
    ...lines,
  ].join('\n');
}

/** Each refused field with its limit, once: the API's messages often name both already. */
export function violationsText(violations: ViolationLike[]): string {
  return violations
    .map((v) => {
      const field = v.field ?? 'input';
      const message = v.message ?? 'refused';
      const named = message.includes(field) ? message : `${field}: ${message}`;
      const limit =
        v.limit == null || message.includes(String(v.limit)) ? '' : ` (limit ${String(v.limit)}${v.actual == null ? '' : `, got ${String(v.actual)}`})`;
      return `${named}${limit}`;
    })
    .join('; ');
}
