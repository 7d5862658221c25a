// Content hashes use hash-wasm's BLAKE3 once its WebAssembly instance is ready and noble's before
// (src/ledger/format/hash.ts: loaded without a top-level await). Each test loads hash.ts afresh with
// hash-wasm replaced, to see both paths: the fallback must give the same bytes, and the fast path
// must really be taken once the instance exists (it is the point of the dependency).
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { afterEach, describe, expect, it, vi } from 'vitest';

const ABC = '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85';
const utf8 = new TextEncoder();
const noble = (text: string) => bytesToHex(blake3(utf8.encode(text)));
const long = `{"text":"${'é€😀x'.repeat(1500)}"}`;

async function loadHash() {
  vi.resetModules();
  return import('../../src/ledger/format/hash.ts');
}

afterEach(() => {
  vi.doUnmock('hash-wasm');
  vi.resetModules();
});

describe('canonicalTextHash', () => {
  it('computes with noble until the WebAssembly instance is ready, giving the same bytes', async () => {
    vi.doMock('hash-wasm', () => ({ createBLAKE3: () => new Promise(() => {}) }));
    const { canonicalTextHash, contentHash } = await loadHash();
    expect(canonicalTextHash('abc')).toBe(ABC);
    expect(canonicalTextHash(long)).toBe(noble(long));
    expect(contentHash({ b: 1, a: 'x' })).toBe(noble('{"a":"x","b":1}'));
  });

  it('computes with hash-wasm once its instance is ready, fresh for every text', async () => {
    const { createBLAKE3 } = await vi.importActual<typeof import('hash-wasm')>('hash-wasm');
    const updates: unknown[] = [];
    let ready!: Promise<unknown>;
    vi.doMock('hash-wasm', () => ({
      createBLAKE3: () => {
        ready = createBLAKE3().then((hasher) => ({
          init: () => hasher.init(),
          update: (data: string | Uint8Array) => {
            updates.push(typeof data === 'string' ? data : new TextDecoder().decode(data));
            return hasher.update(data);
          },
          digest: (type?: 'hex') => hasher.digest(type),
        }));
        return ready;
      },
    }));
    const { canonicalTextHash } = await loadHash();
    await ready;
    await Promise.resolve();
    expect(canonicalTextHash('abc')).toBe(ABC);
    expect(canonicalTextHash(long)).toBe(noble(long));
    expect(canonicalTextHash('abc')).toBe(ABC);
    expect(updates).toEqual(['abc', long, 'abc']);
  });

  it('hashes raw bytes and compares chain hashes with hash-wasm too, fresh for every input', async () => {
    const { createBLAKE3 } = await vi.importActual<typeof import('hash-wasm')>('hash-wasm');
    const updates: number[] = [];
    let ready!: Promise<unknown>;
    vi.doMock('hash-wasm', () => ({
      createBLAKE3: () => {
        ready = createBLAKE3().then((hasher) => ({
          init: () => hasher.init(),
          update: (data: Uint8Array) => {
            updates.push(data.length);
            return hasher.update(data);
          },
          digest: (type: 'binary') => hasher.digest(type),
        }));
        return ready;
      },
    }));
    const { hashBytes, chainHash, chainHashIs, canonicalEntryBytes, CHAIN_DOMAIN_TAG, GENESIS_HASH } = await loadHash();
    await ready;
    await Promise.resolve();
    const abc = utf8.encode('abc');
    expect(bytesToHex(hashBytes(abc))).toBe(ABC);
    expect(bytesToHex(hashBytes(abc))).toBe(ABC);
    expect(updates).toEqual([3, 3]);
    const entry = { tenantId: 't', seq: 1, type: 'x', episodeId: null, workItemId: null, payload: {}, createdAt: 'now' };
    const hash = chainHash(GENESIS_HASH, entry);
    expect(chainHashIs(GENESIS_HASH, entry, hash)).toBe(true);
    expect(chainHashIs(GENESIS_HASH, entry, hash)).toBe(true);
    // Each chain input is hashed whole and alone: tag, prevHash bytes, entry.
    const inputLength = CHAIN_DOMAIN_TAG.length + 32 + canonicalEntryBytes(entry).length;
    expect(updates).toEqual([3, 3, inputLength, inputLength, inputLength]);
  });
});
