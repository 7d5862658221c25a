// Proof queries: inclusion and consistency proofs and episode proof bundles, always against a
// signed checkpoint that already exists (reads never sign one: docs/LEDGER.md §5).
import type pg from 'pg';
import { InputLimitError, NotFoundError } from '../core/errors.ts';
import { canonicalId, isUuid } from '../core/ids.ts';
import type { StepsRow } from '../db/rows.ts';
import { Params, queryRows } from '../db/sql.ts';
import type { ForgottenStepRow } from '../ledger/format/forgotten.ts';
import { type StoredLedgerEvent, toHex } from '../ledger/format/hash.ts';
import { rowClaimsOf } from '../ledger/format/hashed-rows.ts';
import { eventLeafHash } from '../ledger/format/merkle.ts';
import type { SignedTreeHead } from '../ledger/format/signed-head.ts';
import { type StepRow, stepKeptMembers, stepRowFromColumns } from '../ledger/format/step-hash.ts';
import { buildProofBundle, type ProofBundle } from '../ledger/proofs/bundle.ts';
import { type BundleBlob, storedBlobRefs } from '../ledger/proofs/bundle-blobs.ts';
import { latestCheckpoint } from '../ledger/store/checkpoints.ts';
import { NotCheckpointedError } from '../ledger/store/errors.ts';
import { readHashedRows } from '../ledger/store/hashed-rows-store.ts';
import { EVENT_COLUMNS, type LedgerEventSqlRow, readEvents, readHead, toEvent } from '../ledger/store/read.ts';
import { retryAfterMs } from '../ledger/store/retry-after.ts';
import { builder } from './builder.ts';
import type { Context } from './context.ts';
import { asSeq, SignedTreeHeadRef, tenantOf } from './ledger.ts';

interface InclusionProof {
  seq: number;
  treeSize: number;
  eventHash: string;
  auditPath: string[];
  checkpoint: SignedTreeHead;
}

const InclusionProofRef = builder.objectRef<InclusionProof>('InclusionProof').implement({
  description: 'PATH(seq - 1, D[0:treeSize]) of docs/LEDGER.md §4.1, against the latest signed checkpoint.',
  fields: (t) => ({
    seq: t.field({ type: 'BigInt', resolve: (p) => p.seq }),
    leafIndex: t.field({ type: 'BigInt', resolve: (p) => p.seq - 1 }),
    treeSize: t.field({ type: 'BigInt', resolve: (p) => p.treeSize }),
    eventHash: t.exposeString('eventHash', { description: "The event's chain hash: the leaf data." }),
    leafHash: t.string({
      description: 'leafHash(bytes(eventHash)) = H(0x00 || leaf data) (§4), the value the audit path starts from.',
      resolve: (p) => toHex(eventLeafHash(p.eventHash)),
    }),
    auditPath: t.exposeStringList('auditPath'),
    checkpoint: t.field({ type: SignedTreeHeadRef, resolve: (p) => p.checkpoint }),
  }),
});

const ConsistencyProofRef = builder
  .objectRef<{ fromSize: number; toSize: number; fromRoot: string; toRoot: string; proof: string[] }>('ConsistencyProof')
  .implement({
    description: "PROOF(fromSize, D[0:toSize]) of docs/LEDGER.md §4.2; fromSize 0 gives the empty proof and the empty tree's root.",
    fields: (t) => ({
      fromSize: t.field({ type: 'BigInt', resolve: (p) => p.fromSize }),
      toSize: t.field({ type: 'BigInt', resolve: (p) => p.toSize }),
      fromRoot: t.exposeString('fromRoot'),
      toRoot: t.exposeString('toRoot'),
      proof: t.exposeStringList('proof'),
    }),
  });

const ProofBundleRef = builder.objectRef<ProofBundle>('EpisodeProofBundle').implement({
  fields: (t) => ({
    bundle: t.field({
      type: 'JSON',
      description: 'The bundle of docs/LEDGER.md §6: save it and check it with `episodic verify --public-key <trusted hex> <file>`.',
      resolve: (b) => b,
    }),
    eventCount: t.int({ resolve: (b) => b.events.length }),
    stepCount: t.int({ resolve: (b) => b.steps.length }),
    treeHead: t.field({ type: SignedTreeHeadRef, resolve: (b) => b.treeHead }),
  }),
});

/** The latest checkpoint if it covers `size` events, else a typed error saying when to retry. */
async function checkpointCovering(ctx: Context, size: number): Promise<SignedTreeHead> {
  const latest = await latestCheckpoint(ctx.services.db.pool, tenantOf(ctx));
  if (latest && latest.treeSize >= size) return latest;
  throw new NotCheckpointedError(size, latest?.treeSize ?? null, retryAfterMs(latest, ctx.services.checkpoints.opts.intervalMs, Date.now()));
}

async function episodeExists(pool: pg.Pool, tenantId: string, id: string): Promise<boolean> {
  const p = new Params();
  return (await queryRows(pool, `SELECT 1 FROM episodes WHERE id = ${p.add(id)} AND tenant_id = ${p.add(tenantId)}`, p)).length > 0;
}

/** An episode's events (lease.charged names its episode in the payload, §10) and its step rows. */
async function episodeRecord(
  pool: pg.Pool,
  tenantId: string,
  episodeId: string,
): Promise<{ events: StoredLedgerEvent[]; steps: Array<StepRow | ForgottenStepRow>; blobs: BundleBlob[] }> {
  const e = new Params();
  const episode = e.add(episodeId);
  const events = await queryRows<LedgerEventSqlRow>(
    pool,
    `SELECT ${EVENT_COLUMNS} FROM ledger_events
      WHERE tenant_id = ${e.add(tenantId)} AND (episode_id = ${episode} OR (type = 'lease.charged' AND payload->>'episodeId' = ${episode}::text)) ORDER BY seq`,
    e,
  );
  const p = new Params();
  const steps = await queryRows<StepsRow>(
    pool,
    `SELECT * FROM steps WHERE tenant_id = ${p.add(tenantId)} AND episode_id = ${p.add(episodeId)} ORDER BY step_number`,
    p,
  );
  // A forgotten step is carried as its number and the members it keeps: its steps.forgotten event, in events, vouches for it (§3.4).
  const rows = steps.map((s) =>
    s.forgotten_at ? { stepNumber: s.step_number, forgotten: true as const, kept: stepKeptMembers(stepRowFromColumns(s)) } : stepRowFromColumns(s),
  );
  return { events: events.map(toEvent), steps: rows, blobs: await blobsOf(pool, tenantId, rows.flatMap(storedBlobRefs)) };
}

/** The stored blobs of these hashes (a v3 bundle carries the blobs its kept steps reference, §3.3). */
async function blobsOf(pool: pg.Pool, tenantId: string, hashes: string[]): Promise<BundleBlob[]> {
  if (!hashes.length) return [];
  const p = new Params();
  const sql = `SELECT hash, content FROM blobs WHERE tenant_id = ${p.add(tenantId)} AND hash = ANY(${p.add([...new Set(hashes)])}::text[]) ORDER BY hash`;
  return queryRows<BundleBlob>(pool, sql, p);
}

builder.queryFields((t) => ({
  inclusionProof: t.field({
    type: InclusionProofRef,
    errors: { types: [NotFoundError, InputLimitError, NotCheckpointedError] },
    args: { seq: t.arg({ type: 'BigInt', required: true }) },
    resolve: async (_root, args, ctx) => {
      const tenantId = tenantOf(ctx);
      const seq = asSeq('seq', args.seq, 0);
      const head = await readHead(ctx.services.db.pool, tenantId);
      if (seq < 1 || seq > head.seq) throw new NotFoundError('LedgerEvent', String(seq));
      const checkpoint = await checkpointCovering(ctx, seq);
      const tree = await ctx.services.checkpoints.trees.atLeast(tenantId, checkpoint.treeSize);
      const [event] = await readEvents(ctx.services.db.pool, tenantId, { afterSeq: seq - 1, limit: 1 });
      if (!event) throw new NotFoundError('LedgerEvent', String(seq));
      return { seq, treeSize: checkpoint.treeSize, eventHash: event.hash, auditPath: tree.inclusionProof(seq - 1, checkpoint.treeSize).map(toHex), checkpoint };
    },
  }),
  consistencyProof: t.field({
    type: ConsistencyProofRef,
    errors: { types: [InputLimitError] },
    args: { fromSize: t.arg({ type: 'BigInt', required: true }), toSize: t.arg({ type: 'BigInt' }) },
    resolve: async (_root, args, ctx) => {
      const tenantId = tenantOf(ctx);
      const head = await readHead(ctx.services.db.pool, tenantId);
      const fromSize = asSeq('fromSize', args.fromSize, 0);
      const toSize = asSeq('toSize', args.toSize, head.seq);
      if (fromSize > toSize || toSize > head.seq) {
        throw new InputLimitError([
          {
            field: 'fromSize',
            limit: `0 <= fromSize <= toSize <= ${head.seq}`,
            actual: `${fromSize}..${toSize}`,
            message: 'sizes must satisfy 0 <= fromSize <= toSize <= the ledger head',
          },
        ]);
      }
      const tree = await ctx.services.checkpoints.trees.atLeast(tenantId, toSize);
      return {
        fromSize,
        toSize,
        fromRoot: toHex(tree.root(fromSize)),
        toRoot: toHex(tree.root(toSize)),
        proof: tree.consistencyProof(fromSize, toSize).map(toHex),
      };
    },
  }),
  episodeProofBundle: t.field({
    type: ProofBundleRef,
    description: "The episode's events (with its lease.charged) and step rows, with inclusion proofs against the latest signed checkpoint (docs/LEDGER.md §6).",
    errors: { types: [NotFoundError, NotCheckpointedError] },
    args: { episodeId: t.arg.id({ required: true }) },
    resolve: async (_root, { episodeId }, ctx) => {
      const tenantId = tenantOf(ctx);
      const { pool } = ctx.services.db;
      const id = canonicalId(episodeId);
      const exists = isUuid(id) && (await episodeExists(pool, tenantId, id));
      if (!exists) throw new NotFoundError('Episode', String(episodeId));
      const record = await episodeRecord(pool, tenantId, id);
      const checkpoint = await checkpointCovering(ctx, record.events.at(-1)?.seq ?? 0);
      const tree = await ctx.services.checkpoints.trees.atLeast(tenantId, checkpoint.treeSize);
      const covered = record.events.filter((e) => e.seq <= checkpoint.treeSize);
      const rows = await readHashedRows(pool, tenantId, rowClaimsOf(covered));
      return buildProofBundle({ episodeId: id, publicKey: ctx.services.checkpoints.signer.publicKeyHex, ...record, rows }, tree, checkpoint);
    },
  }),
}));
