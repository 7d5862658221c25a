// Ledger queries: paging the chain, the head and checkpoints, verification and proofs.
import { builder } from '../builder.ts';
import { InputLimitError, NotFoundError } from '../schema/errors.ts';
import { isUuid } from '../schema/ids.ts';
import type { Context } from '../schema/context.ts';
import { toHex } from './hash.ts';
import { LedgerEventRef, LedgerFilterInput } from './graphql.ts';
import { latestCheckpoint } from './checkpoints.ts';
import { readEvents, readHead, type LedgerFilter } from './read.ts';
import type { SignedTreeHead } from './signed-head.ts';
import { buildProofBundle, type ProofBundle } from './verify.ts';
import { verifyStoredRange, type RangeReport } from './verify-range.ts';

const MAX_PAGE = 500;

const SignedTreeHeadRef = builder.objectRef<SignedTreeHead>('SignedTreeHead').implement({
  description: 'A checkpoint: the Merkle root over events 1..treeSize, signed with Ed25519 (docs/LEDGER.md).',
  fields: (t) => ({
    treeSize: t.field({ type: 'BigInt', resolve: (h) => h.treeSize }),
    rootHash: t.exposeString('rootHash'),
    headHash: t.exposeString('headHash'),
    issuedAt: t.exposeString('issuedAt'),
    signature: t.exposeString('signature'),
    keyId: t.exposeString('keyId'),
    tenantId: t.exposeID('tenantId'),
  }),
});

const LedgerHeadRef = builder.objectRef<{ seq: number; hash: string | null; checkpoint: SignedTreeHead | null }>('LedgerHead').implement({
  fields: (t) => ({
    seq: t.field({ type: 'BigInt', resolve: (h) => h.seq }),
    hash: t.exposeString('hash', { nullable: true }),
    latestCheckpoint: t.field({ type: SignedTreeHeadRef, nullable: true, resolve: (h) => h.checkpoint }),
  }),
});

const PublicKeyRef = builder.objectRef<{ keyId: string; publicKey: string }>('LedgerPublicKey').implement({
  fields: (t) => ({
    algorithm: t.string({ resolve: () => 'Ed25519' }),
    keyId: t.exposeString('keyId'),
    publicKey: t.exposeString('publicKey', { description: 'Hex of the 32-byte public key.' }),
  }),
});

const EdgeRef = builder.objectRef<{ cursor: string; node: import('./hash.ts').StoredLedgerEvent }>('LedgerEventEdge').implement({
  fields: (t) => ({ cursor: t.exposeString('cursor'), node: t.field({ type: LedgerEventRef, resolve: (e) => e.node }) }),
});

const PageInfoRef = builder.objectRef<{ hasNextPage: boolean; endCursor: string | null }>('LedgerPageInfo').implement({
  fields: (t) => ({ hasNextPage: t.exposeBoolean('hasNextPage'), endCursor: t.exposeString('endCursor', { nullable: true }) }),
});

const ConnectionRef = builder.objectRef<{ edges: Array<{ cursor: string; node: import('./hash.ts').StoredLedgerEvent }>; pageInfo: { hasNextPage: boolean; endCursor: string | null } }>('LedgerEventConnection').implement({
  description: 'Events in seq order; a cursor is the decimal seq (resume with after: <last seq>).',
  fields: (t) => ({
    edges: t.field({ type: [EdgeRef], resolve: (c) => c.edges }),
    pageInfo: t.field({ type: PageInfoRef, resolve: (c) => c.pageInfo }),
  }),
});

const VerifyReportRef = builder.objectRef<RangeReport>('LedgerVerification').implement({
  fields: (t) => ({
    ok: t.exposeBoolean('ok'),
    checked: t.exposeInt('checked', { description: 'Events whose hash and link were checked.' }),
    stepsChecked: t.exposeInt('stepsChecked', { description: 'Step rows recomputed against the hashes their events carry.' }),
    firstBadSeq: t.field({ type: 'BigInt', nullable: true, resolve: (r) => r.firstBadSeq ?? null }),
    problem: t.string({ nullable: true, resolve: (r) => r.problem ?? null }),
    reason: t.string({ nullable: true, resolve: (r) => r.reason ?? null }),
    checkpointTreeSize: t.field({ type: 'BigInt', nullable: true, resolve: (r) => r.checkpointTreeSize }),
  }),
});

const InclusionProofRef = builder.objectRef<{ seq: number; treeSize: number; auditPath: string[]; leafHash: string; checkpoint: SignedTreeHead }>('InclusionProof').implement({
  fields: (t) => ({
    seq: t.field({ type: 'BigInt', resolve: (p) => p.seq }),
    leafIndex: t.field({ type: 'BigInt', resolve: (p) => p.seq - 1 }),
    treeSize: t.field({ type: 'BigInt', resolve: (p) => p.treeSize }),
    leafHash: t.exposeString('leafHash'),
    auditPath: t.exposeStringList('auditPath'),
    checkpoint: t.field({ type: SignedTreeHeadRef, resolve: (p) => p.checkpoint }),
  }),
});

const ConsistencyProofRef = builder.objectRef<{ fromSize: number; toSize: number; fromRoot: string; toRoot: string; proof: string[] }>('ConsistencyProof').implement({
  fields: (t) => ({
    fromSize: t.field({ type: 'BigInt', resolve: (p) => p.fromSize }),
    toSize: t.field({ type: 'BigInt', resolve: (p) => p.toSize }),
    fromRoot: t.exposeString('fromRoot'),
    toRoot: t.exposeString('toRoot'),
    proof: t.exposeStringList('proof'),
  }),
});

const ProofBundleRef = builder.objectRef<ProofBundle & { publicKey: string; format: string }>('EpisodeProofBundle').implement({
  fields: (t) => ({
    bundle: t.field({ type: 'JSON', description: 'Save as a file and check it with `episodic verify <file>`.', resolve: (b) => b }),
    eventCount: t.int({ resolve: (b) => b.events.length }),
    treeHead: t.field({ type: SignedTreeHeadRef, resolve: (b) => b.treeHead }),
  }),
});

function asSeq(field: string, value: bigint | null | undefined, fallback: number): number {
  if (value == null) return fallback;
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new InputLimitError([{ field, limit: `0..${Number.MAX_SAFE_INTEGER}`, actual: String(value), message: `${field} is out of range` }]);
  }
  return Number(value);
}

/** A signed checkpoint covering at least `size` events, publishing a fresh one when needed. */
async function checkpointCovering(ctx: Context, size: number): Promise<SignedTreeHead> {
  const latest = await latestCheckpoint(ctx.services.db.pool, ctx.viewer!.tenantId);
  if (latest && latest.treeSize >= size) return latest;
  return ctx.services.checkpoints.publish(ctx.viewer!.tenantId);
}

builder.queryFields((t) => ({
  ledgerEvents: t.field({
    type: ConnectionRef,
    args: {
      after: t.arg.string({ description: 'A seq: events after it.' }),
      first: t.arg.int({ defaultValue: 100 }),
      filter: t.arg({ type: LedgerFilterInput }),
    },
    errors: { types: [InputLimitError] },
    resolve: async (_root, args, ctx) => {
      const first = args.first ?? 100;
      if (first < 1 || first > MAX_PAGE) throw new InputLimitError([{ field: 'first', limit: `1..${MAX_PAGE}`, actual: String(first), message: `first must be between 1 and ${MAX_PAGE}` }]);
      const after = args.after == null ? 0 : /^\d{1,16}$/.test(args.after) ? Number(args.after) : NaN;
      if (Number.isNaN(after)) throw new InputLimitError([{ field: 'after', limit: 'a decimal seq', actual: args.after!, message: 'after must be a seq (decimal digits)' }]);
      const f = args.filter ?? {};
      const bad = [f.episodeId, f.workItemId].some((id) => id != null && !isUuid(String(id)));
      const filter: LedgerFilter = { episodeId: f.episodeId == null ? null : String(f.episodeId), workItemId: f.workItemId == null ? null : String(f.workItemId), types: f.types ?? null };
      const rows = bad ? [] : await readEvents(ctx.services.db.pool, ctx.viewer!.tenantId, { afterSeq: after, limit: first + 1, filter });
      const page = rows.slice(0, first);
      return {
        edges: page.map((node) => ({ cursor: String(node.seq), node })),
        pageInfo: { hasNextPage: rows.length > first, endCursor: page.length ? String(page[page.length - 1]!.seq) : args.after ?? null },
      };
    },
  }),
  ledgerHead: t.field({
    type: LedgerHeadRef,
    resolve: async (_root, _args, ctx) => {
      const head = await readHead(ctx.services.db.pool, ctx.viewer!.tenantId);
      return { ...head, checkpoint: await latestCheckpoint(ctx.services.db.pool, ctx.viewer!.tenantId) };
    },
  }),
  ledgerPublicKey: t.field({
    type: PublicKeyRef,
    description: 'The key that signs checkpoints; verify bundles offline against it.',
    resolve: (_root, _args, ctx) => ({ keyId: ctx.services.checkpoints.signer.keyId, publicKey: ctx.services.checkpoints.signer.publicKeyHex }),
  }),
  verifyLedger: t.field({
    type: VerifyReportRef,
    description: 'Re-hashes the stored range, re-checks the steps it covers and the latest signed checkpoint.',
    errors: { types: [InputLimitError] },
    args: { fromSeq: t.arg({ type: 'BigInt' }), toSeq: t.arg({ type: 'BigInt' }) },
    resolve: async (_root, args, ctx) => {
      const fromSeq = Math.max(1, asSeq('fromSeq', args.fromSeq, 1));
      const toSeq = args.toSeq == null ? null : asSeq('toSeq', args.toSeq, 0);
      const { pool } = ctx.services.db;
      const checkpoint = await latestCheckpoint(pool, ctx.viewer!.tenantId);
      return verifyStoredRange(pool, ctx.viewer!.tenantId, fromSeq, toSeq, checkpoint, ctx.services.checkpoints.signer.publicKeyHex);
    },
  }),
  inclusionProof: t.field({
    type: InclusionProofRef,
    errors: { types: [NotFoundError, InputLimitError] },
    args: { seq: t.arg({ type: 'BigInt', required: true }) },
    resolve: async (_root, args, ctx) => {
      const seq = asSeq('seq', args.seq, 0);
      const head = await readHead(ctx.services.db.pool, ctx.viewer!.tenantId);
      if (seq < 1 || seq > head.seq) throw new NotFoundError('LedgerEvent', String(seq));
      const checkpoint = await checkpointCovering(ctx, seq);
      const tree = await ctx.services.checkpoints.trees.atLeast(ctx.viewer!.tenantId, checkpoint.treeSize);
      const [event] = await readEvents(ctx.services.db.pool, ctx.viewer!.tenantId, { afterSeq: seq - 1, limit: 1 });
      return { seq, treeSize: checkpoint.treeSize, leafHash: event!.hash, auditPath: tree.inclusionProof(seq - 1, checkpoint.treeSize).map(toHex), checkpoint };
    },
  }),
  consistencyProof: t.field({
    type: ConsistencyProofRef,
    errors: { types: [InputLimitError] },
    args: { fromSize: t.arg({ type: 'BigInt', required: true }), toSize: t.arg({ type: 'BigInt' }) },
    resolve: async (_root, args, ctx) => {
      const head = await readHead(ctx.services.db.pool, ctx.viewer!.tenantId);
      const fromSize = asSeq('fromSize', args.fromSize, 0);
      const toSize = asSeq('toSize', args.toSize, head.seq);
      if (fromSize < 1 || fromSize > toSize || toSize > head.seq) {
        throw new InputLimitError([{ field: 'fromSize', limit: `1 <= fromSize <= toSize <= ${head.seq}`, actual: `${fromSize}..${toSize}`, message: 'sizes must satisfy 1 <= fromSize <= toSize <= the ledger head' }]);
      }
      const tree = await ctx.services.checkpoints.trees.atLeast(ctx.viewer!.tenantId, toSize);
      return { fromSize, toSize, fromRoot: toHex(tree.root(fromSize)), toRoot: toHex(tree.root(toSize)), proof: tree.consistencyProof(fromSize, toSize).map(toHex) };
    },
  }),
  episodeProofBundle: t.field({
    type: ProofBundleRef,
    description: 'The episode\'s events with inclusion proofs against a signed checkpoint: verify offline with `episodic verify`.',
    errors: { types: [NotFoundError] },
    args: { episodeId: t.arg.id({ required: true }) },
    resolve: async (_root, { episodeId }, ctx) => {
      const tenantId = ctx.viewer!.tenantId;
      const { pool } = ctx.services.db;
      const exists = isUuid(episodeId) && (await pool.query('SELECT 1 FROM episodes WHERE id = $1 AND tenant_id = $2', [episodeId, tenantId])).rowCount;
      if (!exists) throw new NotFoundError('Episode', String(episodeId));
      const events = await readEvents(pool, tenantId, { afterSeq: 0, limit: 100_000, filter: { episodeId: String(episodeId) } });
      const checkpoint = await checkpointCovering(ctx, events.at(-1)?.seq ?? 0);
      const tree = await ctx.services.checkpoints.trees.atLeast(tenantId, checkpoint.treeSize);
      return { ...buildProofBundle(events, tree, checkpoint), publicKey: ctx.services.checkpoints.signer.publicKeyHex, format: 'episodic.bundle.v1' };
    },
  }),
}));
