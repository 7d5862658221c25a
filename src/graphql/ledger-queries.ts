// Ledger queries: paging the chain, the head, the signed checkpoints, the public key, verification.
// Proofs are in graphql-proofs.ts.

import { InputLimitError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import type { StoredLedgerEvent } from '../ledger/format/hash.ts';
import { HASHED_ROW_KINDS, type HashedRow, type HashedRowKind } from '../ledger/format/hashed-rows.ts';
import type { SignedTreeHead } from '../ledger/format/signed-head.ts';
import { latestCheckpoint, listCheckpoints } from '../ledger/store/checkpoints.ts';
import { readHashedRows } from '../ledger/store/hashed-rows-store.ts';
import { type LedgerFilter, readEvents, readHead } from '../ledger/store/read.ts';
import { type RangeReport, verifyStoredRange } from '../ledger/verification/verify-range.ts';
import { builder } from './builder.ts';
import { asSeq, LedgerEventRef, LedgerFilterInput, SignedTreeHeadRef, tenantOf } from './ledger.ts';
import { listSize } from './page-size.ts';

/** Events or checkpoints of a page: 100 unless asked, at most 500. */
const DEFAULT_PAGE = 100;
const MAX_PAGE = 500;

const LedgerHeadRef = builder.objectRef<{ seq: number; hash: string; checkpoint: SignedTreeHead | null }>('LedgerHead').implement({
  fields: (t) => ({
    seq: t.field({ type: 'BigInt', description: '0 for an empty ledger.', resolve: (h) => h.seq }),
    hash: t.exposeString('hash', { description: 'Chain hash of event seq; the genesis hash (64 zeros) for an empty ledger.' }),
    latestCheckpoint: t.field({
      type: SignedTreeHeadRef,
      nullable: true,
      description: "null only until the first checkpoint (within CHECKPOINT_INTERVAL_MS of the tenant's creation).",
      resolve: (h) => h.checkpoint,
    }),
  }),
});

const PublicKeyRef = builder.objectRef<{ keyId: string; publicKey: string }>('LedgerPublicKey').implement({
  fields: (t) => ({
    algorithm: t.string({ resolve: () => 'Ed25519' }),
    keyId: t.exposeString('keyId'),
    publicKey: t.exposeString('publicKey', { description: 'Hex of the 32-byte public key.' }),
  }),
});

type Edge = { cursor: string; node: StoredLedgerEvent };

const EdgeRef = builder.objectRef<Edge>('LedgerEventEdge').implement({
  fields: (t) => ({ cursor: t.exposeString('cursor'), node: t.field({ type: LedgerEventRef, resolve: (e) => e.node }) }),
});

const PageInfoRef = builder.objectRef<{ hasNextPage: boolean; endCursor: string | null }>('LedgerPageInfo').implement({
  fields: (t) => ({ hasNextPage: t.exposeBoolean('hasNextPage'), endCursor: t.exposeString('endCursor', { nullable: true }) }),
});

const ConnectionRef = builder.objectRef<{ edges: Edge[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } }>('LedgerEventConnection').implement({
  description: 'Events in seq order; a cursor is the decimal seq (resume with after: <last seq>).',
  fields: (t) => ({
    edges: t.field({ type: [EdgeRef], resolve: (c) => c.edges }),
    pageInfo: t.field({ type: PageInfoRef, resolve: (c) => c.pageInfo }),
  }),
});

const CheckpointPageRef = builder.objectRef<{ checkpoints: SignedTreeHead[]; hasNextPage: boolean }>('SignedTreeHeadPage').implement({
  description: 'Signed checkpoints in treeSize order; resume with afterTreeSize: the last treeSize.',
  fields: (t) => ({
    checkpoints: t.field({ type: [SignedTreeHeadRef], resolve: (p) => p.checkpoints }),
    hasNextPage: t.exposeBoolean('hasNextPage'),
  }),
});

const VerifyReportRef = builder.objectRef<RangeReport>('LedgerVerification').implement({
  description: 'What verifyLedger checked (docs/LEDGER.md §7.5). Counts are of items that verified, up to the first problem.',
  fields: (t) => ({
    ok: t.exposeBoolean('ok'),
    checked: t.exposeInt('checked', { description: 'Events whose hash and link verified.' }),
    stepsChecked: t.exposeInt('stepsChecked', {
      description: 'Step rows recomputed (and their content_hash column compared) against the hashes their events carry.',
    }),
    stepsForgotten: t.exposeInt('stepsForgotten', {
      description:
        'Of the steps checked, those whose content was forgotten (forgetSteps): a steps.forgotten event names each with its logged hash (docs/LEDGER.md §3.4).',
    }),
    rowsChecked: t.exposeInt('rowsChecked', {
      description: 'Other hashed rows (checkpoint states, critiques, outcomes, rewards, reflections, retrievals, input hashes) compared with their events.',
    }),
    rowsForgotten: t.exposeInt('rowsForgotten', {
      description:
        'Hashed rows (an episode record, outcome, critique, reward, reflection, checkpoint state) an episode.forgotten event names with their claimed hash: checked to hold no value any more (docs/LEDGER.md §3.4).',
    }),
    checkpointsChecked: t.exposeInt('checkpointsChecked', {
      description: 'Signed checkpoints whose signature, head hash and root verified against the stored events.',
    }),
    firstBadSeq: t.field({ type: 'BigInt', nullable: true, resolve: (r) => r.firstBadSeq ?? null }),
    problem: t.string({ nullable: true, resolve: (r) => r.problem ?? null }),
    reason: t.string({ nullable: true, resolve: (r) => r.reason ?? null }),
    checkpointTreeSize: t.field({ type: 'BigInt', nullable: true, description: 'The latest signed checkpoint.', resolve: (r) => r.checkpointTreeSize }),
  }),
});

const MAX_ROW_REFS = 500;

const HashedRowRef = builder.objectRef<HashedRow>('HashedRow').implement({
  description: 'A stored value an event hashes (docs/LEDGER.md §3.3): contentHash(value) is the hash the latest such event carries.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: HASHED_ROW_KINDS.join(', ') }),
    id: t.exposeString('id', { description: 'The episode, checkpoint or retrieval it belongs to.' }),
    value: t.field({ type: 'JSON', nullable: true, resolve: (r) => r.value }),
  }),
});

const HashedRowRefInput = builder.inputType('HashedRowRef', {
  fields: (t) => ({ kind: t.string({ required: true }), id: t.string({ required: true }) }),
});

const HashedRowListRef = builder.objectRef<{ rows: HashedRow[] }>('HashedRowList').implement({
  fields: (t) => ({ rows: t.field({ type: [HashedRowRef], resolve: (l) => l.rows }) }),
});

function rowRefs(refs: Array<{ kind: string; id: string }>): Array<{ kind: HashedRowKind; id: string }> {
  if (refs.length > MAX_ROW_REFS)
    throw new InputLimitError([
      { field: 'refs', limit: `at most ${MAX_ROW_REFS}`, actual: String(refs.length), message: `at most ${MAX_ROW_REFS} refs per call` },
    ]);
  const bad = refs.findIndex((r) => !(HASHED_ROW_KINDS as readonly string[]).includes(r.kind) || !isUuid(r.id));
  if (bad >= 0)
    throw new InputLimitError([
      {
        field: `refs.${bad}`,
        limit: `kind one of ${HASHED_ROW_KINDS.join(', ')}; id a uuid`,
        actual: JSON.stringify(refs[bad]),
        message: 'unknown row kind or malformed id',
      },
    ]);
  return refs as Array<{ kind: HashedRowKind; id: string }>;
}

function pageSize(first: number | null | undefined): number {
  const n = first ?? DEFAULT_PAGE;
  if (n < 1 || n > MAX_PAGE)
    throw new InputLimitError([{ field: 'first', limit: `1..${MAX_PAGE}`, actual: String(n), message: `first must be between 1 and ${MAX_PAGE}` }]);
  return n;
}

builder.queryFields((t) => ({
  ledgerEvents: t.field({
    type: ConnectionRef,
    ...listSize('first', DEFAULT_PAGE, MAX_PAGE),
    args: {
      after: t.arg.string({ description: 'A seq: events after it.' }),
      first: t.arg.int({ defaultValue: DEFAULT_PAGE }),
      filter: t.arg({ type: LedgerFilterInput }),
    },
    errors: { types: [InputLimitError] },
    resolve: async (_root, args, ctx) => {
      const first = pageSize(args.first);
      const after = args.after == null ? 0 : /^\d{1,16}$/.test(args.after) ? Number(args.after) : NaN;
      if (Number.isNaN(after))
        throw new InputLimitError([{ field: 'after', limit: 'a decimal seq', actual: args.after ?? null, message: 'after must be a seq (decimal digits)' }]);
      const f = args.filter ?? {};
      const bad = [f.episodeId, f.workItemId].some((id) => id != null && !isUuid(String(id)));
      const filter: LedgerFilter = {
        episodeId: f.episodeId == null ? null : String(f.episodeId),
        workItemId: f.workItemId == null ? null : String(f.workItemId),
        types: f.types ?? null,
      };
      const rows = bad ? [] : await readEvents(ctx.services.db.pool, tenantOf(ctx), { afterSeq: after, limit: first + 1, filter });
      const page = rows.slice(0, first);
      const last = page.at(-1);
      return {
        edges: page.map((node) => ({ cursor: String(node.seq), node })),
        pageInfo: { hasNextPage: rows.length > first, endCursor: last ? String(last.seq) : (args.after ?? null) },
      };
    },
  }),
  ledgerHead: t.field({
    type: LedgerHeadRef,
    resolve: async (_root, _args, ctx) => {
      const head = await readHead(ctx.services.db.pool, tenantOf(ctx));
      return { ...head, checkpoint: await latestCheckpoint(ctx.services.db.pool, tenantOf(ctx)) };
    },
  }),
  ledgerCheckpoints: t.field({
    type: CheckpointPageRef,
    ...listSize('first', DEFAULT_PAGE, MAX_PAGE),
    description:
      'Every signed checkpoint of the tenant, oldest first: compare them with an export to detect a cut-off tail or rewritten history (docs/LEDGER.md §5, §7).',
    errors: { types: [InputLimitError] },
    args: {
      afterTreeSize: t.arg({ type: 'BigInt', description: 'Checkpoints with a larger treeSize; omit for all (the empty tree is treeSize 0).' }),
      first: t.arg.int({ defaultValue: DEFAULT_PAGE }),
    },
    resolve: async (_root, args, ctx) => {
      const first = pageSize(args.first);
      const after = args.afterTreeSize == null ? -1 : asSeq('afterTreeSize', args.afterTreeSize, 0);
      const rows = await listCheckpoints(ctx.services.db.pool, tenantOf(ctx), after, first + 1);
      return { checkpoints: rows.slice(0, first), hasNextPage: rows.length > first };
    },
  }),
  ledgerPublicKey: t.field({
    type: PublicKeyRef,
    description: 'The key that signs checkpoints. Trust it only as far as you trust this connection (docs/LEDGER.md §5.2).',
    resolve: (_root, _args, ctx) => ({ keyId: ctx.services.checkpoints.signer.keyId, publicKey: ctx.services.checkpoints.signer.publicKeyHex }),
  }),
  hashedRows: t.field({
    type: HashedRowListRef,
    description:
      'The stored values events hash (outcomes, critiques, rewards, reflections, checkpoint states, retrieval results), for an offline verifier: `episodic export` carries them (docs/LEDGER.md §6.2).',
    errors: { types: [InputLimitError] },
    args: { refs: t.arg({ type: [HashedRowRefInput], required: true }) },
    resolve: async (_root, args, ctx) => ({ rows: await readHashedRows(ctx.services.db.pool, tenantOf(ctx), rowRefs(args.refs)) }),
  }),
  verifyLedger: t.field({
    type: VerifyReportRef,
    description: 'Re-hashes the stored range, every hashed row its events cover, and every signed checkpoint within it (docs/LEDGER.md §7.5).',
    errors: { types: [InputLimitError] },
    args: { fromSeq: t.arg({ type: 'BigInt' }), toSeq: t.arg({ type: 'BigInt' }) },
    resolve: async (_root, args, ctx) => {
      const fromSeq = Math.max(1, asSeq('fromSeq', args.fromSeq, 1));
      const toSeq = args.toSeq == null ? null : asSeq('toSeq', args.toSeq, 0);
      return verifyStoredRange(ctx.services.db.pool, tenantOf(ctx), { fromSeq, toSeq }, ctx.services.checkpoints.signer.publicKeyHex);
    },
  }),
}));
