// canonicalFromJsonBytes (src/ledger/format/json-text.ts) is the UTF-8 of canonicalJson(JSON.parse(text))
// for any JSON text: the compact and indented forms, members in any order (jsonb prints them by
// length), and strings escaped in every legal way, canonical or not. test/ledger/json-text-pg.test.ts
// checks it on PostgreSQL's own output.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/ledger/format/hash.ts';
import { canonicalFromJsonBytes, JsonBytesCanonicaliser } from '../../src/ledger/format/json-text.ts';
import { binaryString } from '../support/code-points.ts';

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();
/** The canonical text, through the bytes. */
const canonicalFromJsonText = (text: string): string => utf8Decoder.decode(canonicalFromJsonBytes(utf8.encode(text)));

function outcome(f: () => string): { text?: string; error?: boolean } {
  try {
    return { text: f() };
  } catch {
    return { error: true };
  }
}

const key = fc.oneof(fc.string(), binaryString(), fc.constantFrom('__proto__', '1', '10', 'a\\b', '"', '\n', '\uD800', '\u007f'));
const text = fc.oneof(fc.string(), binaryString(), fc.constantFrom('\uD800', 'a\uDBFF', '"\\\n\u2028\u0000\u001f\b\u000b/'));
const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constantFrom(-0, 1e21, 1e-7, 2 ** 53 + 1, 1e15, 999999999999999));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), number, text, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(key, tie('value'), { maxKeys: 5 }),
})).value;

/** Escapes a string's characters in one of the legal ways, chosen by `pick`. */
function escapeString(s: string, pick: () => number): string {
  let out = '"';
  for (const ch of s.split('')) {
    const code = ch.charCodeAt(0);
    const hex = code.toString(16).padStart(4, '0');
    const choice = pick() % 4;
    if (choice === 1) out += `\\u${hex}`;
    else if (choice === 2) out += `\\u${hex.toUpperCase()}`;
    else if (choice === 3 && ch === '/') out += '\\/';
    else out += JSON.stringify(ch).slice(1, -1);
  }
  return `${out}"`;
}

/** Serialises with random spacing, member order, number spelling and escapes. */
function serialise(value: unknown, pick: () => number): string {
  const space = () => [' ', '', '\n ', '\t'][pick() % 4] ?? '';
  if (typeof value === 'string') return escapeString(value, pick);
  if (typeof value === 'number') {
    const plain = JSON.stringify(value);
    const spelled = [plain, value.toExponential(), Number.isInteger(value) && Math.abs(value) < 1e15 ? `${plain}.0` : plain][pick() % 3] ?? plain;
    return spelled.replace('e+', 'E+');
  }
  if (Array.isArray(value)) return `[${space()}${value.map((v) => serialise(v, pick)).join(`${space()},${space()}`)}${space()}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (pick() % 2) entries.reverse();
    return `{${space()}${entries.map(([k, v]) => `${escapeString(k, pick)}${space()}:${space()}${serialise(v, pick)}`).join(`${space()},`)}${space()}}`;
  }
  return JSON.stringify(value);
}

describe('canonicalFromJsonText', () => {
  it('is canonicalJson(JSON.parse(text)) for any JSON text, however spaced, ordered and escaped', () => {
    fc.assert(
      fc.property(json, fc.array(fc.nat(), { minLength: 1, maxLength: 64 }), (value, choices) => {
        let i = 0;
        const pick = () => choices[i++ % choices.length] ?? 0;
        for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2), serialise(value, pick)]) {
          expect(outcome(() => canonicalFromJsonText(text))).toEqual(outcome(() => canonicalJson(JSON.parse(text))));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the last of duplicate members, as JSON.parse does', () => {
    const text = '{"b": 1, "a": 2, "b": 3, "a": [4]}';
    expect(canonicalFromJsonText(text)).toBe(canonicalJson(JSON.parse(text)));
    expect(canonicalFromJsonText(text)).toBe('{"a":[4],"b":3}');
  });

  it('refuses numbers with no finite value and lone surrogates, as canonicalJson does', () => {
    expect(() => canonicalFromJsonText('[1e400]')).toThrow('Infinity');
    expect(() => canonicalFromJsonText('{"a": "\\ud800"}')).toThrow('Lone surrogate');
    expect(() => canonicalFromJsonText('[1] x')).toThrow(SyntaxError);
  });

  it('refuses text that is not well-formed UTF-8 (a lone surrogate encoded, a cut sequence)', () => {
    for (const bytes of [
      [0x22, 0xed, 0xa0, 0x80, 0x22],
      [0x22, 0xc3, 0x22],
      [0x22, 0xff, 0x22],
    ]) {
      expect(() => canonicalFromJsonBytes(Uint8Array.from(bytes))).toThrow('UTF-8');
    }
  });

  it('reads the elements of an array one at a time: written, skipped, decoded or compared', () => {
    const writer = new JsonBytesCanonicaliser();
    writer.begin(utf8.encode('["a\\n", {"y": 1, "x": 2}, null, 1.50, "z", [1, "]"], "h"]'));
    writer.enterArray();
    const texts: string[] = [];
    expect(writer.more()).toBe(true);
    expect(writer.stringValue()).toBe('a\n');
    for (let i = 0; i < 3; i++) {
      expect(writer.more()).toBe(true);
      writer.value();
      texts.push(utf8Decoder.decode(writer.written()));
    }
    expect(texts).toEqual(['{"x":2,"y":1}', '{"x":2,"y":1}null', '{"x":2,"y":1}null1.5']);
    expect(writer.more()).toBe(true);
    writer.skip();
    expect(writer.more()).toBe(true);
    writer.skip();
    expect(writer.more()).toBe(true);
    expect(writer.literalIs('h')).toBe(true);
    expect(writer.more()).toBe(false);
    expect(writer.done()).toBe(true);
  });
});

// The step check (step-check.ts) writes a step's members one after another into one output: text
// columns from their raw UTF-8 (binary COPY), jsonb columns from their JSON text.
describe('rawString and valueFrom', () => {
  it("rawString writes canonicalString's literal of any well-formed string from its UTF-8", () => {
    const writer = new JsonBytesCanonicaliser();
    const wellFormed = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), binaryString()).filter((s) => utf8Decoder.decode(utf8.encode(s)) === s); // well-formed: encoding keeps it
    fc.assert(
      fc.property(wellFormed, fc.string(), (s, before) => {
        const raw = utf8.encode(`${before}${s}`);
        writer.clear();
        writer.ascii('{');
        writer.rawString(raw, raw.length - utf8.encode(s).length, raw.length);
        expect(utf8Decoder.decode(writer.written())).toBe(`{${canonicalJson(s)}`);
      }),
    );
  });

  it('valueFrom appends canonicalJson(JSON.parse(text)) of a slice holding one value, and refuses anything after it', () => {
    const writer = new JsonBytesCanonicaliser();
    fc.assert(
      fc.property(json, json, fc.constantFrom(0, 1, 2), (a, b, indent) => {
        const first = utf8.encode(`\u0001${JSON.stringify(a, null, indent)}`);
        const second = utf8.encode(JSON.stringify(b));
        const written = outcome(() => {
          writer.clear();
          writer.valueFrom(first, 1, first.length);
          writer.ascii(',');
          writer.valueFrom(second, 0, second.length);
          return utf8Decoder.decode(writer.written());
        });
        expect(written).toEqual(outcome(() => `${canonicalJson(a)},${canonicalJson(b)}`));
      }),
    );
    expect(() => writer.valueFrom(utf8.encode('1 2'), 0, 3)).toThrow('unexpected text after the JSON value');
  });

  it('re-encodes no literal from text that is not well-formed UTF-8', () => {
    const writer = new JsonBytesCanonicaliser();
    const text = new Uint8Array([34, 92, 117, 48, 48, 52, 49, 0xff, 34]); // "\u0041<FF>"
    expect(() => writer.valueFrom(text, 0, text.length)).toThrow();
  });
});
