// canonicalJson (src/ledger/format/hash.ts) writes plain JSON values itself and hands anything else to
// the `canonicalize` package whole. Which path is taken is invisible in the text (both agree, see
// ledger-canonical.test.ts), but it is the point of the fast path: the package was the largest CPU
// cost of verifyLedger. So hash.ts is loaded here afresh with the package wrapped (it still does
// the work) to see which values reach it.
import { afterEach, describe, expect, it, vi } from 'vitest';

const calls: unknown[] = [];

async function loadHash() {
  calls.length = 0;
  const actual = (await vi.importActual<{ default: (value: unknown) => string | undefined }>('canonicalize')).default;
  vi.doMock('canonicalize', () => ({
    default: (value: unknown) => {
      calls.push(value);
      return actual(value);
    },
  }));
  vi.resetModules();
  return import('../../src/ledger/format/hash.ts');
}

afterEach(() => {
  vi.doUnmock('canonicalize');
  vi.resetModules();
});

/** An array nested `levels` deep: levels 1 is [], 2 is [[]]. */
function nested(levels: number): unknown[] {
  let value: unknown[] = [];
  for (let i = 1; i < levels; i++) value = [value];
  return value;
}

describe('canonicalJson and the canonicalize package', () => {
  it('never calls the package for plain JSON values, entries and content hashes included', async () => {
    const { canonicalJson, canonicalEntryBytes, contentHash, MAX_FAST_DEPTH } = await loadHash();
    const plain = [
      null,
      true,
      false,
      0,
      -1.5e300,
      '',
      'a"b\n',
      [],
      {},
      [1, 'x', null, [true, { b: 2, a: 1 }]],
      { z: { y: [{}, []] }, a: 'é' },
      nested(MAX_FAST_DEPTH),
      { deep: nested(MAX_FAST_DEPTH - 1) },
    ];
    for (const value of plain) canonicalJson(value);
    contentHash({ tool: 'shell', parameters: { cmd: 'ls' } });
    canonicalEntryBytes({ tenantId: 't', seq: 1, type: 'x', episodeId: null, workItemId: null, payload: { a: [1] }, createdAt: 'now' });
    expect(calls).toEqual([]);
  });

  it('hands the package the whole value when any part of it is not plain, as deep as it is', async () => {
    const { canonicalJson, MAX_FAST_DEPTH } = await loadHash();
    const date = new Date(0);
    const notPlain: unknown[] = [
      { a: 1, b: [date] },
      [1, { a: undefined }],
      [[Symbol('s')]],
      { toJSON: () => 1 },
      nested(MAX_FAST_DEPTH + 1),
      { deep: nested(MAX_FAST_DEPTH) },
      undefined,
    ];
    for (const value of notPlain) {
      calls.length = 0;
      try {
        canonicalJson(value);
      } catch {
        // undefined has no JSON form: what matters is who was asked.
      }
      expect(calls).toEqual([value]);
    }
  });
});
