// Chain hashing for the per-tenant ledger. The exact byte layout is specified in docs/LEDGER.md;
// any change here changes every hash ever written, so it must bump LEDGER_SCHEMA_VERSION.
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import canonicalize from 'canonicalize';
import { createBLAKE3 } from 'hash-wasm';
import { must } from '../../core/must.ts';

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

/** Lowercase hex digits' values by byte, -1 for any other byte: one load instead of comparisons. */
const HEX_VALUE = new Int8Array(256).fill(-1);
for (let c = 0; c < 16; c++) HEX_VALUE['0123456789abcdef'.charCodeAt(c)] = c;

/** Decodes the 64-digit lowercase hex text[at..at+length) into out[to..to+32); false (out then undefined) if it is not one. */
export function hashHexInto(text: Uint8Array, at: number, length: number, out: Uint8Array, to: number): boolean {
  if (length !== 2 * HASH_BYTES) return false;
  let bad = 0;
  for (let i = 0, p = at; i < HASH_BYTES; i++, p += 2) {
    const high = HEX_VALUE[text[p] as number] as number;
    const low = HEX_VALUE[text[p + 1] as number] as number;
    bad |= high | low; // -1 marks a byte that is no lowercase hex digit
    out[to + i] = (high << 4) | low;
  }
  return bad >= 0;
}

/** text[at..at+length) is the 64-digit lowercase hex of bytes[from..from+32). */
export function hexMatches(text: Uint8Array, at: number, length: number, bytes: Uint8Array, from: number): boolean {
  if (length !== 2 * HASH_BYTES) return false;
  for (let i = 0, p = at; i < HASH_BYTES; i++, p += 2) {
    const high = HEX_VALUE[text[p] as number] as number;
    const low = HEX_VALUE[text[p + 1] as number] as number;
    if ((high | low) < 0 || ((high << 4) | low) !== bytes[from + i]) return false;
  }
  return true;
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
  const json = plainCanonical(value, 0) ?? canonicalize(value);
  if (json === undefined) throw new TypeError('value has no JSON representation');
  return json;
}

// RFC 8785 for plain JSON values (what JSON.parse returns), without the `canonicalize` package's
// per-value checks, key/value arrays and Set of visited objects: that package was the largest
// CPU cost of verifyLedger. A value holding anything else (toJSON, undefined, symbols, functions,
// bigint, a depth that may be a cycle) goes to the package whole, so the output is the package's
// for every input; test/unit/ledger-canonical.test.ts checks both agree on arbitrary values, and
// test/unit/canonical-package.test.ts that plain values never reach the package.
export const MAX_FAST_DEPTH = 64;

// String.prototype.isWellFormed (ES2024; Node 20, which package.json's engines require) answers
// at once for the usual one-byte strings. ES2023's lib does not declare it yet.
const isWellFormed = (String.prototype as unknown as { isWellFormed: (this: string) => boolean }).isWellFormed;

// The characters JSON.stringify escapes besides lone surrogates: without them it only adds quotes.
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/** Throws, as RFC 8785 (and the canonicalize package) does, on a string with a lone surrogate. */
function assertWellFormed(s: string): void {
  if (!isWellFormed.call(s)) throw new Error('Lone surrogate is not allowed');
}

/**
 * The canonical form of a string (JSON.stringify's escapes are RFC 8785's). Strings with nothing
 * to escape are only quoted: twice as fast as JSON.stringify on ids and types, the same text.
 */
export function canonicalString(s: string): string {
  assertWellFormed(s);
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** The canonical text of a plain JSON value, or undefined when it holds anything else (see above). */
function plainCanonical(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return canonicalString(value);
    case 'number':
      if (!Number.isFinite(value)) throw new Error(Number.isNaN(value) ? 'NaN is not allowed' : 'Infinity is not allowed');
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      if (depth >= MAX_FAST_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
      return Array.isArray(value) ? plainArray(value, depth) : plainObject(value as Record<string, unknown>, depth);
  }
  return undefined; // undefined, a symbol, a function or a bigint
}

function plainArray(values: unknown[], depth: number): string | undefined {
  let out = '[';
  for (let i = 0; i < values.length; i++) {
    const part = plainCanonical(values[i], depth + 1);
    if (part === undefined) return undefined;
    out += i === 0 ? part : `,${part}`;
  }
  return `${out}]`;
}

function plainObject(object: Record<string, unknown>, depth: number): string | undefined {
  const keys = Object.keys(object).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const value = object[key];
    if (value === undefined || typeof value === 'symbol') return undefined; // members the package's path leaves out
    // The key before its value, as the package checks them: {"\uD800": Infinity} is a lone surrogate.
    const name = canonicalString(key);
    const part = plainCanonical(value, depth + 1);
    if (part === undefined) return undefined;
    out += `${i === 0 ? '' : ','}${name}:${part}`;
  }
  return `${out}}`;
}

// The entry is written out in RFC 8785's member order (createdAt, episodeId, payload, seq,
// tenantId, type, v, workItemId), so that no object is built and sorted per event. Fields are
// listed explicitly so extra properties on the caller's object (prevHash, hash, database columns)
// never leak into the hash. A member that is undefined is left out, as JCS leaves it out.
const before = (name: string, value: unknown): string => (value === undefined ? '' : `"${name}":${canonicalJson(value)},`);
const after = (name: string, value: unknown): string => (value === undefined ? '' : `,"${name}":${canonicalJson(value)}`);

function canonicalEntryJson(e: LedgerEntry): string {
  const members = before('createdAt', e.createdAt) + before('episodeId', e.episodeId) + before('payload', e.payload) + before('seq', e.seq);
  return `{${members}${before('tenantId', e.tenantId)}${before('type', e.type)}"v":${LEDGER_SCHEMA_VERSION}${after('workItemId', e.workItemId)}}`;
}

/** UTF-8 of the RFC 8785 JSON of {v, tenantId, seq, type, episodeId, workItemId, payload, createdAt}. */
export function canonicalEntryBytes(e: LedgerEntry): Uint8Array {
  return utf8.encode(canonicalEntryJson(e));
}

const PREV_HASH_OFFSET = CHAIN_DOMAIN_TAG.length;
const ENTRY_OFFSET = PREV_HASH_OFFSET + HASH_BYTES;

/**
 * A reused buffer of at least `needed` bytes: `buffer` itself, or a new one twice that size (its
 * content not kept). Growing when not needed would only allocate, so no test can see the bound.
 */
function withRoom(buffer: Uint8Array<ArrayBuffer>, needed: number): Uint8Array<ArrayBuffer> {
  return needed > buffer.length ? new Uint8Array(needed * 2) : buffer;
}

// One reusable input buffer (tag || prevHash || entry): chainHash runs once per event on the
// write path and up to millions of times in a verification, so it avoids concatenation copies.
// Safe because hashing is synchronous and nothing else holds a reference to it.
let chainInput = new Uint8Array(4096);

function chainInputWithRoom(entryChars: number): Uint8Array {
  chainInput = withRoom(chainInput, ENTRY_OFFSET + entryChars * 3); // a UTF-16 code unit encodes to at most 3 bytes
  chainInput.set(CHAIN_DOMAIN_TAG); // 19 bytes each time: a grown buffer starts empty
  return chainInput;
}

/** The value of a lowercase hex digit, or a negative number for any other code unit. */
const hexValue = (code: number): number => (code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : -1);

/** The chain input of an event in the shared buffer (valid until the next call). */
function chainInputOf(prevHashHex: string, e: LedgerEntry): Uint8Array {
  const json = canonicalEntryJson(e);
  const input = chainInputWithRoom(json.length);
  if (typeof prevHashHex !== 'string' || prevHashHex.length !== 2 * HASH_BYTES) throw new RangeError('expected 32 bytes of lowercase hex');
  for (let i = 0; i < HASH_BYTES; i++) {
    const high = hexValue(prevHashHex.charCodeAt(2 * i));
    const low = hexValue(prevHashHex.charCodeAt(2 * i + 1));
    if (high < 0 || low < 0) throw new RangeError('expected 32 bytes of lowercase hex');
    input[PREV_HASH_OFFSET + i] = (high << 4) | low;
  }
  const { written } = utf8.encodeInto(json, input.subarray(ENTRY_OFFSET));
  return input.subarray(0, ENTRY_OFFSET + written);
}

/** Hex of BLAKE3(CHAIN_DOMAIN_TAG || prevHash as 32 raw bytes || canonicalEntryBytes(e)). */
export function chainHash(prevHashHex: string, e: LedgerEntry): string {
  return hashHex(chainInputOf(prevHashHex, e));
}

/** chainHash(prevHashHex, e) === expectedHex, without writing the hash out as hex. */
export function chainHashIs(prevHashHex: string, e: LedgerEntry, expectedHex: string): boolean {
  return hashIs(chainInputOf(prevHashHex, e), expectedHex);
}

/** BLAKE3(data) compared with lowercase hex byte by byte: hash-wasm's hex output cost more than the hash. */
function hashIs(data: Uint8Array, expectedHex: string): boolean {
  if (expectedHex.length !== 2 * HASH_BYTES) return false;
  const digest = hashBytes(data);
  for (let i = 0; i < HASH_BYTES; i++) {
    const byte = (hexValue(expectedHex.charCodeAt(2 * i)) << 4) | hexValue(expectedHex.charCodeAt(2 * i + 1));
    if (digest[i] !== byte) return false;
  }
  return true;
}

/** Lowercase hex BLAKE3-256 of the bytes. */
function hashHex(data: Uint8Array): string {
  if (!wasmHasher) return toHex(blake3(data));
  wasmHasher.init();
  wasmHasher.update(data);
  return wasmHasher.digest(); // hex, hash-wasm's default
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

// The UTF-8 of a text to hash, encoded into one reused buffer rather than a new one per text.
let textInput = new Uint8Array(1 << 16);

/** The UTF-8 of the text in the shared buffer (valid until the next call). */
function textBytes(text: string): Uint8Array {
  textInput = withRoom(textInput, text.length * 3);
  const { written } = utf8.encodeInto(text, textInput);
  return textInput.subarray(0, written);
}

/** Hex BLAKE3 of the UTF-8 of already canonical JSON text. */
export function canonicalTextHash(canonical: string): string {
  return hashHex(textBytes(canonical));
}
