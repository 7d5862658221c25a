// Inputs the limit tests build: JSON of an exact size or depth, and the fields a check names.
import type { JsonValue } from '../../src/validation/json.ts';

/** A JSON object whose JSON text is exactly `bytes` long (ASCII). */
export function jsonOfBytes(bytes: number): JsonValue {
  return { d: 'x'.repeat(bytes - '{"d":""}'.length) };
}

/** Arrays nested `depth` deep around a number. */
export function nested(depth: number): JsonValue {
  let value: JsonValue = 1;
  for (let level = 0; level < depth; level += 1) value = [value];
  return value;
}

export const fields = (violations: { field: string }[]): string[] => violations.map((v) => v.field);
