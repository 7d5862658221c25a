// Limits of JSON values: size as JSON.stringify output in UTF-8 bytes, nesting depth, and no NUL
// nor lone surrogate in any nested string or key.
import { isWellFormedText, type LimitViolation, NUL, nulViolation, sizeViolations, surrogateViolation, textViolations, utf8Bytes } from './violations.ts';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/**
 * Nesting of arrays/objects in any JSON field. V8's JSON.stringify overflows its stack near
 * 4,000 levels, which JSON.parse accepts; 64 is far deeper than real tool arguments.
 */
export const JSON_DEPTH = 64;

/** Bytes of the JSON text of `value`; 0 for undefined. */
export function jsonBytes(value: unknown): number {
  const json = JSON.stringify(value);
  return json === undefined ? 0 : utf8Bytes(json);
}

export function jsonViolations(field: string, value: JsonValue | undefined, maxBytes: number): LimitViolation[] {
  if (value === undefined) return [];
  // Checked first: stringifying a too-deep value would throw instead of answering.
  if (exceedsJsonDepth(value, JSON_DEPTH)) {
    return [{ field, limit: JSON_DEPTH, message: `${field} nests arrays/objects deeper than ${JSON_DEPTH} levels` }];
  }
  const json = JSON.stringify(value);
  const violations = sizeViolations(field, utf8Bytes(json), maxBytes, 'bytes');
  // JSON.stringify writes NUL as the escape \u0000, so text without that escape has no NUL;
  // when the escape is present (or a literal backslash-u0000 mimics it), walk to find the spot.
  if (json.includes('\\u0000')) {
    const found = findNul(value, field);
    if (found !== null) violations.push(nulViolation(found.path, found.inKey ? 'has a key that contains' : 'contains'));
  }
  // JSON.stringify writes a lone surrogate as its escape (\ud800), a paired one as the character.
  if (LONE_SURROGATE_ESCAPE.test(json)) {
    const found = findText(value, field, (text) => !isWellFormedText(text));
    if (found !== null) violations.push(surrogateViolation(found.path, found.inKey ? 'has a key that contains' : 'contains'));
  }
  return violations;
}

/** Free text or structured JSON (a goal spec, a work item's metadata): a string is measured as text. */
export function textOrJsonViolations(field: string, value: JsonValue, maxBytes: number): LimitViolation[] {
  if (typeof value === 'string') return textViolations(field, value, { maxBytes });
  return jsonViolations(field, value, maxBytes);
}

/** Whether arrays/objects nest more than `maxDepth` levels ([] is 1, [[]] is 2); iterative, so any depth is safe. */
export function exceedsJsonDepth(value: JsonValue, maxDepth: number): boolean {
  const pending: Array<[JsonValue, number]> = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, depth] = next;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > maxDepth) return true;
    for (const item of Array.isArray(current) ? current : Object.values(current)) pending.push([item, depth + 1]);
  }
  return false;
}

const LONE_SURROGATE_ESCAPE = /\\ud[89a-f][0-9a-f]{2}/;

/** First string or key holding NUL, in document order (keys of an object before its values). */
export function findNul(value: JsonValue, path: string): { path: string; inKey: boolean } | null {
  return findText(value, path, (text) => text.includes(NUL));
}

/** First string or key for which `bad` holds, in document order (keys of an object before its values). */
function findText(value: JsonValue, path: string, bad: (text: string) => boolean): { path: string; inKey: boolean } | null {
  const pending: Array<[JsonValue, string]> = [[value, path]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, at] = next;
    if (typeof current === 'string') {
      if (bad(current)) return { path: at, inKey: false };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    const entries: Array<[string, JsonValue]> = Array.isArray(current) ? current.map((item, index) => [String(index), item]) : Object.entries(current);
    if (entries.some(([key]) => bad(key))) return { path: at, inKey: true };
    for (const [key, item] of entries.reverse()) pending.push([item, `${at}.${key}`]);
  }
  return null;
}
