// One pattern-extraction run for one episode, in the caller's transaction: candidates (patterns.ts),
// merged statistics for every key, the kept ones marked active, contradicted ones superseded, the
// reward re-scored with the patterns kept, and one `patterns.extracted` ledger event with the counts
// (found, rejected by reason, kept), so a run that learns nothing still leaves a record.
// The completing transaction runs it for extractPatterns: SYNC; the queue's job runs it otherwise.
import type { WriteContext } from '../episodes/store.ts';
import { NotFoundError } from '../schema/errors.ts';
import { clamp, episodeSucceeded } from './facts.ts';
import { lockPatterns, recentObservations, savePatternUpdates, type PatternUpdate, type StoredPattern } from './pattern-store.ts';
import { decideCandidates, extractCandidates, meetsAcceptanceBar, mergePattern, PATTERN_RULES, type PatternStats, type RejectionReason } from './patterns.ts';
import { loadEpisodeFacts, patternEpisodeOf, refreshExperience, rewardOf } from './store.ts';
import { contradictedBy } from './supersede.ts';

export type ExtractionMode = 'sync' | 'async';

/** Rejection reasons of decideCandidates, plus `superseded`: passed the bar but contradicted by this very episode. */
export type ExtractionRejection = RejectionReason | 'superseded';

export interface ExtractionReport {
  episodeId: string;
  mode: ExtractionMode;
  /** Candidates found = kept + Σ rejected. */
  candidates: number;
  kept: number;
  rejected: Record<ExtractionRejection, number>;
  /** Kept patterns by their status before: new (candidate → active), confirmed (already active), revived (superseded → active). */
  activated: number;
  confirmed: number;
  revived: number;
  /** Patterns this run marked superseded. */
  superseded: number;
  keptPatternIds: string[];
  reward: { before: number; after: number };
}

interface Merged {
  key: string;
  row: StoredPattern;
  before: PatternStats | null;
  stats: PatternStats;
}

/** Runs extraction unless it already ran; null when there is nothing to do (no outcome, or done). */
export async function extractEpisodePatterns(ctx: WriteContext, episodeId: string, mode: ExtractionMode): Promise<ExtractionReport | null> {
  const facts = await loadEpisodeFacts(ctx.client, ctx.tenantId, episodeId, true);
  if (!facts) throw new NotFoundError('Episode', episodeId);
  if (!facts.outcome || facts.learningState === 'done') return null;
  const rewardBefore = facts.rewardNormalized ?? rewardOf(facts, facts.outcome, 0).normalized;
  const candidates = extractCandidates(patternEpisodeOf(facts, facts.outcome, rewardBefore));
  const observation = { success: episodeSucceeded(facts.outcome), episodeReward: clamp(rewardBefore, 0, 1) };
  const rows = candidates.length ? await lockPatterns(ctx.client, ctx.tenantId, candidates, { episodeId, context: facts.context, now: ctx.now }) : new Map();
  const merged: Merged[] = candidates.map((c) => {
    const row = rows.get(c.key)!;
    return { key: c.key, row, before: row.stats, stats: mergePattern(row.stats, c.observation) };
  });
  const decision = decideCandidates(merged);
  const contradicted = await findContradicted(ctx, merged, observation);

  const report: ExtractionReport = {
    episodeId,
    mode,
    candidates: candidates.length,
    kept: 0,
    rejected: { too_few_occurrences: 0, low_success_rate: 0, over_episode_limit: 0, superseded: 0 },
    activated: 0,
    confirmed: 0,
    revived: 0,
    superseded: 0,
    keptPatternIds: [],
    reward: { before: rewardBefore, after: rewardBefore },
  };
  for (const r of decision.rejected) report.rejected[r.reason] += 1;
  const keptKeys = new Set(decision.kept.map((k) => k.key));
  const updates = merged.map((m) => statusUpdate(m, keptKeys.has(m.key), contradicted.has(m.key), ctx.now, report));
  await savePatternUpdates(ctx.client, ctx.tenantId, episodeId, observation, updates, ctx.now);

  const experience = await refreshExperience(ctx.client, ctx.tenantId, episodeId, 'done');
  report.reward.after = experience?.reward ?? rewardBefore;
  ctx.events.push({ type: 'patterns.extracted', episodeId, workItemId: facts.workItemId, payload: report });
  return report;
}

/** Established patterns (they met the bar before) that this observation contradicts. */
async function findContradicted(ctx: WriteContext, merged: readonly Merged[], observation: { success: boolean; episodeReward: number }): Promise<Set<string>> {
  const established = merged.filter((m) => m.before !== null && meetsAcceptanceBar(m.before));
  const earlier = await recentObservations(ctx.client, established.map((m) => m.row.id), PATTERN_RULES.recentWindow - 1);
  return new Set(established.filter((m) => contradictedBy(m.before!, earlier.get(m.row.id) ?? [], observation)).map((m) => m.key));
}

function statusUpdate(m: Merged, keptByRules: boolean, contradicted: boolean, now: Date, report: ExtractionReport): PatternUpdate {
  const { row } = m;
  if (contradicted) {
    if (keptByRules) report.rejected.superseded += 1;
    if (row.status !== 'superseded') report.superseded += 1;
    return { id: row.id, stats: m.stats, status: 'superseded', supersededAt: row.supersededAt ?? now, kept: false };
  }
  if (!keptByRules) return { id: row.id, stats: m.stats, status: row.status, supersededAt: row.supersededAt, kept: false };
  report.kept += 1;
  report.keptPatternIds.push(row.id);
  if (row.status === 'active') report.confirmed += 1;
  else if (row.status === 'superseded') report.revived += 1;
  else report.activated += 1;
  return { id: row.id, stats: m.stats, status: 'active', supersededAt: null, kept: true };
}
