// Pattern extraction in the caller's transaction, for one episode or a batch: each episode's facts
// (patterns.ts) are added to the counts of its scope, then every judged pattern of the touched scopes
// is re-assessed from the counts (pattern-store.ts refreshScope), the reward is re-scored with the
// patterns kept, and each episode gets one `patterns.extracted` ledger event with the counts (found,
// rejected by reason, kept), so a run that learns nothing still leaves a record.
// The completing transaction runs it for extractPatterns: SYNC; the queue's jobs run it otherwise.
// A batch refreshes each scope once, which is what makes draining a backlog cheap.

import { NotFoundError } from '../core/errors.ts';
import { must } from '../core/must.ts';
import type { NewLedgerEvent, WriteContext } from '../core/write-context.ts';
import { lockLearning } from './lock.ts';
import { countObservations, type Judgement, recordObservations, refreshScope } from './pattern-store.ts';
import { type EpisodeObservation, observeEpisode, type RejectionReason } from './patterns.ts';
import { type EpisodeFacts, loadEpisodeFacts, patternEpisodeOf, refreshExperiences, rewardOf } from './store.ts';

export type ExtractionMode = 'sync' | 'async';

export interface ExtractionReport {
  episodeId: string;
  mode: ExtractionMode;
  /** Candidates found = kept + Σ rejected. */
  candidates: number;
  kept: number;
  rejected: Record<RejectionReason, number>;
  /** This episode's kept patterns by their status before: new (candidate → active), confirmed (already active), revived (superseded → active). */
  activated: number;
  confirmed: number;
  revived: number;
  /** This episode's patterns that no longer meet the bar (active → superseded). */
  superseded: number;
  keptPatternIds: string[];
  reward: { before: number; after: number };
}

/** An episode whose ending ran earlier in this transaction: its facts as stored, and the ending's observation of it. */
export interface KnownEpisode {
  facts: EpisodeFacts;
  observation: EpisodeObservation;
}

interface Pending {
  facts: EpisodeFacts;
  obs: EpisodeObservation;
  rewardBefore: number;
  ids: Map<string, string>;
}

/** A completed episode's experience redone after late steps (src/lifecycle/late-telemetry.ts); its extraction may be pending again. */
export const EXPERIENCE_REDONE_EVENT = 'episode.experience_redone';

const LEARNING_EVENTS = new Set(['episode.completed', 'episode.failed', EXPERIENCE_REDONE_EVENT]);

/** Episodes these events ended with extraction pending (a synchronous run among the same events already did it). */
export function pendingExtractions(events: readonly NewLedgerEvent[]): string[] {
  const extracted = new Set(events.filter((e) => e.type === 'patterns.extracted').map((e) => e.episodeId));
  return events
    .filter((e) => LEARNING_EVENTS.has(e.type) && e.episodeId && !extracted.has(e.episodeId))
    .filter((e) => (e.payload as { experience?: { extraction?: string } } | null)?.experience?.extraction === 'pending')
    .map((e) => must(e.episodeId));
}

/** Runs extraction unless it already ran; null when there is nothing to do (no outcome, or done). */
export async function extractEpisodePatterns(ctx: WriteContext, episodeId: string, mode: ExtractionMode): Promise<ExtractionReport | null> {
  const [report] = await extractPatternBatch(ctx, [episodeId], mode, { missing: 'throw' });
  return report ?? null;
}

/**
 * Extraction for several episodes of one tenant in one transaction: the reports of those that had
 * something to do (an outcome, not done before), in the order given. Unknown ids throw NotFoundError
 * with missing: 'throw', and are skipped with 'skip' (an episode deleted after it was queued).
 */
export async function extractPatternBatch(
  ctx: WriteContext,
  episodeIds: readonly string[],
  mode: ExtractionMode,
  options: { missing: 'throw' | 'skip'; known?: ReadonlyMap<string, KnownEpisode> } = { missing: 'skip' },
): Promise<ExtractionReport[]> {
  // The lock order of lock.ts: the tenant's learning lock, then the episode rows in id order.
  await lockLearning(ctx.client, ctx.tenantId);
  const loaded = new Map<string, EpisodeFacts | null>();
  for (const episodeId of [...new Set(episodeIds)].sort()) {
    // Facts the caller read in this transaction, the row locked since (an import's endings), need no second read.
    loaded.set(episodeId, options.known?.get(episodeId)?.facts ?? (await loadEpisodeFacts(ctx.client, ctx.tenantId, episodeId, true)));
  }
  const pending: Pending[] = [];
  for (const episodeId of new Set(episodeIds)) {
    const facts = loaded.get(episodeId);
    if (!facts) {
      if (options.missing === 'throw') throw new NotFoundError('Episode', episodeId);
      continue;
    }
    // An unknown outcome is no evidence for or against a pattern: such a run is not observed.
    if (!facts.outcome || facts.outcome.kind === 'unknown' || facts.learningState === 'done') continue;
    const rewardBefore = facts.rewardNormalized ?? rewardOf(facts, facts.outcome, 0).normalized;
    // The ending's observation was made with the reward it stored, which is rewardBefore here.
    const obs = options.known?.get(episodeId)?.observation ?? observeEpisode(patternEpisodeOf(facts, facts.outcome, rewardBefore));
    pending.push({ facts, obs, rewardBefore, ids: new Map() });
  }
  if (pending.length === 0) return [];
  const ids = await countObservations(
    ctx.client,
    ctx.tenantId,
    pending.map((p) => ({ obs: p.obs, episodeId: p.facts.id, context: p.facts.context })),
    ctx.now,
  );
  for (const p of pending) p.ids = ids;
  const judged = new Map<string, Judgement>();
  for (const scope of [...new Set(pending.map((p) => p.obs.scope))].sort()) {
    for (const [id, judgement] of await refreshScope(ctx.client, ctx.tenantId, scope, ctx.now)) judged.set(id, judgement);
  }
  return finishEpisodes(ctx, pending, judged, mode);
}

/**
 * Each episode's observations, experience and `patterns.extracted` event, in the order given: the
 * observations and the experiences of the batch are written in one statement each.
 */
async function finishEpisodes(
  ctx: WriteContext,
  pending: readonly Pending[],
  judged: ReadonlyMap<string, Judgement>,
  mode: ExtractionMode,
): Promise<ExtractionReport[]> {
  const judgedEpisodes = pending.map((p) => judgeEpisode(p, judged, mode));
  await recordObservations(
    ctx.client,
    ctx.tenantId,
    judgedEpisodes.map(({ pending: p, observed }) => ({ episodeId: p.facts.id, success: p.obs.success, reward: p.obs.reward, patterns: observed })),
    ctx.now,
  );
  // The episode's only observations are these (extraction runs once, under the episode's lock).
  const experiences = await refreshExperiences(
    ctx.client,
    judgedEpisodes.map(({ pending: p, observed }) => ({
      facts: p.facts,
      learningState: 'done' as const,
      patternsDiscovered: new Set(observed.filter((o) => o.kept).map((o) => o.id)).size,
      observation: p.obs,
    })),
  );
  const summaries = new Map(experiences.map((e) => [e.facts.id, e.summary]));
  return judgedEpisodes.map(({ pending: p, report }) => {
    const summary = summaries.get(p.facts.id);
    report.reward.after = summary?.reward ?? p.rewardBefore;
    // The re-scored reward and reflection are claimed by their hashes, as an ending claims them (docs/LEDGER.md §3.3).
    const claims = summary ? { experience: { reward: summary.reward, rewardHash: summary.rewardHash, reflectionHash: summary.reflectionHash } } : {};
    ctx.events.push({ type: 'patterns.extracted', episodeId: p.facts.id, workItemId: p.facts.workItemId, payload: { ...report, ...claims } });
    return report;
  });
}

/** An episode's report and observations from the judgements of its scope (pure). */
function judgeEpisode(p: Pending, judged: ReadonlyMap<string, Judgement>, mode: ExtractionMode) {
  const report: ExtractionReport = {
    episodeId: p.facts.id,
    mode,
    candidates: p.obs.candidates.length,
    kept: 0,
    rejected: { too_few_occurrences: 0, uninformative_cue: 0, no_comparable_episodes: 0, low_lift: 0 },
    activated: 0,
    confirmed: 0,
    revived: 0,
    superseded: 0,
    keptPatternIds: [],
    reward: { before: p.rewardBefore, after: p.rewardBefore },
  };
  const observed = p.obs.candidates.map((c) => {
    const id = p.ids.get(c.key) as string;
    const judgement = judged.get(id) ?? { from: 'candidate', to: 'candidate', failure: 'too_few_occurrences' };
    tally(report, id, judgement);
    return { id, kept: judgement.to === 'active' };
  });
  return { pending: p, report, observed };
}

function tally(report: ExtractionReport, id: string, judgement: Judgement): void {
  if (judgement.to !== 'active') {
    report.rejected[judgement.failure ?? 'too_few_occurrences'] += 1;
    if (judgement.to === 'superseded' && judgement.from === 'active') report.superseded += 1;
    return;
  }
  report.kept += 1;
  report.keptPatternIds.push(id);
  if (judgement.from === 'active') report.confirmed += 1;
  else if (judgement.from === 'superseded') report.revived += 1;
  else report.activated += 1;
}
