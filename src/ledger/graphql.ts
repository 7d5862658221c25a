// The LedgerEvent type, shared by the ledger queries and subscriptions.
import { builder } from '../builder.ts';
import type { StoredLedgerEvent } from './hash.ts';

export const LedgerEventRef = builder.objectRef<StoredLedgerEvent>('LedgerEvent').implement({
  description: 'One entry of the hash chain of a tenant. hash = BLAKE3(tag || prevHash || RFC 8785 JSON); see docs/LEDGER.md.',
  fields: (t) => ({
    seq: t.field({ type: 'BigInt', resolve: (e) => e.seq }),
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
