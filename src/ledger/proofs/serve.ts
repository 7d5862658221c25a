// The proof use cases every door serves (docs/LEDGER.md §4-§6): an inclusion proof, a consistency
// proof and an episode's proof bundle, always against a signed checkpoint that already exists
// (reads never sign one, §5). A door translates its arguments and the typed errors thrown here.
import type pg from 'pg';
import { InputLimitError, NotFoundError } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';
import { toHex } from '../format/hash.ts';
import { rowClaimsOf } from '../format/hashed-rows.ts';
import type { SignedTreeHead } from '../format/signed-head.ts';
import { type CheckpointPublisher, latestCheckpoint } from '../store/checkpoints.ts';
import { NotCheckpointedError } from '../store/errors.ts';
import { readHashedRows } from '../store/hashed-rows-store.ts';
import { readEvents, readHead } from '../store/read.ts';
import { retryAfterMs } from '../store/retry-after.ts';
import { buildProofBundle, type ProofBundle } from './bundle.ts';
import { episodeExists, episodeRecord } from './bundle-record.ts';

/** What the proofs read: the pool and the checkpoints (their trees, their signer). */
export interface ProofDeps {
  pool: pg.Pool;
  checkpoints: CheckpointPublisher;
}

export interface InclusionProof {
  seq: number;
  treeSize: number;
  eventHash: string;
  auditPath: string[];
  checkpoint: SignedTreeHead;
}

export interface ConsistencyProof {
  fromSize: number;
  toSize: number;
  fromRoot: string;
  toRoot: string;
  proof: string[];
}

/** The latest checkpoint if it covers `size` events, else a typed error saying when to retry. */
async function checkpointCovering(deps: ProofDeps, tenantId: string, size: number): Promise<SignedTreeHead> {
  const latest = await latestCheckpoint(deps.pool, tenantId);
  if (latest && latest.treeSize >= size) return latest;
  throw new NotCheckpointedError(size, latest?.treeSize ?? null, retryAfterMs(latest, deps.checkpoints.opts.intervalMs, Date.now()));
}

/** PATH(seq - 1, D[0:treeSize]) of §4.1 against the latest signed checkpoint. */
export async function inclusionProofOf(deps: ProofDeps, tenantId: string, seq: number): Promise<InclusionProof> {
  const head = await readHead(deps.pool, tenantId);
  if (seq < 1 || seq > head.seq) throw new NotFoundError('LedgerEvent', String(seq));
  const checkpoint = await checkpointCovering(deps, tenantId, seq);
  const tree = await deps.checkpoints.trees.atLeast(tenantId, checkpoint.treeSize);
  const [event] = await readEvents(deps.pool, tenantId, { afterSeq: seq - 1, limit: 1 });
  if (!event) throw new NotFoundError('LedgerEvent', String(seq));
  return { seq, treeSize: checkpoint.treeSize, eventHash: event.hash, auditPath: tree.inclusionProof(seq - 1, checkpoint.treeSize).map(toHex), checkpoint };
}

/** PROOF(fromSize, D[0:toSize]) of §4.2; toSize null is the ledger head. */
export async function consistencyProofOf(deps: ProofDeps, tenantId: string, fromSize: number, toSizeAsked: number | null): Promise<ConsistencyProof> {
  const head = await readHead(deps.pool, tenantId);
  const toSize = toSizeAsked ?? head.seq;
  if (fromSize > toSize || toSize > head.seq) {
    const message = 'sizes must satisfy 0 <= fromSize <= toSize <= the ledger head';
    throw new InputLimitError([{ field: 'fromSize', limit: `0 <= fromSize <= toSize <= ${head.seq}`, actual: `${fromSize}..${toSize}`, message }]);
  }
  const tree = await deps.checkpoints.trees.atLeast(tenantId, toSize);
  return {
    fromSize,
    toSize,
    fromRoot: toHex(tree.root(fromSize)),
    toRoot: toHex(tree.root(toSize)),
    proof: tree.consistencyProof(fromSize, toSize).map(toHex),
  };
}

/** The episode's events (with its lease.charged) and step rows, with inclusion proofs (§6). */
export async function episodeProofBundleOf(deps: ProofDeps, tenantId: string, episodeId: string): Promise<ProofBundle> {
  const { pool, checkpoints } = deps;
  if (!(isUuid(episodeId) && (await episodeExists(pool, tenantId, episodeId)))) throw new NotFoundError('Episode', episodeId);
  const record = await episodeRecord(pool, tenantId, episodeId);
  const checkpoint = await checkpointCovering(deps, tenantId, record.events.at(-1)?.seq ?? 0);
  const tree = await checkpoints.trees.atLeast(tenantId, checkpoint.treeSize);
  const covered = record.events.filter((e) => e.seq <= checkpoint.treeSize);
  const rows = await readHashedRows(pool, tenantId, rowClaimsOf(covered));
  return buildProofBundle({ episodeId, publicKey: checkpoints.signer.publicKeyHex, ...record, rows }, tree, checkpoint);
}
