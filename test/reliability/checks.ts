// What a fault must not break, checked on the stored data (SQL straight on the database) and
// through the API (verifyLedger):
// - every acknowledged step is stored, under the step number the answer named;
// - no side-effect key is stored twice;
// - step numbers of every episode are contiguous 1..N, and the episode's step_count is N;
// - every step row is covered by exactly one steps.logged entry carrying its content hash, and
//   every entry has its step row (a step and its ledger event commit together or not at all);
// - the ledger verifies (chain, step hashes, signed checkpoint).
import pg from 'pg';
import type { EpisodicClient } from '../../src/client/index.ts';
import { must } from '../../src/core/must.ts';
import type { StoredAt } from './load.ts';

export interface IntegrityReport {
  /** Acknowledged steps looked up. */
  ackedChecked: number;
  /** Acknowledged steps missing or stored under another step number (must be 0). */
  lost: number;
  lostExamples: string[];
  steps: number;
  episodes: number;
  /** Step rows stored but never acknowledged (committed, answer lost): allowed, reported. */
  storedNotAcked: number;
  duplicateKeys: number;
  nonContiguousEpisodes: number;
  stepCountMismatches: number;
  /** Step rows without a steps.logged entry carrying their hash. */
  uncoveredSteps: number;
  /** steps.logged entries without their step row. */
  orphanEntries: number;
  /** Steps covered by more than one entry. */
  doubleCovered: number;
  ledgerEvents: number;
  verify: { ok: boolean; checked: number; stepsChecked: number; problem?: string | null; reason?: string | null };
}

export function integrityProblems(r: IntegrityReport): string[] {
  const problems: string[] = [];
  if (r.lost) problems.push(`${r.lost} acknowledged steps lost (e.g. ${r.lostExamples.join(', ')})`);
  if (r.duplicateKeys) problems.push(`${r.duplicateKeys} side-effect keys stored twice`);
  if (r.nonContiguousEpisodes) problems.push(`${r.nonContiguousEpisodes} episodes with step numbers not 1..N`);
  if (r.stepCountMismatches) problems.push(`${r.stepCountMismatches} episodes whose step_count differs from their rows`);
  if (r.uncoveredSteps) problems.push(`${r.uncoveredSteps} step rows without their steps.logged entry`);
  if (r.orphanEntries) problems.push(`${r.orphanEntries} steps.logged entries without their step row`);
  if (r.doubleCovered) problems.push(`${r.doubleCovered} steps covered twice`);
  if (!r.verify.ok) problems.push(`verifyLedger failed: ${r.verify.problem}: ${r.verify.reason}`);
  return problems;
}

async function storedFacts(databaseUrl: string) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const steps = await db.query<{ key: string | null; episode_id: string; step_number: number }>(
      'SELECT side_effect_key AS key, episode_id, step_number FROM steps',
    );
    const {
      rows: [facts],
    } = await db.query(`
      WITH entries AS (
        SELECT e.episode_id, (s->>'n')::int AS n, s->>'hash' AS hash
          FROM ledger_events e CROSS JOIN LATERAL jsonb_array_elements(e.payload->'steps') AS s
         WHERE e.type = 'steps.logged'
      ), per_episode AS (
        SELECT episode_id, count(*) AS n, count(DISTINCT step_number) AS d, min(step_number) AS lo, max(step_number) AS hi FROM steps GROUP BY episode_id
      )
      SELECT
        (SELECT count(*) FROM per_episode WHERE n <> d OR lo <> 1 OR hi <> n)::int AS non_contiguous,
        (SELECT count(*) FROM episodes ep LEFT JOIN per_episode p ON p.episode_id = ep.id WHERE ep.step_count <> coalesce(p.n, 0))::int AS count_mismatch,
        (SELECT count(*) FROM steps st WHERE NOT EXISTS (
            SELECT 1 FROM entries x WHERE x.episode_id = st.episode_id AND x.n = st.step_number AND x.hash = st.content_hash))::int AS uncovered,
        (SELECT count(*) FROM entries x WHERE NOT EXISTS (
            SELECT 1 FROM steps st WHERE st.episode_id = x.episode_id AND st.step_number = x.n))::int AS orphans,
        (SELECT count(*) - count(DISTINCT (episode_id, n)) FROM entries)::int AS double_covered,
        (SELECT count(*) FROM (SELECT side_effect_key FROM steps WHERE side_effect_key IS NOT NULL GROUP BY episode_id, side_effect_key HAVING count(*) > 1) d)::int AS duplicate_keys,
        (SELECT count(*) FROM episodes)::int AS episodes,
        (SELECT count(*) FROM ledger_events)::int AS events`);
    return { steps: steps.rows, facts };
  } finally {
    await db.end();
  }
}

/** Checks the stored data against what was acknowledged; `client` must reach a running server on it. */
export async function checkIntegrity(databaseUrl: string, client: EpisodicClient, acked: ReadonlyMap<string, StoredAt>): Promise<IntegrityReport> {
  const { steps, facts } = await storedFacts(databaseUrl);
  const byKey = new Map(steps.map((s) => [s.key, s]));
  const lostExamples: string[] = [];
  let lost = 0;
  for (const [key, at] of acked) {
    const row = byKey.get(key);
    if (!row || row.episode_id !== at.episodeId || row.step_number !== at.stepNumber) {
      lost += 1;
      if (lostExamples.length < 5)
        lostExamples.push(`${key}: acked as ${at.episodeId}#${at.stepNumber}, stored ${row ? `${row.episode_id}#${row.step_number}` : 'nowhere'}`);
    }
  }
  const verified = await client.verifyLedger();
  const verify =
    verified.__typename === 'LedgerVerification'
      ? { ok: verified.ok, checked: Number(verified.checked), stepsChecked: Number(verified.stepsChecked), problem: verified.problem, reason: verified.reason }
      : { ok: false, checked: 0, stepsChecked: 0, problem: verified.__typename, reason: (verified as { message?: string }).message ?? null };
  return {
    ackedChecked: acked.size,
    lost,
    lostExamples,
    steps: steps.length,
    episodes: facts.episodes,
    storedNotAcked: steps.filter((s) => s.key && !acked.has(s.key)).length,
    duplicateKeys: facts.duplicate_keys,
    nonContiguousEpisodes: facts.non_contiguous,
    stepCountMismatches: facts.count_mismatch,
    uncoveredSteps: facts.uncovered,
    orphanEntries: facts.orphans,
    doubleCovered: facts.double_covered,
    ledgerEvents: facts.events,
    verify,
  };
}

/** The ledger as stored (every tenant of the database), in seq order per tenant. */
export async function storedLedger(databaseUrl: string): Promise<Array<{ tenantId: string; seq: number; hash: string }>> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ tenant_id: string; seq: string; hash: string }>('SELECT tenant_id, seq, hash FROM ledger_events ORDER BY tenant_id, seq');
    return rows.map((r) => ({ tenantId: r.tenant_id, seq: Number(r.seq), hash: r.hash }));
  } finally {
    await db.end();
  }
}

/**
 * A subscriber's stream against the stored ledger: every event exactly once, in seq order, with
 * the stored hash. `seqs` are in arrival order, duplicates included.
 */
export function streamProblems(name: string, received: Array<{ seq: number; hash: string }>, stored: Array<{ seq: number; hash: string }>): string[] {
  const problems: string[] = [];
  const seen = new Set<number>();
  let duplicates = 0;
  let outOfOrder = 0;
  let last = 0;
  for (const e of received) {
    if (seen.has(e.seq)) duplicates += 1;
    else if (e.seq < last) outOfOrder += 1;
    seen.add(e.seq);
    last = Math.max(last, e.seq);
  }
  if (duplicates) problems.push(`${name}: ${duplicates} events delivered twice`);
  if (outOfOrder) problems.push(`${name}: ${outOfOrder} events out of seq order`);
  const missing = stored.filter((e) => !seen.has(e.seq));
  if (missing.length) problems.push(`${name}: ${missing.length} events never delivered (first seq ${must(missing[0]).seq})`);
  const hashOf = new Map(stored.map((e) => [e.seq, e.hash]));
  const wrong = received.filter((e) => hashOf.has(e.seq) && hashOf.get(e.seq) !== e.hash);
  if (wrong.length) problems.push(`${name}: ${wrong.length} events differ from the stored ledger (first seq ${must(wrong[0]).seq})`);
  const unknown = received.filter((e) => !hashOf.has(e.seq));
  if (unknown.length) problems.push(`${name}: ${unknown.length} events not in the stored ledger`);
  return problems;
}
