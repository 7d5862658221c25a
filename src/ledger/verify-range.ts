// Server-side verification of a stored range: the chain, the steps each steps.logged event
// covers (an edited step row is caught too), and the latest signed checkpoint (a cut-off tail).
import type pg from 'pg';
import { readEvents } from './read.ts';
import { GENESIS_HASH, toHex, type StoredLedgerEvent } from './hash.ts';
import { eventLeafHash, merkleRoot } from './merkle.ts';
import { verifyChain, type ChainReport } from './verify.ts';
import { verifyTreeHead, type SignedTreeHead } from './signed-head.ts';
import { fromHex } from './hash.ts';
import { stepContentHash, type PreparedStep } from '../steps/prepare.ts';

const PAGE = 20_000;

export interface RangeReport extends ChainReport {
  stepsChecked: number;
  checkpointTreeSize: number | null;
}

async function prevHashBefore(pool: pg.Pool, tenantId: string, fromSeq: number): Promise<string> {
  if (fromSeq <= 1) return GENESIS_HASH;
  const { rows } = await pool.query('SELECT hash FROM ledger_events WHERE tenant_id = $1 AND seq = $2', [tenantId, fromSeq - 1]);
  return rows[0]?.hash ?? GENESIS_HASH;
}

function rowToPrepared(r: any): PreparedStep {
  return {
    kind: r.kind, tool: r.tool, action: r.action, parameters: r.parameters, argsHash: r.args_hash, resultKind: r.result_kind,
    result: r.result, observation: r.observation, latencyMs: r.latency_ms, tokens: r.tokens, cost: r.cost,
    sideEffectKey: r.side_effect_key, worldBefore: r.world_before, worldAfter: r.world_after, metadata: r.metadata, sizeBytes: r.size_bytes,
  };
}

/** Recomputes the content hash of every step the events cover; returns the first event whose steps differ. */
async function checkSteps(pool: pg.Pool, events: StoredLedgerEvent[]): Promise<{ checked: number; bad?: { seq: number; reason: string } }> {
  let checked = 0;
  for (const e of events) {
    if (e.type !== 'steps.logged' || !e.episodeId) continue;
    const listed = (e.payload as { steps: Array<{ n: number; hash: string }> }).steps;
    const { rows } = await pool.query('SELECT * FROM steps WHERE episode_id = $1 AND step_number = ANY($2::int[])', [e.episodeId, listed.map((s) => s.n)]);
    const byNumber = new Map(rows.map((r: any) => [r.step_number as number, r]));
    for (const s of listed) {
      const row = byNumber.get(s.n);
      if (!row) return { checked, bad: { seq: e.seq, reason: `step ${s.n} of episode ${e.episodeId} is missing` } };
      if (stepContentHash(e.episodeId, rowToPrepared(row)) !== s.hash) {
        return { checked, bad: { seq: e.seq, reason: `step ${s.n} of episode ${e.episodeId} differs from what was logged` } };
      }
      checked += 1;
    }
  }
  return { checked };
}

/** Leaves of events 1..size as stored now, for comparing against a signed root. */
async function storedRoot(pool: pg.Pool, tenantId: string, size: number): Promise<{ count: number; root: string }> {
  const { rows } = await pool.query<{ hash: string }>('SELECT hash FROM ledger_events WHERE tenant_id = $1 AND seq <= $2 ORDER BY seq', [tenantId, size]);
  return { count: rows.length, root: toHex(merkleRoot(rows.map((r) => eventLeafHash(r.hash)))) };
}

export async function verifyStoredRange(
  pool: pg.Pool,
  tenantId: string,
  fromSeq: number,
  toSeq: number | null,
  checkpoint: SignedTreeHead | null,
  publicKeyHex: string,
): Promise<RangeReport> {
  let expectedPrevHash = await prevHashBefore(pool, tenantId, fromSeq);
  let expectedFirstSeq = fromSeq;
  let checked = 0;
  let stepsChecked = 0;
  const fail = (seq: number, problem: ChainReport['problem'], reason: string): RangeReport => ({ ok: false, checked, firstBadSeq: seq, problem, reason, stepsChecked, checkpointTreeSize: checkpoint?.treeSize ?? null });
  for (;;) {
    const page = await readEvents(pool, tenantId, { afterSeq: expectedFirstSeq - 1, toSeq, limit: PAGE });
    if (!page.length) break;
    const report = verifyChain(page, { expectedPrevHash, expectedFirstSeq, tenantId });
    if (!report.ok) return { ...report, checked: checked + report.checked, stepsChecked, checkpointTreeSize: checkpoint?.treeSize ?? null };
    const steps = await checkSteps(pool, page);
    stepsChecked += steps.checked;
    if (steps.bad) return fail(steps.bad.seq, 'hash-mismatch', steps.bad.reason);
    checked += page.length;
    expectedPrevHash = page[page.length - 1]!.hash;
    expectedFirstSeq = page[page.length - 1]!.seq + 1;
    if (page.length < PAGE) break;
  }
  if (checkpoint && fromSeq <= 1 && (toSeq === null || toSeq >= checkpoint.treeSize)) {
    if (!verifyTreeHead(checkpoint, fromHex(publicKeyHex, 32))) return fail(checkpoint.treeSize, 'signature', 'the latest checkpoint signature does not verify');
    const stored = await storedRoot(pool, tenantId, checkpoint.treeSize);
    if (stored.count < checkpoint.treeSize) return fail(stored.count + 1, 'missing-tail', `checkpoint covers ${checkpoint.treeSize} events but only ${stored.count} are stored`);
    if (stored.root !== checkpoint.rootHash) return fail(checkpoint.treeSize, 'root-mismatch', 'stored events do not produce the signed Merkle root');
  }
  return { ok: true, checked, stepsChecked, checkpointTreeSize: checkpoint?.treeSize ?? null };
}
