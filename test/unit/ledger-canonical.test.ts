// The fast RFC 8785 paths of src/ledger/format/hash.ts and step-hash.ts against the `canonicalize`
// package they replace on the hot path: the same text (or the same error) for any value, the
// same chain hash as the generic entry object, the same step hash as the hashed members.
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHAIN_DOMAIN_TAG, canonicalJson, chainHash, contentHash, hasherReady, LEDGER_SCHEMA_VERSION } from '../../src/ledger/format/hash.ts';
import { STEP_HASH_FIELDS, STEP_OPTIONAL_FIELDS, stepHashedMembers, stepRowHash } from '../../src/ledger/format/step-hash.ts';
import { binaryString } from '../support/code-points.ts';

function outcome(f: () => string | undefined): { text?: string; error?: string } {
  try {
    return { text: f() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const utf8 = new TextEncoder();
beforeAll(() => hasherReady);

const viaPackage = (value: unknown) => outcome(() => canonicalize(value));
const viaFast = (value: unknown) => outcome(() => canonicalJson(value));

// Keys and strings drawn with surrogates (lone and paired), escapes, digit-like keys and __proto__.
const key = fc.oneof(fc.string(), binaryString(), fc.constantFrom('__proto__', '1', '10', '01', 'é', '\u{1F600}', '\uD800', '\uDC00x'));
const text = fc.oneof(fc.string(), binaryString(), fc.constantFrom('\uD800', 'a\uDBFF', '\uDC00', '"\\\n\u2028'));
const number = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(-0, 1e21, 1e-7, 2 ** 53 + 1, Number.MAX_VALUE, Number.MIN_VALUE));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), number, text, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(key, tie('value'), { maxKeys: 5 }),
})).value;

describe('canonicalJson', () => {
  it('gives the package text or error for any JSON value, NaN and Infinity included', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(viaFast(value)).toEqual(viaPackage(value));
        expect(viaFast(JSON.parse(JSON.stringify(value) ?? 'null'))).toEqual(viaPackage(JSON.parse(JSON.stringify(value) ?? 'null')));
      }),
      { numRuns: 400 },
    );
  });

  it("checks a member's key before its value, as the package does", () => {
    for (const value of [{ '\uD800': Number.POSITIVE_INFINITY }, { a: 1, '\uDC00': Number.NaN }, { '\uD800': [Number.POSITIVE_INFINITY] }]) {
      expect(viaFast(value)).toEqual({ error: 'Lone surrogate is not allowed' });
      expect(viaFast(value)).toEqual(viaPackage(value));
    }
    for (const value of [{ '\uD800': undefined }, { '\uD800': Symbol('s'), a: 1 }]) expect(viaFast(value)).toEqual(viaPackage(value));
  });

  it('gives the package text or error for values JSON.parse never returns', () => {
    const deep: unknown[] = [];
    let at = deep;
    for (let i = 0; i < 200; i++) at.push((at = []));
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = { cycle };
    const values: unknown[] = [
      { a: undefined, b: 1 },
      [undefined, Symbol('s'), () => 1],
      { f: () => 1 },
      { d: new Date(0), n: new String('ab') },
      // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
      [1, , 2],
      { toJSON: () => ({ z: 1, a: 2 }) },
      { toJSON: 'not a function', a: [1] },
      deep,
      cycle,
      { big: 1n },
    ];
    for (const value of values) expect(viaFast(value)).toEqual(viaPackage(value));
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
    expect(() => canonicalJson(Symbol('top'))).toThrow(TypeError);
  });
});

describe('the entry template of chainHash', () => {
  it('hashes exactly the generic entry object', () => {
    const uuid = fc.uuid().map((u) => u.toLowerCase());
    const entry = fc.record({
      tenantId: fc.oneof(uuid, text),
      seq: fc.oneof(fc.integer({ min: 1 }), fc.constant(2 ** 53 + 2)),
      type: fc.oneof(fc.constantFrom('steps.logged', 'episode.started'), text),
      episodeId: fc.oneof(fc.constant(null), uuid, text),
      workItemId: fc.oneof(fc.constant(null), uuid),
      payload: json,
      createdAt: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        text,
      ),
    });
    fc.assert(
      fc.property(entry, fc.uint8Array({ minLength: 32, maxLength: 32 }), (e, prev) => {
        const generic = { v: LEDGER_SCHEMA_VERSION, ...e };
        const expected = outcome(() => {
          const entryBytes = utf8.encode(canonicalize(generic));
          const input = new Uint8Array(CHAIN_DOMAIN_TAG.length + 32 + entryBytes.length);
          input.set(CHAIN_DOMAIN_TAG);
          input.set(prev, CHAIN_DOMAIN_TAG.length);
          input.set(entryBytes, CHAIN_DOMAIN_TAG.length + 32);
          return bytesToHex(blake3(input));
        });
        expect(outcome(() => chainHash(bytesToHex(prev), e))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe('stepRowHash', () => {
  it('is contentHash of the hashed members for any row', () => {
    const fields = [...STEP_HASH_FIELDS, ...STEP_OPTIONAL_FIELDS, 'stepNumber', 'extra'];
    const row = fc.dictionary(fc.constantFrom(...fields), fc.oneof(json, fc.constant(undefined)), { maxKeys: fields.length });
    fc.assert(
      fc.property(row, (r) => {
        expect(outcome(() => stepRowHash(r))).toEqual(outcome(() => contentHash(stepHashedMembers(r))));
      }),
      { numRuns: 300 },
    );
  });
});
