// RFC 8785 text straight from JSON text, without building the value: what verifyLedger does with
// the rows PostgreSQL prints (json_build_array of a step's columns, jsonb as jsonb_out prints it).
// PostgreSQL already escapes strings exactly as RFC 8785 does (\" \\ \b \f \n \r \t, other control
// characters as \u00xx, nothing else), so string literals are copied as they are and only the
// layout changes: whitespace dropped, object members sorted by UTF-16 code units (jsonb keeps them
// by length), numbers re-printed as ECMAScript prints them. Any literal that is not already in
// canonical form (another escape, \u0041, \/) is decoded and re-encoded, so the result is
// canonicalJson(JSON.parse(text)) for every valid JSON text (what this does with invalid text is
// unspecified: its input is PostgreSQL's output); test/unit/json-text.test.ts checks that, and
// test/ledger/json-text-pg.test.ts on PostgreSQL's own output.
import { assertWellFormed, canonicalString } from './hash.ts';

const QUOTE = 34;
const BACKSLASH = 92;
/** Integers printed the same by PostgreSQL and ECMAScript (at most 15 digits, so exact). */
const PLAIN_INTEGER = /^(?:0|-?[1-9][0-9]{0,14})$/;

interface Member {
  key: string;
  text: string;
}

const byKey = (a: Member, b: Member) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** Reads one JSON text left to right; every method returns canonical text and moves past what it read. */
export class JsonTextReader {
  private pos = 0;

  constructor(private readonly text: string) {}

  /** At the end of the text (after whitespace). */
  done(): boolean {
    this.space();
    return this.pos >= this.text.length;
  }

  /** Steps into an array: its elements are then read with next() until it returns undefined. */
  enterArray(): void {
    this.space();
    this.expect(91); // [
    this.first = true;
  }

  private first = false;

  /** The canonical text of the array's next element, or undefined (and past the `]`) at its end. */
  next(): string | undefined {
    this.space();
    if (this.text.charCodeAt(this.pos) === 93) {
      this.pos++;
      return undefined;
    }
    if (!this.first) this.expect(44); // ,
    this.first = false;
    return this.value();
  }

  /** The canonical text of the value at the current position. */
  value(): string {
    this.space();
    const c = this.text.charCodeAt(this.pos);
    if (c === QUOTE) return this.string();
    if (c === 123) return this.object();
    if (c === 91) return this.array();
    const literal = c === 116 ? 'true' : c === 102 ? 'false' : c === 110 ? 'null' : undefined;
    if (literal === undefined) return this.number();
    if (!this.text.startsWith(literal, this.pos)) throw new SyntaxError(`unexpected text at ${this.pos}`);
    this.pos += literal.length;
    return literal;
  }

  /** A string literal's canonical text (decodeString gives its value). */
  string(): string {
    this.space();
    const start = this.pos;
    if (this.text.charCodeAt(start) !== QUOTE) throw new SyntaxError(`expected a string at ${start}`);
    let end = start;
    for (;;) {
      end = this.text.indexOf('"', end + 1);
      if (end < 0) throw new SyntaxError(`unterminated string at ${start}`);
      let backslashes = 0;
      while (this.text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) break;
    }
    this.pos = end + 1;
    const literal = this.text.slice(start, end + 1);
    if (!literal.includes('\\') || !NON_CANONICAL_ESCAPE.test(literal)) return wellFormed(literal);
    return canonicalString(JSON.parse(literal) as string);
  }

  private object(): string {
    this.pos++; // {
    const members: Member[] = [];
    let sorted = true;
    for (let first = true; ; first = false) {
      this.space();
      if (this.text.charCodeAt(this.pos) === 125) break;
      if (!first) this.expect(44);
      const key = this.string();
      this.space();
      this.expect(58); // :
      const member = { key: decodeString(key), text: `${key}:${this.value()}` };
      const last = members.at(-1);
      if (last && last.key >= member.key) sorted = false;
      members.push(member);
    }
    this.pos++; // }
    if (!sorted) sortMembers(members);
    let out = '{';
    for (let i = 0; i < members.length; i++) out += i === 0 ? (members[i] as Member).text : `,${(members[i] as Member).text}`;
    return `${out}}`;
  }

  private array(): string {
    this.pos++; // [
    let out = '[';
    for (let first = true; ; first = false) {
      this.space();
      if (this.text.charCodeAt(this.pos) === 93) break;
      if (!first) this.expect(44);
      out += first ? this.value() : `,${this.value()}`;
    }
    this.pos++; // ]
    return `${out}]`;
  }

  private number(): string {
    const start = this.pos;
    for (let c = this.text.charCodeAt(this.pos); (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69; ) {
      c = this.text.charCodeAt(++this.pos);
    }
    const token = this.text.slice(start, this.pos);
    if (PLAIN_INTEGER.test(token)) return token;
    const value = JSON.parse(token) as number; // throws on anything that is not a JSON number
    if (!Number.isFinite(value)) throw new Error('Infinity is not allowed');
    return JSON.stringify(value);
  }

  private space(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return;
      this.pos++;
    }
  }

  private expect(code: number): void {
    if (this.text.charCodeAt(this.pos) !== code) throw new SyntaxError(`expected ${String.fromCharCode(code)} at ${this.pos}`);
    this.pos++;
  }
}

// The escapes RFC 8785 (and JSON.stringify) write: \" \\ \b \f \n \r \t, and \u00xx in lowercase
// for the other control characters. A literal with any other escape is re-encoded.
const NON_CANONICAL_ESCAPE = /\\(?!["\\bfnrt]|u00(?:0[0-7bef]|1[0-9a-f]))/;

/** The literal, once checked to hold no lone surrogate (RFC 8785 refuses them). */
function wellFormed(literal: string): string {
  assertWellFormed(literal);
  return literal;
}

/** Sorts by key, and of duplicate keys keeps the last (as JSON.parse does). */
function sortMembers(members: Member[]): void {
  members.sort(byKey); // stable: duplicates stay in text order
  let kept = 0;
  for (let i = 0; i < members.length; i++) {
    const m = members[i] as Member;
    if (i + 1 < members.length && (members[i + 1] as Member).key === m.key) continue;
    members[kept++] = m;
  }
  members.length = kept;
}

/** The value of a canonical string literal. */
export function decodeString(literal: string): string {
  return literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
}

/** canonicalJson(JSON.parse(text)) without building the value. */
export function canonicalFromJsonText(text: string): string {
  const reader = new JsonTextReader(text);
  const out = reader.value();
  if (!reader.done()) throw new SyntaxError('unexpected text after the JSON value');
  return out;
}
