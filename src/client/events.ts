// Ledger events as the API sends them (seq a decimal string) to the shape the chain hashes.
import type { LedgerEvent } from './types.ts';

export interface RawLedgerEvent {
  seq: string | number;
  type: string;
  episodeId?: string | null;
  workItemId?: string | null;
  payload: unknown;
  createdAt: string;
  prevHash: string;
  hash: string;
  tenantId: string;
}

export function toLedgerEvent(raw: RawLedgerEvent): LedgerEvent {
  return {
    tenantId: raw.tenantId,
    seq: Number(raw.seq),
    type: raw.type,
    episodeId: raw.episodeId ?? null,
    workItemId: raw.workItemId ?? null,
    payload: raw.payload,
    createdAt: raw.createdAt,
    prevHash: raw.prevHash,
    hash: raw.hash,
  };
}
