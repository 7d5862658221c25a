// Proof queries: inclusion and consistency proofs and episode proof bundles, always against a
// signed checkpoint that already exists (reads never sign one: docs/LEDGER.md §5).
import { InputLimitError, NotFoundError } from '../core/errors.ts';
import { canonicalId } from '../core/ids.ts';
import { toHex } from '../ledger/format/hash.ts';
import { eventLeafHash } from '../ledger/format/merkle.ts';
import type { ProofBundle } from '../ledger/proofs/bundle.ts';
import {
  type ConsistencyProof,
  consistencyProofOf,
  episodeProofBundleOf,
  type InclusionProof,
  inclusionProofOf,
  type ProofDeps,
} from '../ledger/proofs/serve.ts';
import { NotCheckpointedError } from '../ledger/store/errors.ts';
import { builder } from './builder.ts';
import type { Context } from './context.ts';
import { asSeq, SignedTreeHeadRef, tenantOf } from './ledger.ts';

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

const ConsistencyProofRef = builder.objectRef<ConsistencyProof>('ConsistencyProof').implement({
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

const proofDeps = (ctx: Context): ProofDeps => ({ pool: ctx.services.db.pool, checkpoints: ctx.services.checkpoints });

builder.queryFields((t) => ({
  inclusionProof: t.field({
    type: InclusionProofRef,
    errors: { types: [NotFoundError, InputLimitError, NotCheckpointedError] },
    args: { seq: t.arg({ type: 'BigInt', required: true }) },
    resolve: (_root, args, ctx) => inclusionProofOf(proofDeps(ctx), tenantOf(ctx), asSeq('seq', args.seq, 0)),
  }),
  consistencyProof: t.field({
    type: ConsistencyProofRef,
    errors: { types: [InputLimitError] },
    args: { fromSize: t.arg({ type: 'BigInt', required: true }), toSize: t.arg({ type: 'BigInt' }) },
    resolve: (_root, args, ctx) =>
      consistencyProofOf(proofDeps(ctx), tenantOf(ctx), asSeq('fromSize', args.fromSize, 0), args.toSize == null ? null : asSeq('toSize', args.toSize, 0)),
  }),
  episodeProofBundle: t.field({
    type: ProofBundleRef,
    description: "The episode's events (with its lease.charged) and step rows, with inclusion proofs against the latest signed checkpoint (docs/LEDGER.md §6).",
    errors: { types: [NotFoundError, NotCheckpointedError] },
    args: { episodeId: t.arg.id({ required: true }) },
    resolve: (_root, { episodeId }, ctx) => episodeProofBundleOf(proofDeps(ctx), tenantOf(ctx), canonicalId(episodeId)),
  }),
}));
