/**
 * Rule primitives of every input limit. Validators never throw: they return every violation, each
 * naming the field by the dotted path the GraphQL client sent (e.g. 'input.steps.3.observation')
 * and the limit, so the API can answer with one typed error that changes nothing.
 *
 * Sizes are UTF-8 bytes. "Chars" are Unicode code points. No stored string may contain NUL
 * (U+0000): PostgreSQL rejects it in text and in jsonb, so it is refused here with a clear message
 * instead of failing the insert; nor may one hold a lone UTF-16 surrogate (not Unicode: PostgreSQL
 * refuses it in jsonb, and text would not hash as the ledger recorded it). The limits themselves live with their domain (episodes/limits.ts,
 * steps/limits.ts, leases/limits.ts, ...).
 */

import type { LimitViolation } from '../core/errors.ts';
import { isHashHex } from '../ledger/format/hash.ts';

export type { LimitViolation };

export interface TextRule {
  maxBytes?: number;
  maxChars?: number;
  /** When present, the value must not be blank. */
  nonEmpty?: boolean;
  /** Names and keys: no control characters at all, not only NUL. */
  identifier?: boolean;
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export function charCount(text: string): number {
  let count = 0;
  for (const _codePoint of text) count += 1;
  return count;
}

export function identifierRule(maxChars: number): TextRule {
  return { maxChars, nonEmpty: true, identifier: true };
}

export const NUL = '\u0000';
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether the text is valid Unicode: no UTF-16 surrogate without its pair. */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

export function textViolations(field: string, value: string | null | undefined, rule: TextRule): LimitViolation[] {
  if (value === undefined || value === null) return [];
  if (rule.nonEmpty && value.trim() === '') {
    return [{ field, limit: 'non-empty', message: `${field} must not be empty` }];
  }
  const violations: LimitViolation[] = [];
  if (rule.maxBytes !== undefined) violations.push(...sizeViolations(field, utf8Bytes(value), rule.maxBytes, 'bytes'));
  if (rule.maxChars !== undefined) violations.push(...sizeViolations(field, charCount(value), rule.maxChars, 'characters'));
  if (rule.identifier && CONTROL_CHARACTER.test(value)) {
    violations.push({ field, limit: 'no control characters', message: `${field} must not contain control characters` });
  } else if (value.includes(NUL)) {
    violations.push(nulViolation(field, 'contains'));
  }
  if (!isWellFormedText(value)) violations.push(surrogateViolation(field, 'contains'));
  return violations;
}

export function sizeViolations(field: string, actual: number, limit: number, unit: string): LimitViolation[] {
  if (actual <= limit) return [];
  return [{ field, limit, actual, message: `${field} is ${actual} ${unit}; the limit is ${limit} ${unit}` }];
}

export function countViolations(field: string, count: number, limit: number, what: string): LimitViolation[] {
  if (count <= limit) return [];
  return [{ field, limit, actual: count, message: `${field} has ${count} ${what}; the limit is ${limit}` }];
}

export function integerViolations(field: string, value: number | null | undefined, min: number, max = Number.MAX_SAFE_INTEGER): LimitViolation[] {
  if (value === undefined || value === null) return [];
  if (Number.isSafeInteger(value) && value >= min && value <= max) return [];
  const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
  const message = `${field} must be an integer ${range}, got ${value}`;
  return [{ field, limit: `integer ${range}`, ...finiteActual(value), message }];
}

export function finiteNumberViolations(field: string, value: number | null | undefined, min: number, max = Number.MAX_VALUE): LimitViolation[] {
  if (value === undefined || value === null) return [];
  if (Number.isFinite(value) && value >= min && value <= max) return [];
  const range = max === Number.MAX_VALUE ? `>= ${min}` : `from ${min} to ${max}`;
  const message = `${field} must be a finite number ${range}, got ${value}`;
  return [{ field, limit: `number ${range}`, ...finiteActual(value), message }];
}

// NaN and Infinity cannot travel in a GraphQL Int/Float, so they are left out of `actual`.
function finiteActual(value: number): { actual?: number } {
  return Number.isFinite(value) ? { actual: value } : {};
}

export function nulViolation(path: string, verb: string): LimitViolation {
  return { field: path, limit: 'no NUL characters', message: `${path} ${verb} a NUL character (U+0000), which cannot be stored` };
}

export function surrogateViolation(path: string, verb: string): LimitViolation {
  return { field: path, limit: 'valid Unicode', message: `${path} ${verb} a lone UTF-16 surrogate (not valid Unicode), which cannot be stored` };
}

/** A hash the client sends (context pack, manifest): BLAKE3 in lowercase hex. */
export function hashViolations(field: string, value: string | null | undefined): LimitViolation[] {
  if (value == null) return [];
  const { length } = value; // read before isHashHex narrows a failing value away
  if (isHashHex(value)) return [];
  return [{ field, limit: '64 lowercase hex digits', actual: length, message: `${field} must be a BLAKE3 hash in lowercase hex` }];
}
