// The LedgerEvent and SignedTreeHead types, the ledger's error types, and helpers shared by the
// ledger queries, proofs and subscriptions (graphql-*.ts).

import { InputLimitError } from '../core/errors.ts';
import type { StoredLedgerEvent } from '../ledger/format/hash.ts';
import type { SignedTreeHead } from '../ledger/format/signed-head.ts';
import { NotCheckpointedError } from '../ledger/store/errors.ts';
import { ErrorInterface } from './base.ts';
import { builder } from './builder.ts';
import type { Context } from './context.ts';

export const LedgerEventRef = builder.objectRef<StoredLedgerEvent>('LedgerEvent').implement({
  description: 'One entry of the hash chain of a tenant. hash = BLAKE3(tag || prevHash || RFC 8785 JSON); see docs/LEDGER.md.',
  fields: (t) => ({
    seq: t.field({
      type: 'BigInt',
      description: 'A decimal string here; a JSON number when hashed and in exports (docs/LEDGER.md §2.2).',
      resolve: (e) => e.seq,
    }),
    type: t.exposeString('type'),
    episodeId: t.exposeID('episodeId', { nullable: true }),
    workItemId: t.exposeID('workItemId', { nullable: true }),
    payload: t.field({ type: 'JSON', resolve: (e) => e.payload }),
    createdAt: t.exposeString('createdAt', { description: 'Exactly as hashed: ISO 8601 UTC with milliseconds.' }),
    prevHash: t.exposeString('prevHash'),
    hash: t.exposeString('hash'),
    tenantId: t.exposeID('tenantId'),
  }),
});

export const LedgerFilterInput = builder.inputType('LedgerEventFilter', {
  fields: (t) => ({
    episodeId: t.id(),
    workItemId: t.id(),
    types: t.stringList({ description: 'Event types, e.g. episode.started, steps.logged.' }),
  }),
});

export const SignedTreeHeadRef = builder.objectRef<SignedTreeHead>('SignedTreeHead').implement({
  description: 'A checkpoint: the Merkle root over events 1..treeSize, signed with Ed25519 (docs/LEDGER.md §5).',
  fields: (t) => ({
    treeSize: t.field({
      type: 'BigInt',
      description: 'A decimal string here; a JSON number in the signed message and in exports (§2.2).',
      resolve: (h) => h.treeSize,
    }),
    rootHash: t.exposeString('rootHash'),
    headHash: t.exposeString('headHash'),
    issuedAt: t.exposeString('issuedAt'),
    signature: t.exposeString('signature'),
    keyId: t.exposeString('keyId'),
    tenantId: t.exposeID('tenantId'),
  }),
});

/** The viewer's tenant: every ledger query is confined to it (the root scope guarantees a viewer). */
export function tenantOf(ctx: Context): string {
  if (!ctx.viewer) throw new Error('ledger query without a viewer');
  return ctx.viewer.tenantId;
}

/** A BigInt argument as a seq or size: 0..2^53-1, else a typed InputLimitError naming the field. */
export function asSeq(field: string, value: bigint | null | undefined, fallback: number): number {
  if (value == null) return fallback;
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new InputLimitError([{ field, limit: `0..${Number.MAX_SAFE_INTEGER}`, actual: String(value), message: `${field} is out of range` }]);
  }
  return Number(value);
}

builder.objectType(NotCheckpointedError, {
  name: 'NotCheckpointedError',
  description: 'The event is newer than the latest signed checkpoint. Retry after retryAfterMs (checkpoint schedule: docs/LEDGER.md §5).',
  interfaces: [ErrorInterface],
  isTypeOf: (v) => v instanceof NotCheckpointedError,
  fields: (t) => ({
    seq: t.field({ type: 'BigInt', resolve: (e) => e.seq }),
    checkpointTreeSize: t.field({ type: 'BigInt', nullable: true, resolve: (e) => e.checkpointTreeSize }),
    retryAfterMs: t.exposeInt('retryAfterMs'),
  }),
});
