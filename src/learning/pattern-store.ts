// SQL for pattern counts and statuses. Counting is commutative (increments), and the refresh after it
// recomputes the strength and status of every judged pattern of the scope from those counts, so the
// result does not depend on the order episodes were counted in. Every write here runs under the
// tenant's learning lock (lock.ts), taken before the episode rows: extractions of a tenant run one at
// a time, so the rows they share (baselines, the patterns of a scope) cannot deadlock.
import type pg from 'pg';
import type { PatternBaselinesRow, PatternStrataRow, PatternsRow } from '../db/rows.ts';
import { Params, queryRows, unnestAs } from '../db/sql.ts';
import { type ContextFacts, compareText } from './facts.ts';
import {
  type EpisodeObservation,
  FILE_ANTECEDENT,
  FILE_KINDS,
  nextStatus,
  PATTERN_RULES,
  type PatternCandidate,
  type PatternKind,
  type PatternStatus,
  patternStrength,
  type RejectionReason,
  type StratumCounts,
} from './patterns.ts';

/** What a batch adds to one pattern's stratum. */
interface StratumAdded {
  id: string;
  stratum: string;
  file: boolean;
  support: number;
  hits: number;
  reward: number;
}

export interface CountedEpisode {
  obs: EpisodeObservation;
  episodeId: string;
  context: ContextFacts;
}

/**
 * Adds the observations of a batch of episodes to the counts, summed per row first (one statement
 * per table for the whole batch, the file patterns' apart); returns the pattern id of every candidate key. A new pattern
 * keeps the context of the first episode of the batch that has it (display only).
 */
export async function countObservations(client: pg.PoolClient, tenantId: string, episodes: readonly CountedEpisode[], now: Date): Promise<Map<string, string>> {
  await addBaselines(client, tenantId, episodes);
  // Per key: the support and hits this batch adds. A file pattern's support is its antecedent's
  // (FILE_ANTECEDENT: the term's task_outcome, the error's error_outcome); its own row counts
  // co-occurrences as hits.
  const counts = new Map<string, { support: number; hits: number }>();
  for (const { obs } of episodes) {
    for (const c of obs.candidates) {
      const file = FILE_KINDS.has(c.kind);
      const row = counts.get(c.key) ?? { support: 0, hits: 0 };
      row.support += file ? 0 : 1;
      row.hits += (c.worked ?? (file || obs.success)) ? 1 : 0;
      counts.set(c.key, row);
    }
  }
  // The other patterns first: a file pattern's support is its antecedent's count after this batch
  // (FILE_ANTECEDENT), written with its row instead of by an update of it after.
  const counted = await upsertPatterns(client, tenantId, episodes, counts, now, (c) => !antecedentOf(c.kind));
  const termSupport = new Map(counted.map((r) => [`${r.kind}\u0000${r.scope}\u0000${r.cue}`, r.occurrences]));
  const fileSupport = new Map<string, number>();
  for (const { obs } of episodes) {
    for (const c of obs.candidates) {
      const antecedent = antecedentOf(c.kind);
      const support = antecedent && termSupport.get(`${antecedent}\u0000${obs.scope}\u0000${c.cue}`);
      if (support !== undefined && support !== null) fileSupport.set(c.key, support);
    }
  }
  counted.push(...(await upsertPatterns(client, tenantId, episodes, counts, now, (c) => fileSupport.has(c.key), fileSupport)));
  counted.push(...(await upsertPatterns(client, tenantId, episodes, counts, now, (c) => Boolean(antecedentOf(c.kind)) && !fileSupport.has(c.key))));
  const ids = new Map(counted.map((r) => [r.key, r.id]));
  // Per pattern and stratum: support, hits and rewards this batch adds.
  const strata = new Map<string, StratumAdded>();
  for (const { obs } of episodes) {
    for (const c of obs.candidates) {
      const id = ids.get(c.key) as string;
      const file = FILE_KINDS.has(c.kind);
      const key = `${id}\u0000${obs.stratum}`;
      const row = strata.get(key) ?? { id, stratum: obs.stratum, file, support: 0, hits: 0, reward: 0 };
      row.support += file ? 0 : 1;
      row.hits += (c.worked ?? (file || obs.success)) ? 1 : 0;
      row.reward += obs.reward;
      strata.set(key, row);
    }
  }
  const added = [...strata.values()].sort((x, y) => compareText(x.id + x.stratum, y.id + y.stratum));
  await addStrata(client, tenantId, added);
  return ids;
}

/** Adds the batch's episodes to the baselines of their scope and stratum (target '': every episode; a file: episodes that changed it). */
async function addBaselines(client: pg.PoolClient, tenantId: string, episodes: readonly CountedEpisode[]): Promise<void> {
  const baselines = new Map<string, { scope: string; stratum: string; target: string; episodes: number; hits: number }>();
  for (const { obs } of episodes) {
    for (const target of ['', ...obs.fileTargets]) {
      const key = [obs.scope, obs.stratum, target].join('\u0000');
      const row = baselines.get(key) ?? { scope: obs.scope, stratum: obs.stratum, target, episodes: 0, hits: 0 };
      row.episodes += 1;
      row.hits += obs.success ? 1 : 0;
      baselines.set(key, row);
    }
  }
  const rows = [...baselines.values()].sort((x, y) => compareText(x.scope + x.stratum + x.target, y.scope + y.stratum + y.target));
  const pb = new Params();
  const baselineRows = unnestAs(pb, 'u', {
    scope: [rows.map((r) => r.scope), 'text'],
    stratum: [rows.map((r) => r.stratum), 'text'],
    target: [rows.map((r) => r.target), 'text'],
    episodes: [rows.map((r) => r.episodes), 'int'],
    hits: [rows.map((r) => r.hits), 'int'],
  });
  await client.query(
    `INSERT INTO pattern_baselines (tenant_id, scope, stratum, target, episodes, hits)
     SELECT ${pb.add(tenantId)}, u.scope, u.stratum, u.target, u.episodes, u.hits FROM ${baselineRows}
     ON CONFLICT (tenant_id, scope, stratum, target) DO UPDATE
       SET episodes = pattern_baselines.episodes + EXCLUDED.episodes, hits = pattern_baselines.hits + EXCLUDED.hits`,
    pb.values,
  );
}

/** Adds the batch's support, hits and rewards to each pattern's stratum. */
async function addStrata(client: pg.PoolClient, tenantId: string, added: readonly StratumAdded[]): Promise<void> {
  const ps = new Params();
  const strataRows = unnestAs(ps, 'u', {
    id: [added.map((r) => r.id), 'uuid'],
    stratum: [added.map((r) => r.stratum), 'text'],
    support: [added.map((r) => r.support), 'int'],
    hits: [added.map((r) => r.hits), 'int'],
    reward: [added.map((r) => r.reward), 'float8'],
  });
  await client.query(
    `INSERT INTO pattern_strata (pattern_id, stratum, tenant_id, support, hits, reward_sum)
     SELECT u.id, u.stratum, ${ps.add(tenantId)}, u.support, u.hits, u.reward FROM ${strataRows}
     ON CONFLICT (pattern_id, stratum) DO UPDATE
       SET support = pattern_strata.support + EXCLUDED.support, hits = pattern_strata.hits + EXCLUDED.hits, reward_sum = pattern_strata.reward_sum + EXCLUDED.reward_sum`,
    ps.values,
  );
}

/** The kind whose support a file kind's support is; null for the other kinds. */
function antecedentOf(kind: PatternKind): PatternKind | null {
  return kind === 'file_change' || kind === 'error_fix' ? FILE_ANTECEDENT[kind] : null;
}

/**
 * Adds each key's support and hits to its pattern, creating the rows of keys not seen before (in key
 * order) with them, in one statement: a new row is written once, not inserted and then updated.
 * Returns every key's row as counted.
 */
async function upsertPatterns(
  client: pg.PoolClient,
  tenantId: string,
  episodes: readonly CountedEpisode[],
  counts: ReadonlyMap<string, { support: number; hits: number }>,
  now: Date,
  which: (c: PatternCandidate) => boolean,
  /** Given: each row's support is set to its key's (a file pattern's antecedent's), not added to. */
  supportOf?: ReadonlyMap<string, number>,
): Promise<Array<Pick<PatternsRow, 'id' | 'key' | 'scope' | 'cue' | 'occurrences'> & { kind: PatternKind }>> {
  const firsts = new Map<string, { candidate: PatternCandidate; scope: string; episode: CountedEpisode }>();
  for (const episode of episodes)
    for (const c of episode.obs.candidates) if (!firsts.has(c.key) && which(c)) firsts.set(c.key, { candidate: c, scope: episode.obs.scope, episode });
  const sorted = [...firsts.values()].sort((x, y) => compareText(x.candidate.key, y.candidate.key));
  if (sorted.length === 0) return [];
  const p = new Params();
  const [tenant, at] = [p.add(tenantId), p.add(now)];
  const candidates = unnestAs(
    p,
    'u',
    {
      key: [sorted.map((f) => f.candidate.key), 'text'],
      kind: [sorted.map((f) => f.candidate.kind), 'text'],
      signature: [sorted.map((f) => JSON.stringify(f.candidate.signature)), 'jsonb'],
      description: [sorted.map((f) => f.candidate.description), 'text'],
      scope: [sorted.map((f) => f.scope), 'text'],
      cue: [sorted.map((f) => f.candidate.cue), 'text'],
      target: [sorted.map((f) => f.candidate.target), 'text'],
      domain: [sorted.map((f) => f.episode.context.domain), 'text'],
      language: [sorted.map((f) => f.episode.context.language), 'text'],
      framework: [sorted.map((f) => f.episode.context.framework), 'text'],
      tags: [sorted.map((f) => JSON.stringify(f.episode.context.tags)), 'jsonb'],
      episode: [sorted.map((f) => f.episode.episodeId), 'uuid'],
      support: [sorted.map((f) => (supportOf ? supportOf.get(f.candidate.key) : counts.get(f.candidate.key)?.support) ?? 0), 'int'],
      hits: [sorted.map((f) => counts.get(f.candidate.key)?.hits ?? 0), 'int'],
    },
    { ordinality: 'n' },
  );
  return queryRows(
    client,
    `INSERT INTO patterns (tenant_id, key, kind, signature, description, scope, cue, target, domain, language, framework, tags, first_episode_id,
                           occurrences, successes, created_at, updated_at)
     SELECT ${tenant}, u.key, u.kind, ARRAY(SELECT jsonb_array_elements_text(u.signature)), u.description, u.scope, u.cue, u.target,
            u.domain, u.language, u.framework, ARRAY(SELECT jsonb_array_elements_text(u.tags)), u.episode, u.support, u.hits, ${at}, ${at}
       FROM ${candidates}
      ORDER BY u.n
     ON CONFLICT (tenant_id, key) DO UPDATE
       SET occurrences = ${supportOf ? 'EXCLUDED.occurrences' : 'patterns.occurrences + EXCLUDED.occurrences'}, successes = patterns.successes + EXCLUDED.successes, updated_at = EXCLUDED.updated_at
     RETURNING id, key, scope, cue, kind, occurrences`,
    p,
  );
}

export interface Judgement {
  from: PatternStatus;
  to: PatternStatus;
  failure: RejectionReason | null;
}

interface JudgedRow {
  id: string;
  kind: PatternKind;
  status: PatternStatus;
  stored_support: number;
  stored_hits: number;
  stored_lift: number | null;
  stored_baseline: number;
  stored_effectiveness: number;
  stratum: string;
  support: number;
  hits: number;
  reward_sum: number;
  episodes: number;
  base_hits: number;
}

/**
 * The counts of every pattern of the scope that can be judged, per stratum, with its baselines. Read
 * as three index scans joined here: one join in SQL made PostgreSQL scan the scope's patterns for
 * each file pattern's term.
 */
async function judgedRows(client: pg.PoolClient, tenantId: string, scope: string): Promise<JudgedRow[]> {
  // A file pattern's stored occurrences are its term's support when it was last counted (it may have
  // grown since): its own co-occurrences (successes, always current) decide whether it is judged.
  const p = new Params();
  const fileKinds = p.add([...FILE_KINDS]);
  const strata = await queryRows<Omit<JudgedRow, 'episodes' | 'base_hits'> & { cue: string; target: string }>(
    client,
    `SELECT p.id, p.kind, p.status, p.cue, p.target, p.occurrences AS stored_support, p.successes AS stored_hits, p.lift AS stored_lift,
            p.baseline_rate AS stored_baseline, p.effectiveness AS stored_effectiveness, s.stratum, s.support, s.hits, s.reward_sum
       FROM patterns p JOIN pattern_strata s ON s.pattern_id = p.id
      WHERE p.tenant_id = ${p.add(tenantId)} AND p.scope = ${p.add(scope)}
        AND ((p.kind <> ALL(${fileKinds}::text[]) AND p.occurrences >= ${p.add(Math.min(...Object.values(PATTERN_RULES.minSupport)))})
             OR (p.kind = ANY(${fileKinds}::text[]) AND p.successes >= ${p.add(PATTERN_RULES.minFileHits)}) OR p.status <> 'candidate')
      ORDER BY p.id, s.stratum`,
    p,
  );
  const bp = new Params();
  const baselines = await queryRows<Pick<PatternBaselinesRow, 'stratum' | 'target' | 'episodes' | 'hits'>>(
    client,
    `SELECT stratum, target, episodes, hits FROM pattern_baselines WHERE tenant_id = ${bp.add(tenantId)} AND scope = ${bp.add(scope)}`,
    bp,
  );
  const fileCues = [...new Set(strata.filter((r) => FILE_KINDS.has(r.kind)).map((r) => r.cue))];
  const tp = new Params();
  const terms = await queryRows<Pick<PatternsRow, 'kind' | 'cue'> & Pick<PatternStrataRow, 'stratum' | 'support'>>(
    client,
    `SELECT p.kind, p.cue, s.stratum, s.support FROM patterns p JOIN pattern_strata s ON s.pattern_id = p.id
      WHERE p.tenant_id = ${tp.add(tenantId)} AND p.cue = ANY(${tp.add(fileCues)}::text[]) AND p.scope = ${tp.add(scope)}
        AND p.kind = ANY(${tp.add(Object.values(FILE_ANTECEDENT))}::text[])`,
    tp,
  );
  const base = new Map(baselines.map((b) => [`${b.stratum}\u0000${b.target}`, b]));
  const termSupport = new Map(terms.map((t) => [`${t.kind}\u0000${t.stratum}\u0000${t.cue}`, t.support]));
  return strata.map((r) => {
    const all = base.get(`${r.stratum}\u0000`);
    const antecedent = antecedentOf(r.kind);
    const isFile = antecedent !== null;
    return {
      ...r,
      support: isFile ? (termSupport.get(`${antecedent}\u0000${r.stratum}\u0000${r.cue}`) ?? 0) : r.support,
      episodes: all?.episodes ?? 0,
      base_hits: isFile ? (base.get(`${r.stratum}\u0000${r.target}`)?.episodes ?? 0) : (all?.hits ?? 0),
    };
  });
}

/**
 * Recomputes strength and status of every pattern of the scope that has enough counts to be judged
 * (or was active once), from the counts alone. Returns each judged pattern's status before and after.
 */
export async function refreshScope(client: pg.PoolClient, tenantId: string, scope: string, now: Date): Promise<Map<string, Judgement>> {
  const rows = await judgedRows(client, tenantId, scope);
  const byPattern = new Map<string, JudgedRow[]>();
  for (const r of rows) byPattern.set(r.id, [...(byPattern.get(r.id) ?? []), r]);
  const updates: Array<{
    id: string;
    status: PatternStatus;
    support: number;
    hits: number;
    rate: number;
    meanReward: number;
    lift: number | null;
    baseline: number;
    effectiveness: number;
  }> = [];
  const judged = new Map<string, Judgement>();
  for (const [id, strata] of byPattern) {
    const first = strata[0] as JudgedRow;
    const counts: StratumCounts[] = strata.map((s) => ({ support: s.support, hits: s.hits, episodes: s.episodes, baseHits: s.base_hits }));
    const strength = patternStrength(first.kind, counts);
    const status = nextStatus(first.status, strength.failure === null);
    judged.set(id, { from: first.status, to: status, failure: strength.failure });
    const rewardSum = strata.reduce((sum, s) => sum + s.reward_sum, 0);
    // A file pattern's rewards are summed over its co-occurrences (hits); the others' over their support.
    const observed = FILE_KINDS.has(first.kind) ? strength.hits : strength.support;
    const meanReward = observed > 0 ? Math.min(1, rewardSum / observed) : 0;
    const lift = strength.lift === null ? null : round(strength.lift);
    const baseline = round(strength.baselineRate);
    const effectiveness = round(strength.effectiveness);
    // Rows whose stored values are already these are left alone: most of a scope, most of the time.
    const unchanged =
      status === first.status &&
      strength.support === first.stored_support &&
      strength.hits === first.stored_hits &&
      lift === first.stored_lift &&
      baseline === first.stored_baseline &&
      effectiveness === first.stored_effectiveness;
    if (!unchanged)
      updates.push({ id, status, support: strength.support, hits: strength.hits, rate: strength.rate, meanReward, lift, baseline, effectiveness });
  }
  if (updates.length) {
    const p = new Params();
    const at = p.add(now);
    const rows = unnestAs(p, 'u', {
      id: [updates.map((u) => u.id), 'uuid'],
      status: [updates.map((u) => u.status), 'text'],
      support: [updates.map((u) => u.support), 'int'],
      hits: [updates.map((u) => u.hits), 'int'],
      rate: [updates.map((u) => u.rate), 'float8'],
      mean_reward: [updates.map((u) => u.meanReward), 'float8'],
      lift: [updates.map((u) => u.lift), 'float8'],
      baseline: [updates.map((u) => u.baseline), 'float8'],
      effectiveness: [updates.map((u) => u.effectiveness), 'float8'],
    });
    await client.query(
      `UPDATE patterns p SET status = u.status, occurrences = u.support, successes = u.hits, success_rate = u.rate, mean_reward = u.mean_reward,
              lift = u.lift, baseline_rate = u.baseline, effectiveness = u.effectiveness,
              superseded_at = CASE WHEN u.status = 'superseded' THEN COALESCE(p.superseded_at, ${at}) WHEN u.status = 'active' THEN NULL ELSE p.superseded_at END
         FROM ${rows}
        WHERE p.id = u.id`,
      p.values,
    );
  }
  return judged;
}

/** Links each pattern to the episode it was observed in; kept: the pattern is active after this run. */
export async function recordObservations(
  client: pg.PoolClient,
  tenantId: string,
  episodes: ReadonlyArray<{ episodeId: string; success: boolean; reward: number; patterns: ReadonlyArray<{ id: string; kept: boolean }> }>,
  now: Date,
): Promise<void> {
  const rows = episodes.flatMap((e) => e.patterns.map((x) => ({ ...x, episode: e })));
  if (rows.length === 0) return;
  const p = new Params();
  const u = unnestAs(p, 'u', {
    id: [rows.map((r) => r.id), 'uuid'],
    episode: [rows.map((r) => r.episode.episodeId), 'uuid'],
    success: [rows.map((r) => r.episode.success), 'bool'],
    reward: [rows.map((r) => r.episode.reward), 'float8'],
    kept: [rows.map((r) => r.kept), 'bool'],
  });
  await client.query(
    `INSERT INTO pattern_episodes (pattern_id, episode_id, tenant_id, success, reward, kept, observed_at)
     SELECT u.id, u.episode, ${p.add(tenantId)}, u.success, u.reward, u.kept, ${p.add(now)} FROM ${u}
     ON CONFLICT (pattern_id, episode_id) DO NOTHING`,
    p.values,
  );
}

/** Stored lift and baseline keep STORED_DIGITS decimals: what a reader compares, and few enough that a new episode rarely changes them. */
const STORED_DIGITS = 2;
function round(x: number): number {
  return Number(x.toFixed(STORED_DIGITS));
}
