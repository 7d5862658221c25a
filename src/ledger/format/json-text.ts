// RFC 8785 bytes straight from UTF-8 JSON text, without building the value or any string: what
// verifyLedger does with the jsonb columns PostgreSQL sends (events' payloads, steps' jsonb columns, as
// jsonb_out prints it), read as bytes so that no row text lands on the JS heap. PostgreSQL already
// escapes strings exactly as RFC 8785 does (\" \\ \b \f \n \r \t, other control characters as
// \u00xx, nothing else), so string literals are copied as they are and only the layout changes:
// whitespace dropped, object members sorted by UTF-16 code units (jsonb keeps them by length),
// numbers re-printed as ECMAScript prints them. Any literal that is not already in canonical form
// (another escape, \u0041, \/) is decoded and re-encoded, so the result is the UTF-8 of
// canonicalJson(JSON.parse(text)) for every valid JSON text; text that is not well-formed UTF-8 is
// refused (what this does with other invalid text is unspecified: its input is PostgreSQL's
// output). test/unit/json-text.test.ts checks that, and test/ledger/json-text-pg.test.ts on
// PostgreSQL's own output. The output is one reused buffer, hashed where it lies.
import { isUtf8 } from 'node:buffer';
import { canonicalString } from './hash.ts';

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const utf8 = new TextEncoder();
/** Longest run copied by a loop rather than through a view (an allocation). */
const COPY_LOOP_MAX = 64;
// Fatal: a literal re-encoded from text that is not well-formed UTF-8 throws instead of becoming U+FFFD.
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** `\u00xx` escapes RFC 8785 writes: the control characters without a short escape, lowercase. */
function canonicalControlEscape(high: number, low: number): boolean {
  if (high === 48) return (low >= 48 && low <= 55) || low === 98 || low === 101 || low === 102; // 0-7 b e f
  return high === 49 && ((low >= 48 && low <= 57) || (low >= 97 && low <= 102)); // 1 then 0-9 a-f
}

/** The short escapes RFC 8785 writes: \" \\ \b \f \n \r \t. */
const SHORT_ESCAPE = new Uint8Array(128);
for (const c of '"\\bfnrt') SHORT_ESCAPE[c.charCodeAt(0)] = 1;

/**
 * Reads one UTF-8 JSON text left to right and writes canonical bytes to `out` (from 0 after
 * begin()). The caller walks the top-level array with enterArray()/more() and writes, skips or
 * decodes each element.
 */
export class JsonBytesCanonicaliser {
  out = new Uint8Array(1 << 16);
  /** Bytes written to `out`. */
  length = 0;
  private src: Uint8Array = new Uint8Array(0);
  private pos = 0;
  private end = 0;
  private first = false;
  // Per member of the objects being written: start of its key, end of its key, end of its value.
  private marks = new Int32Array(3 * 256);
  private top = 0;
  private scratch = new Uint8Array(1 << 16);
  private order = new Int32Array(64);
  // The first backslash at or after the read position (the text's length when none): searched
  // again only once passed, so that a text without escapes is searched once.
  private nextBackslash = -1;

  /**
   * Starts reading src[start..end) and writing at out[0]. Throws on text that is not well-formed
   * UTF-8, unless the caller says it already checked (`wellFormed`: copy-rows.ts checks each COPY
   * row once, which holds many texts).
   */
  begin(src: Uint8Array, start = 0, end = src.length, wellFormed = false): void {
    // A view of just this text, so that a search for the next quote or backslash stops at its end.
    this.src = start === 0 && end === src.length ? src : src.subarray(start, end);
    if (!wellFormed && !isUtf8(this.src)) throw new TypeError('JSON text is not well-formed UTF-8');
    this.pos = 0;
    this.end = this.src.length;
    this.length = 0;
    this.top = 0;
    this.nextBackslash = -1;
  }

  /** Starts writing at out[0] again (for valueFrom and rawString). */
  clear(): void {
    this.length = 0;
  }

  /**
   * Reads src[start..end), one JSON value, and writes its canonical form after what is already
   * written (no UTF-8 check here: a caller that copies raw text checks what it wrote, step-check.ts).
   */
  valueFrom(src: Uint8Array, start: number, end: number): void {
    this.src = src.subarray(start, end);
    this.pos = 0;
    this.end = this.src.length;
    this.top = 0;
    this.nextBackslash = -1;
    this.value();
    if (!this.done()) throw new SyntaxError('unexpected text after the JSON value');
  }

  /**
   * Writes the UTF-8 text src[start..end) (a text column as PostgreSQL sends it in binary COPY) as
   * an RFC 8785 string literal: \" \\ \b \f \n \r \t, other control characters as lowercase
   * \u00xx, every other byte as it is (canonicalString's output for the same string).
   */
  rawString(src: Uint8Array, start: number, end: number): void {
    this.room(2 + 6 * (end - start));
    const out = this.out;
    let at = this.length;
    out[at++] = QUOTE;
    for (let p = start; p < end; p++) {
      const c = src[p] as number;
      if (c >= 32 && c !== QUOTE && c !== BACKSLASH) out[at++] = c;
      else at = writeEscape(out, at, c);
    }
    out[at++] = QUOTE;
    this.length = at;
  }

  /** The bytes written (a view of `out`, valid until the next write). */
  written(): Uint8Array {
    return this.out.subarray(0, this.length);
  }

  /** At the end of the text (after whitespace). */
  done(): boolean {
    this.space();
    return this.pos >= this.end;
  }

  /** Steps into an array: its elements are then read after each more() that returns true. */
  enterArray(): void {
    this.space();
    this.expect(91); // [
    this.first = true;
  }

  /** True when the array has another element (positioned at it); false, and past the `]`, at its end. */
  more(): boolean {
    this.space();
    if (this.src[this.pos] === 93) {
      this.pos++;
      return false;
    }
    if (!this.first) this.expect(COMMA);
    this.first = false;
    this.space();
    return true;
  }

  /** True, and past it, when the next value is `null`. */
  isNull(): boolean {
    this.space();
    const s = this.src;
    const p = this.pos;
    if (s[p] !== 110 || s[p + 1] !== 117 || s[p + 2] !== 108 || s[p + 3] !== 108) return false;
    this.pos += 4;
    return true;
  }

  /** The read position in the source: after more() or isNull(), where the next value starts. */
  get position(): number {
    return this.pos;
  }

  /** The source text. */
  get source(): Uint8Array {
    return this.src;
  }

  /** Moves past the next value without writing it, and without checking what it holds beyond its nesting and strings. */
  skip(): void {
    const s = this.src;
    let depth = 0;
    this.space();
    for (;;) {
      const c = s[this.pos] ?? -1;
      if (c === QUOTE) {
        this.skipString();
        if (depth === 0) return;
        continue;
      }
      if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) {
        if (depth === 0) return; // the end of a number or literal
        if (--depth === 0) {
          this.pos++;
          return;
        }
      } else if (c < 0) {
        if (depth > 0) throw new SyntaxError('unexpected end of JSON text');
        return;
      } else if (depth === 0 && (c === COMMA || c === 32 || c === 10 || c === 13 || c === 9)) return;
      this.pos++;
    }
  }

  private skipString(): void {
    const s = this.src;
    let p = this.pos + 1;
    for (let c = s[p] ?? -1; c !== QUOTE; c = s[p] ?? -1) {
      if (c < 0) throw new SyntaxError('unterminated string');
      p += c === BACKSLASH ? 2 : 1;
    }
    this.pos = p + 1;
  }

  /** The value of the next string literal. */
  stringValue(): string {
    this.space();
    const start = this.pos;
    const mark = this.length;
    this.string();
    this.length = mark;
    const literal = utf8Decoder.decode(this.src.subarray(start, this.pos));
    return literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
  }

  /** Moves past the next string literal; true when it is exactly `expected`, written without escapes. */
  literalIs(expected: unknown): boolean {
    this.space();
    const start = this.pos;
    this.skip();
    const s = this.src;
    if (typeof expected !== 'string' || s[start] !== QUOTE || this.pos - start !== expected.length + 2) return false;
    for (let i = 0; i < expected.length; i++) if (s[start + 1 + i] !== expected.charCodeAt(i)) return false;
    return true;
  }

  /** The value of the next number. */
  numberValue(): number {
    this.space();
    return JSON.parse(this.numberToken()) as number; // throws on anything that is not a JSON number
  }

  /** Writes ASCII text (keys, numbers, times) as it is. */
  ascii(text: string): void {
    this.room(text.length);
    const out = this.out;
    let at = this.length;
    for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
    this.length = at;
  }

  /** Writes src[start..end) as it is. */
  raw(src: Uint8Array, start: number, end: number): void {
    this.room(end - start);
    copyBytes(src, start, end, this.out, this.length);
    this.length += end - start;
  }

  /** Makes room for `n` bytes, counts them written and returns where they start: the caller fills out[at..at+n). */
  reserve(n: number): number {
    this.room(n);
    const at = this.length;
    this.length += n;
    return at;
  }

  /** Writes bytes as they are. */
  bytes(data: Uint8Array): void {
    this.room(data.length);
    copyBytes(data, 0, data.length, this.out, this.length);
    this.length += data.length;
  }

  /** Writes the canonical form of the value at the current position. */
  value(): void {
    this.space();
    const c = this.src[this.pos];
    if (c === QUOTE) this.string();
    else if (c === 123) this.object();
    else if (c === 91) this.array();
    else if (c === 116) this.literal('true');
    else if (c === 102) this.literal('false');
    else if (c === 110) this.literal('null');
    else this.number();
  }

  private literal(word: string): void {
    for (let i = 0; i < word.length; i++) if (this.src[this.pos + i] !== word.charCodeAt(i)) throw new SyntaxError(`unexpected text at ${this.pos}`);
    this.pos += word.length;
    this.ascii(word);
  }

  /**
   * A string literal: copied when already canonical, else decoded and re-encoded. Quotes and
   * backslashes are found by the native indexOf, much faster than a loop over the bytes.
   */
  private string(): void {
    const s = this.src;
    const start = this.pos;
    if (s[start] !== QUOTE) throw new SyntaxError(`expected a string at ${start}`);
    let p = start + 1;
    let canonical = true;
    // Most literals are short (ids, names): a loop finds their end sooner than a native call.
    const near = Math.min(p + 48, this.end);
    while (p < near) {
      const c = s[p] as number;
      if (c === QUOTE) {
        this.pos = p + 1;
        this.copy(start, this.pos);
        return;
      }
      if (c === BACKSLASH) break;
      p++;
    }
    for (;;) {
      const quote = s.indexOf(QUOTE, p);
      if (quote < 0) throw new SyntaxError(`unterminated string at ${start}`);
      if (this.nextBackslash < p) {
        const found = s.indexOf(BACKSLASH, p);
        this.nextBackslash = found < 0 ? this.end : found;
      }
      if (this.nextBackslash > quote) {
        p = quote;
        break;
      }
      p = this.nextBackslash;
      const e = s[p + 1] ?? 0;
      if (e < 128 && SHORT_ESCAPE[e] === 1) p += 2;
      else if (e === 117 && s[p + 2] === 48 && s[p + 3] === 48 && canonicalControlEscape(s[p + 4] ?? 0, s[p + 5] ?? 0)) p += 6;
      else {
        canonical = false;
        p += 2; // the rest of the escape is plain characters to this scan; JSON.parse below checks it
      }
    }
    this.pos = p + 1;
    if (canonical) this.copy(start, this.pos);
    else this.reencode(start);
  }

  /** The literal from `start` to the read position, decoded and written in canonical form. */
  private reencode(start: number): void {
    const text = canonicalString(JSON.parse(utf8Decoder.decode(this.src.subarray(start, this.pos))) as string);
    this.room(text.length * 3);
    this.length += utf8.encodeInto(text, this.out.subarray(this.length)).written;
  }

  /** Writes source bytes [start, end) as they are. */
  copy(start: number, end: number): void {
    this.room(end - start);
    copyBytes(this.src, start, end, this.out, this.length);
    this.length += end - start;
  }

  private object(): void {
    this.pos++; // {
    this.ascii('{');
    const base = this.top;
    let sorted = true;
    for (let count = 0; ; count++) {
      this.space();
      if (this.src[this.pos] === 125) break;
      if (count > 0) {
        this.expect(COMMA);
        this.ascii(',');
        this.space();
      }
      const memberStart = this.length;
      this.string();
      const keyEnd = this.length;
      this.space();
      this.expect(COLON);
      this.ascii(':');
      this.value();
      if (count > 0 && sorted && this.compareKeys(this.top - 3, memberStart, keyEnd) >= 0) sorted = false;
      this.pushMember(memberStart, keyEnd, this.length);
    }
    this.pos++; // }
    if (!sorted) this.reorder(base);
    this.top = base;
    this.ascii('}');
  }

  private pushMember(start: number, keyEnd: number, end: number): void {
    if (this.top + 3 > this.marks.length) {
      const grown = new Int32Array(this.marks.length * 2);
      grown.set(this.marks);
      this.marks = grown;
    }
    this.marks[this.top++] = start;
    this.marks[this.top++] = keyEnd;
    this.marks[this.top++] = end;
  }

  /** Compares the key of the member at marks[at] with the key literal out[start..keyEnd) by UTF-16 code units. */
  private compareKeys(at: number, start: number, keyEnd: number): number {
    const m = this.marks;
    return compareKeyLiterals(this.out, (m[at] ?? 0) + 1, (m[at + 1] ?? 0) - 1, start + 1, keyEnd - 1);
  }

  /**
   * Rewrites the members pushed since `base` sorted by key, keeping the last of duplicate keys (as
   * JSON.parse does). An insertion sort of mark indices (stable; objects are small), and copies
   * through a reused scratch buffer: nothing is allocated per object.
   */
  private reorder(base: number): void {
    const m = this.marks;
    const count = (this.top - base) / 3;
    if (this.order.length < count) this.order = new Int32Array(count * 2);
    const order = this.order;
    for (let i = 0; i < count; i++) {
      const at = base + 3 * i;
      let j = i;
      // Equal keys keep their text order: the later one sorts after.
      while (j > 0 && this.compareKeys(order[j - 1] as number, m[at] as number, m[at + 1] as number) > 0) {
        order[j] = order[j - 1] as number;
        j--;
      }
      order[j] = at;
    }
    // Of equal keys (now adjacent) only the last is kept; compared before `out` is rewritten.
    for (let i = 0; i + 1 < count; i++) {
      const next = order[i + 1] as number;
      if (this.compareKeys(order[i] as number, m[next] as number, m[next + 1] as number) === 0) order[i] = -1;
    }
    const from = m[base] as number;
    const size = this.length - from;
    if (this.scratch.length < size) this.scratch = new Uint8Array(size * 2);
    copyBytes(this.out, from, this.length, this.scratch, 0);
    this.length = from;
    for (let i = 0; i < count; i++) {
      const at = order[i] as number;
      if (at < 0) continue;
      if (this.length > from) this.ascii(',');
      const start = (m[at] as number) - from;
      const end = (m[at + 2] as number) - from;
      this.room(end - start);
      copyBytes(this.scratch, start, end, this.out, this.length);
      this.length += end - start;
    }
  }

  private array(): void {
    this.pos++; // [
    this.ascii('[');
    for (let count = 0; ; count++) {
      this.space();
      if (this.src[this.pos] === 93) break;
      if (count > 0) {
        this.expect(COMMA);
        this.ascii(',');
      }
      this.value();
    }
    this.pos++; // ]
    this.ascii(']');
  }

  /** Integers printed the same by PostgreSQL and ECMAScript (at most 15 digits, so exact) are copied. */
  private number(): void {
    const start = this.pos;
    const s = this.src;
    let p = start;
    if (s[p] === 45) p++; // -
    const digits = p;
    while (p < this.end && (s[p] as number) >= 48 && (s[p] as number) <= 57) p++;
    const n = p - digits;
    const next = s[p] ?? 0;
    const plain = n > 0 && n <= 15 && (s[digits] !== 48 || (n === 1 && p - start === 1)) && next !== 46 && next !== 101 && next !== 69;
    if (plain) {
      this.pos = p;
      this.copy(start, p);
      return;
    }
    const value = JSON.parse(this.numberToken()) as number; // throws on anything that is not a JSON number
    if (!Number.isFinite(value)) throw new Error('Infinity is not allowed');
    this.ascii(JSON.stringify(value));
  }

  private numberToken(): string {
    const s = this.src;
    let token = '';
    for (let c = s[this.pos] ?? 0; (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69; c = s[++this.pos] ?? 0) {
      token += String.fromCharCode(c);
    }
    return token;
  }

  private space(): void {
    const s = this.src;
    for (;;) {
      const c = s[this.pos];
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return;
      this.pos++;
    }
  }

  private expect(code: number): void {
    if (this.src[this.pos] !== code) throw new SyntaxError(`expected ${String.fromCharCode(code)} at ${this.pos}`);
    this.pos++;
  }

  /** Room for `n` more bytes in `out`, keeping what is written. */
  private room(n: number): void {
    if (this.length + n <= this.out.length) return;
    const grown = new Uint8Array((this.length + n) * 2);
    grown.set(this.out.subarray(0, this.length));
    this.out = grown;
  }
}

const HEX_DIGITS = utf8.encode('0123456789abcdef');
const SHORT_FOR: Record<number, number> = { 8: 98, 9: 116, 10: 110, 12: 102, 13: 114, 34: 34, 92: 92 };

/** Writes the RFC 8785 escape of the byte c (a control character, quote or backslash) at out[at]; returns the next position. */
function writeEscape(out: Uint8Array, at: number, c: number): number {
  out[at++] = BACKSLASH;
  const short = SHORT_FOR[c];
  if (short !== undefined) {
    out[at++] = short;
    return at;
  }
  out.set([117, 48, 48, HEX_DIGITS[c >> 4] as number, HEX_DIGITS[c & 15] as number], at); // u00xx
  return at + 5;
}

/** Copies from[start..end) to to[at..]: short runs by a loop, long ones natively (through a view). */
function copyBytes(from: Uint8Array, start: number, end: number, to: Uint8Array, at: number): void {
  if (end - start > COPY_LOOP_MAX) to.set(from.subarray(start, end), at);
  else for (let i = start; i < end; i++) to[at + i - start] = from[i] as number;
}

/**
 * Compares two canonical string literals' contents (a[aStart..aEnd), b..) by UTF-16 code units.
 * Without escapes, UTF-8 byte order is code point order, which is UTF-16 order except that
 * U+E000..U+FFFF (lead bytes EE, EF) sort after the surrogate pairs of U+10000.. (lead F0-F4).
 * A literal with an escape before the first difference is decoded first (rare: keys hold control
 * characters or quotes); one after it cannot change the order.
 */
function compareKeyLiterals(bytes: Uint8Array, aStart: number, aEnd: number, bStart: number, bEnd: number): number {
  const aLength = aEnd - aStart;
  const bLength = bEnd - bStart;
  for (let i = 0; i < aLength && i < bLength; i++) {
    const x = bytes[aStart + i] as number;
    const y = bytes[bStart + i] as number;
    if (x === BACKSLASH || y === BACKSLASH) return compareDecoded(bytes, aStart, aEnd, bStart, bEnd);
    if (x === y) continue;
    if (x >= 0xee && y >= 0xee && x >= 0xf0 !== y >= 0xf0) return x >= 0xf0 ? -1 : 1;
    return x - y;
  }
  return aLength - bLength; // one is a prefix of the other: the rest decodes to at least one character
}

function compareDecoded(bytes: Uint8Array, aStart: number, aEnd: number, bStart: number, bEnd: number): number {
  const a = JSON.parse(utf8Decoder.decode(bytes.subarray(aStart - 1, aEnd + 1))) as string;
  const b = JSON.parse(utf8Decoder.decode(bytes.subarray(bStart - 1, bEnd + 1))) as string;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The UTF-8 of canonicalJson(JSON.parse(text)) from the UTF-8 text, without building the value (a copy). */
export function canonicalFromJsonBytes(text: Uint8Array): Uint8Array {
  const writer = new JsonBytesCanonicaliser();
  writer.begin(text);
  writer.value();
  if (!writer.done()) throw new SyntaxError('unexpected text after the JSON value');
  return writer.written().slice();
}
