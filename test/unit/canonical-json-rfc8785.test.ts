// The exact RFC 8785 text of src/ledger/format/hash.ts (canonicalJson, canonicalEntryBytes) and of
// src/ledger/format/json-text.ts (canonicalFromJsonBytes) on the RFC's own examples and on the cases where
// a hand-written serialiser goes wrong: number forms, escapes, surrogates, member order by UTF-16
// code units, empty and nested containers, values JSON.parse never returns. Expected texts are the
// RFC's (section 3.2.2.3, 3.2.3, appendix B) or follow from it, never the code's output.
import { describe, expect, it } from 'vitest';
import { canonicalEntryBytes, canonicalJson, type LedgerEntry } from '../../src/ledger/format/hash.ts';
import { canonicalFromJsonBytes } from '../../src/ledger/format/json-text.ts';

const canonicalFromJsonText = (text: string): string => new TextDecoder().decode(canonicalFromJsonBytes(new TextEncoder().encode(text)));

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

/** Both paths to canonical text: from the parsed value and straight from the JSON text. */
function bothWays(text: string): [string, string] {
  return [canonicalJson(JSON.parse(text)), canonicalFromJsonText(text)];
}

describe('RFC 8785 examples', () => {
  it('section 3.2.4: numbers, escapes and literals of the sample object', () => {
    const input = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    const expected = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
    expect(bothWays(input)).toEqual([expected, expected]);
  });

  it('section 3.2.3: members sorted by UTF-16 code units, not by code points', () => {
    const input = String.raw`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`;
    // U+1F600 is written as the surrogates D83D DE00, which sort before U+FB33.
    const expected =
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis",' +
      '"€":"Euro Sign","😀":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}';
    expect(bothWays(input)).toEqual([expected, expected]);
  });

  it('appendix B: every number of the table, from its IEEE 754 bits', () => {
    const table: Array<[string, string]> = [
      ['0000000000000000', '0'],
      ['8000000000000000', '0'],
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ];
    for (const [bits, expected] of table) {
      const value = new DataView(Uint8Array.from(Buffer.from(bits, 'hex')).buffer).getFloat64(0);
      expect(canonicalJson(value), bits).toBe(expected);
      expect(canonicalJson([value]), bits).toBe(`[${expected}]`);
      expect(canonicalJson({ n: value }), bits).toBe(`{"n":${expected}}`);
    }
  });

  it('refuses NaN and both infinities with the error the canonicalize package gives, at any depth', () => {
    for (const [value, message] of [
      [Number.NaN, 'NaN is not allowed'],
      [Number.POSITIVE_INFINITY, 'Infinity is not allowed'],
      [Number.NEGATIVE_INFINITY, 'Infinity is not allowed'],
    ] as const) {
      for (const wrapped of [value, [1, value], { a: { b: [value] } }]) {
        const error = thrown(() => canonicalJson(wrapped));
        expect(error.message).toBe(message);
        expect(error).not.toBeInstanceOf(TypeError);
      }
    }
  });
});

describe('strings', () => {
  it('escapes exactly " \\ and U+0000..U+001F, the five short forms where they exist', () => {
    const controls = Array.from({ length: 32 }, (_, c) => String.fromCharCode(c)).join('');
    expect(canonicalJson(controls)).toBe(
      '"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f' +
        '\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f"',
    );
    expect(canonicalJson('"')).toBe('"\\""');
    expect(canonicalJson('\\')).toBe('"\\\\"');
    expect(canonicalJson('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(canonicalJson('end\n')).toBe('"end\\n"');
    expect(canonicalJson('\u001f')).toBe('"\\u001f"');
  });

  it('writes everything else as it is: space, /, DEL, U+2028, non-ASCII, paired surrogates', () => {
    for (const s of ['', ' ', '/', '\u007f', '\u0080', '\u2028\u2029', 'é€', '😀', '\uFFFF', 'plain text 123']) {
      expect(canonicalJson(s), JSON.stringify(s)).toBe(`"${s}"`);
      expect(canonicalJson({ [s]: s }), JSON.stringify(s)).toBe(`{"${s}":"${s}"}`);
    }
  });

  it('refuses a lone surrogate, high or low, alone or beside others, in values and keys', () => {
    for (const s of ['\uD800', '\uDBFF', '\uDC00', '\uDFFF', 'a\uD83D', '\uDE00a', '\uDE00\uD83D', 'ok\uD83D\uDE00\uD83D']) {
      for (const value of [s, [s], { k: s }, { [s]: 1 }]) {
        expect(thrown(() => canonicalJson(value)).message, JSON.stringify(value)).toBe('Lone surrogate is not allowed');
      }
      expect(thrown(() => canonicalFromJsonText(JSON.stringify(s))).message).toBe('Lone surrogate is not allowed');
    }
    expect(canonicalJson('\uD83D\uDE00')).toBe('"😀"');
  });
});

describe('containers', () => {
  it('writes empty and nested ones without spaces, arrays in their order, members sorted at every level', () => {
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson([{}, [], [[]], { a: {} }])).toBe('[{},[],[[]],{"a":{}}]');
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
    expect(canonicalJson({ b: { d: [{ z: 1, y: 2 }], c: null }, a: [true, false] })).toBe('{"a":[true,false],"b":{"c":null,"d":[{"y":2,"z":1}]}}');
    // Keys that look like numbers sort as text ("10" before "9"), not in JavaScript's integer-key order.
    expect(canonicalJson({ 9: 'a', 10: 'b', '-1': 'c', x: 'd' })).toBe('{"-1":"c","10":"b","9":"a","x":"d"}');
    expect(canonicalJson({ __proto__: null, b: 1, a: 2 })).toBe('{"a":2,"b":1}');
    expect(canonicalJson(JSON.parse('{"__proto__":1}'))).toBe('{"__proto__":1}');
  });

  it('writes the single values', () => {
    expect([null, true, false, 0, -0, 1.5, -1, 'x'].map((v) => canonicalJson(v))).toEqual(['null', 'true', 'false', '0', '0', '1.5', '-1', '"x"']);
  });

  it('keeps the whole text of a value nested deeper than the fast path goes', () => {
    let deep: unknown = { b: 1, a: 'x' };
    let expected = '{"a":"x","b":1}';
    for (let i = 0; i < 100; i++) {
      deep = i % 2 ? [deep, i] : { z: i, y: deep };
      expected = i % 2 ? `[${expected},${i}]` : `{"y":${expected},"z":${i}}`;
    }
    expect(canonicalJson(deep)).toBe(expected);
  });
});

describe('values JSON.parse never returns', () => {
  it('uses toJSON, drops undefined and symbol members, writes null for them in arrays', () => {
    expect(canonicalJson({ when: new Date(0), a: 1 })).toBe('{"a":1,"when":"1970-01-01T00:00:00.000Z"}');
    expect(canonicalJson([new Date(0)])).toBe('["1970-01-01T00:00:00.000Z"]');
    expect(canonicalJson({ toJSON: () => ({ z: 1, a: [2] }) })).toBe('{"a":[2],"z":1}');
    expect(canonicalJson({ toJSON: 'a string, not a method', a: 1 })).toBe('{"a":1,"toJSON":"a string, not a method"}');
    expect(canonicalJson({ a: undefined, b: 1, c: Symbol('s') })).toBe('{"b":1}');
    expect(canonicalJson({ a: undefined })).toBe('{}');
    expect(canonicalJson([undefined, 1, Symbol('s')])).toBe('[null,1,null]');
    expect(canonicalJson({ deep: [{ a: undefined, b: [undefined] }] })).toBe('{"deep":[{"b":[null]}]}');
  });

  it('refuses a bigint, a cycle, and a top-level value with no JSON form', () => {
    expect(thrown(() => canonicalJson({ n: 1n }))).toBeInstanceOf(TypeError);
    expect(thrown(() => canonicalJson([1n]))).toBeInstanceOf(TypeError);
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = [cycle];
    expect(thrown(() => canonicalJson(cycle)).message).toBe('Circular reference detected');
    for (const bad of [undefined, Symbol('s'), () => 1]) {
      const error = thrown(() => canonicalJson(bad));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toBe('value has no JSON representation');
    }
  });
});

describe('canonicalEntryBytes', () => {
  const entry: LedgerEntry = {
    tenantId: '6f1c1d2e-8a3b-4c5d-9e0f-112233445566',
    seq: 7,
    type: 'steps.logged',
    episodeId: null,
    workItemId: '0b8e2f4a-1c3d-4e5f-8a9b-c0d1e2f3a4b5',
    payload: { b: [], a: {} },
    createdAt: '2026-11-21T20:50:00.000Z',
  };
  const text = (e: LedgerEntry) => new TextDecoder().decode(canonicalEntryBytes(e));

  it('writes the eight members in RFC 8785 order, v included, nothing else', () => {
    expect(text({ ...entry, hash: 'x', prevHash: 'y', id: 3 } as LedgerEntry)).toBe(
      '{"createdAt":"2026-11-21T20:50:00.000Z","episodeId":null,"payload":{"a":{},"b":[]},"seq":7,' +
        '"tenantId":"6f1c1d2e-8a3b-4c5d-9e0f-112233445566","type":"steps.logged","v":1,"workItemId":"0b8e2f4a-1c3d-4e5f-8a9b-c0d1e2f3a4b5"}',
    );
  });

  it('escapes every member as JCS does, whatever its form', () => {
    const odd = {
      tenantId: 'T"\\',
      seq: '12' as unknown as number,
      type: 'a\nb',
      episodeId: 'E\u0001',
      workItemId: '"w"',
      payload: 'é',
      createdAt: 'x\ty',
    };
    expect(text(odd)).toBe(
      '{"createdAt":"x\\ty","episodeId":"E\\u0001","payload":"é","seq":"12","tenantId":"T\\"\\\\","type":"a\\nb","v":1,"workItemId":"\\"w\\""}',
    );
    expect(text({ ...entry, seq: 2 ** 53 + 2, payload: [1e21, -0, 0.1] })).toContain('"payload":[1e+21,0,0.1],"seq":9007199254740994,');
    expect(text({ ...entry, episodeId: entry.workItemId, workItemId: null })).toContain('"episodeId":"0b8e2f4a-1c3d-4e5f-8a9b-c0d1e2f3a4b5","payload"');
    expect(text({ ...entry, workItemId: null })).toMatch(/"v":1,"workItemId":null}$/);
  });

  it('leaves out a member that is undefined, first, middle or last', () => {
    const without = (field: keyof LedgerEntry) => text({ ...entry, [field]: undefined });
    expect(without('createdAt')).toMatch(/^\{"episodeId":null,"payload"/);
    expect(without('payload')).toContain('"episodeId":null,"seq":7,');
    expect(without('tenantId')).toContain('"seq":7,"type"');
    expect(without('workItemId')).toMatch(/"type":"steps.logged","v":1}$/);
  });

  it('refuses a member with no JSON form or an unrepresentable number', () => {
    expect(() => text({ ...entry, seq: Number.NaN })).toThrow('NaN is not allowed');
    expect(() => text({ ...entry, tenantId: '\uD800' })).toThrow('Lone surrogate is not allowed');
    expect(() => text({ ...entry, payload: { n: Number.POSITIVE_INFINITY } })).toThrow('Infinity is not allowed');
    expect(() => text({ ...entry, payload: () => 1 })).toThrow(TypeError);
  });
});
