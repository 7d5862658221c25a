// Builds realistic hash-chained ledgers for the verifier tests.

import { must } from '../../src/core/must.ts';
import { chainHash, GENESIS_HASH, type LedgerEntry, type StoredLedgerEvent } from '../../src/ledger/format/hash.ts';

export const TENANT = '6f1c1d2e-8a3b-4c5d-9e0f-112233445566';
export const EPISODES = ['0b8e2f4a-1c3d-4e5f-8a9b-c0d1e2f3a4b5', '9a7c3e11-2b4d-4f6a-8c0e-1f2a3b4c5d6e'];
const TYPES = ['episode.started', 'steps.logged', 'episode.blocked', 'episode.resumed', 'episode.completed'];
const START_MS = Date.parse('2026-11-21T20:50:00.000Z');

/** Deterministic PRNG (mulberry32) so a failing randomized run can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function entryAt(seq: number): LedgerEntry {
  const episodeId = must(EPISODES[seq % EPISODES.length]);
  return {
    tenantId: TENANT,
    seq,
    type: must(TYPES[seq % TYPES.length]),
    episodeId,
    workItemId: seq % 3 === 0 ? null : 'c3d4e5f6-a7b8-4c9d-8e0f-a1b2c3d4e5f6',
    payload: { stepHashes: [`${seq}`.padStart(64, 'a')], tokens: seq * 7, note: `event ${seq} — ü`, ok: seq % 2 === 0 },
    createdAt: new Date(START_MS + seq * 250).toISOString(),
  };
}

/** Links entries into a chain starting after `prevHash`. */
export function link(entries: LedgerEntry[], prevHash: string = GENESIS_HASH): StoredLedgerEvent[] {
  return entries.map((entry) => {
    const hash = chainHash(prevHash, entry);
    const event = { ...entry, prevHash, hash };
    prevHash = hash;
    return event;
  });
}

export function buildChain(count: number): StoredLedgerEvent[] {
  return link(Array.from({ length: count }, (_, i) => entryAt(i + 1)));
}
