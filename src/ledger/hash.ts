// Chain hashing for the per-tenant ledger. The exact byte layout is specified in docs/LEDGER.md;
// any change here changes every hash ever written, so it must bump LEDGER_SCHEMA_VERSION.
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import canonicalize from 'canonicalize';
import { createBLAKE3 } from 'hash-wasm';
import { must } from '../core/must.ts';

export const LEDGER_SCHEMA_VERSION = 1;
export const HASH_BYTES = 32;
/** Hex of 32 zero bytes: the prevHash of seq 1. */
export const GENESIS_HASH = '0'.repeat(HASH_BYTES * 2);

export interface LedgerEntry {
  tenantId: string; // uuid, lowercase
  seq: number; // 1-based, gapless per tenant, safe integer
  type: string; // e.g. 'episode.started'
  episodeId: string | null;
  workItemId: string | null;
  payload: unknown; // JSON value (no bigint/undefined/NaN); caller guarantees
  createdAt: string; // ISO 8601 UTC with milliseconds, e.g. 2026-11-21T20:50:00.000Z
}

/** An entry as stored and exported: hashes are lowercase hex of 32 bytes. */
export interface StoredLedgerEvent extends LedgerEntry {
  prevHash: string;
  hash: string;
}

const utf8 = new TextEncoder();

/** utf8 "episodic.ledger.v1" followed by one 0x00 byte (hex 657069736f6469632e6c65646765722e763100). */
export const CHAIN_DOMAIN_TAG: Uint8Array = utf8.encode('episodic.ledger.v1\0');

/** BLAKE3-256 (hash-wasm once its instance is ready, noble before it: the same bytes). */
export function hashBytes(data: Uint8Array): Uint8Array {
  if (!wasmHasher) return blake3(data);
  wasmHasher.init();
  wasmHasher.update(data);
  return wasmHasher.digest('binary');
}

/** Lowercase hex. */
export function toHex(bytes: Uint8Array): string {
  return bytesToHex(bytes);
}

const LOWER_HEX = /^(?:[0-9a-f]{2})*$/;

/** Decodes lowercase hex; throws RangeError on anything else or on a length other than `byteLength`. */
export function fromHex(hex: string, byteLength?: number): Uint8Array {
  if (typeof hex !== 'string' || !LOWER_HEX.test(hex)) {
    throw new RangeError('expected lowercase hex with an even number of digits');
  }
  if (byteLength !== undefined && hex.length !== byteLength * 2) {
    throw new RangeError(`expected ${byteLength} bytes of hex, got ${hex.length / 2}`);
  }
  return hexToBytes(hex);
}

const HASH_HEX = /^[0-9a-f]{64}$/;

/** True for a lowercase hex string of exactly 32 bytes. */
export function isHashHex(value: unknown): value is string {
  return typeof value === 'string' && HASH_HEX.test(value);
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= must(a[i]) ^ must(b[i]);
  return diff === 0;
}

/** RFC 8785 canonical JSON; throws TypeError for values with no JSON form (undefined, functions). */
export function canonicalJson(value: unknown): string {
  const json = canonicalize(value);
  if (json === undefined) throw new TypeError('value has no JSON representation');
  return json;
}

// Fields are listed explicitly so extra properties on the caller's object (prevHash, hash,
// database columns) never leak into the hash.
function canonicalEntryJson(e: LedgerEntry): string {
  return canonicalJson({
    v: LEDGER_SCHEMA_VERSION,
    tenantId: e.tenantId,
    seq: e.seq,
    type: e.type,
    episodeId: e.episodeId,
    workItemId: e.workItemId,
    payload: e.payload,
    createdAt: e.createdAt,
  });
}

/** UTF-8 of the RFC 8785 JSON of {v, tenantId, seq, type, episodeId, workItemId, payload, createdAt}. */
export function canonicalEntryBytes(e: LedgerEntry): Uint8Array {
  return utf8.encode(canonicalEntryJson(e));
}

const PREV_HASH_OFFSET = CHAIN_DOMAIN_TAG.length;
const ENTRY_OFFSET = PREV_HASH_OFFSET + HASH_BYTES;

// One reusable input buffer (tag || prevHash || entry): chainHash runs once per event on the
// write path and up to millions of times in a verification, so it avoids concatenation copies.
// Safe because hashing is synchronous and nothing else holds a reference to it.
let chainInput = new Uint8Array(4096);
chainInput.set(CHAIN_DOMAIN_TAG);

function chainInputWithRoom(entryChars: number): Uint8Array {
  const needed = ENTRY_OFFSET + entryChars * 3; // a UTF-16 code unit encodes to at most 3 bytes
  if (needed > chainInput.length) {
    chainInput = new Uint8Array(needed * 2);
    chainInput.set(CHAIN_DOMAIN_TAG);
  }
  return chainInput;
}

/** Hex of BLAKE3(CHAIN_DOMAIN_TAG || prevHash as 32 raw bytes || canonicalEntryBytes(e)). */
export function chainHash(prevHashHex: string, e: LedgerEntry): string {
  const json = canonicalEntryJson(e);
  const input = chainInputWithRoom(json.length);
  input.set(fromHex(prevHashHex, HASH_BYTES), PREV_HASH_OFFSET);
  const { written } = utf8.encodeInto(json, input.subarray(ENTRY_OFFSET));
  return toHex(hashBytes(input.subarray(0, ENTRY_OFFSET + written)));
}

/** Hex BLAKE3 of the RFC 8785 JSON of a value: step content hashes, parameter hashes. */
export function contentHash(value: unknown): string {
  return canonicalTextHash(canonicalJson(value));
}

// Every BLAKE3 here uses hash-wasm once it is loaded: on a 500-byte step it took 2 us against
// noble's 12 us, and noble's was the largest CPU cost of logSteps and of verifyLedger (chain,
// step contents, Merkle leaves and nodes). noble, the reference, computes the same bytes until
// the WebAssembly instance is ready; a property test checks that both agree. One instance per
// thread, used synchronously: no interleaving. Loaded without a top-level await (the client
// package is also built as CommonJS, which has none); long runs await `hasherReady` first.
let wasmHasher: Awaited<ReturnType<typeof createBLAKE3>> | undefined;
export const hasherReady: Promise<void> = createBLAKE3().then(
  (hasher) => void (wasmHasher = hasher),
  () => undefined,
);

/** Hex BLAKE3 of the UTF-8 of already canonical JSON text. */
export function canonicalTextHash(canonical: string): string {
  if (!wasmHasher) return toHex(blake3(utf8.encode(canonical)));
  wasmHasher.init();
  wasmHasher.update(canonical);
  return wasmHasher.digest('hex');
}
