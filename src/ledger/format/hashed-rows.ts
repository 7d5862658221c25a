// The stored values the ledger's payload hashes name (docs/LEDGER.md §3.3), carried in an export
// so that a verifier with no database recomputes them: each row is {kind, id, value} and must hash
// (contentHash) to the latest claim its events make. inputHash and queryHash are hashes of inputs
// the server does not keep, so they have no row. Pure: the CLI and the verifier share it.
import { isRowForgotten } from './forgotten.ts';
import { contentHash, type StoredLedgerEvent } from './hash.ts';
import { RowClaims } from './row-claims.ts';

export const HASHED_ROW_KINDS = [
  'episode.record',
  'episode.outcome',
  'episode.critique',
  'episode.reward',
  'episode.reflection',
  'checkpoint.state',
  'retrieval.results',
  'episode.reward_score',
  'episode.context_pack',
  'retrieval.results_hash',
] as const;
export type HashedRowKind = (typeof HASHED_ROW_KINDS)[number];

/**
 * Served copies (§3.3): columns the API serves or ranks by that repeat what an event states
 * (reward_score its `experience.reward`, context_pack_hash and manifest_hash its `contextPack`,
 * results_hash its `resultsHash`); the claim is the hash of the event's value. New in v4 files,
 * so a v3 or older file carries none and is not asked for them.
 */
export const SERVED_COPY_KINDS: ReadonlySet<string> = new Set(['episode.reward_score', 'episode.context_pack', 'retrieval.results_hash']);

export interface HashedRow {
  kind: HashedRowKind;
  id: string;
  value: unknown;
}

export interface RowClaim {
  kind: HashedRowKind;
  id: string;
  seq: number;
  hash: string;
  /** A copy is forgotten with the value it copies (reward_score with the reward, §3.4). */
  copyOf?: { kind: HashedRowKind; hash: string };
}

const EPISODE_CLAIMS = [
  ['recordHash', 'episode.record'],
  ['outcomeHash', 'episode.outcome'],
  ['critiqueHash', 'episode.critique'],
  ['rewardHash', 'episode.reward'],
  ['reflectionHash', 'episode.reflection'],
] as const;

/**
 * The latest claim of each row the events make (the rules of §7.5: re-scored experiences drop
 * theirs), without those an episode.forgotten event forgot (§3.4): `forgotten` lists them.
 */
export function rowClaimsOf(events: Iterable<StoredLedgerEvent>, copies = true): RowClaim[] {
  return claimList(collectClaims(events), copies);
}

export function collectClaims(events: Iterable<StoredLedgerEvent>): RowClaims {
  const claims = new RowClaims();
  for (const e of events) claims.add(e);
  return claims;
}

/** The claims collected so far whose values are kept (not forgotten), lowest seq first; `copies` false: without served copies (files before v4). */
export function claimList(claims: RowClaims, copies = true): RowClaim[] {
  return allClaims(claims).filter((c) => !isClaimForgotten(claims, c) && (copies || !SERVED_COPY_KINDS.has(c.kind)));
}

/** The claims an episode.forgotten event names with their hash: their values are gone, a file carries no row for them (copies not counted). */
export function forgottenClaimList(claims: RowClaims): RowClaim[] {
  return allClaims(claims).filter((c) => !SERVED_COPY_KINDS.has(c.kind) && isClaimForgotten(claims, c));
}

function isClaimForgotten(claims: RowClaims, c: RowClaim): boolean {
  return isRowForgotten(claims.forgottenRows, c.copyOf ? { kind: c.copyOf.kind, id: c.id, hash: c.copyOf.hash } : c);
}

function allClaims(claims: RowClaims): RowClaim[] {
  const out: RowClaim[] = [];
  for (const [id, c] of claims.episodes) {
    for (const [member, kind] of EPISODE_CLAIMS) {
      const claim = c[member];
      if (claim) out.push({ kind, id, seq: claim.seq, hash: claim.hash });
    }
    if (c.contextPack) out.push({ kind: 'episode.context_pack', id, seq: c.contextPack.seq, hash: c.contextPack.hash });
    if (c.rewardScore && c.rewardHash)
      out.push({
        kind: 'episode.reward_score',
        id,
        seq: c.rewardScore.seq,
        hash: c.rewardScore.hash,
        copyOf: { kind: 'episode.reward', hash: c.rewardHash.hash },
      });
  }
  for (const s of claims.states) out.push({ kind: 'checkpoint.state', id: s.id, seq: s.seq, hash: s.hash });
  for (const r of claims.retrievals) {
    out.push({ kind: 'retrieval.results', id: r.id, seq: r.seq, hash: r.resultsHash });
    out.push({ kind: 'retrieval.results_hash', id: r.id, seq: r.seq, hash: contentHash(r.resultsHash) });
  }
  return out.sort((a, b) => a.seq - b.seq);
}

export const rowKey = (r: { kind: string; id: string }) => `${r.kind}:${r.id}`;

export interface RowCheck {
  checked: number;
  failure?: { seq?: number; problem: 'row-mismatch' | 'malformed'; reason: string };
}

/** Every claim has its row and the row hashes to it; every row answers a claim. Lowest seq first. */
export function checkHashedRows(claims: RowClaim[], rows: HashedRow[]): RowCheck {
  const byKey = new Map(rows.map((r) => [rowKey(r), r]));
  let checked = 0;
  for (const claim of claims) {
    const row = byKey.get(rowKey(claim));
    const what = `${claim.kind} of ${claim.id}`;
    if (!row) return { checked, failure: { seq: claim.seq, problem: 'row-mismatch', reason: `${what}, hashed by seq ${claim.seq}, is not in the file` } };
    if (row.value === null || contentHash(row.value) !== claim.hash)
      return { checked, failure: { seq: claim.seq, problem: 'row-mismatch', reason: `${what} no longer hashes to the value seq ${claim.seq} recorded` } };
    checked++;
  }
  const claimed = new Set(claims.map(rowKey));
  const extra = rows.find((r) => !claimed.has(rowKey(r)));
  if (extra) return { checked, failure: { problem: 'malformed', reason: `${rowKey(extra)} answers no claim of the events` } };
  return { checked };
}

export function isHashedRow(value: unknown): value is HashedRow {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  const members = Object.keys(r);
  return members.length === 3 && (HASHED_ROW_KINDS as readonly unknown[]).includes(r.kind) && typeof r.id === 'string' && 'value' in r;
}
