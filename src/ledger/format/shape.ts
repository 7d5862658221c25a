// Shape rules shared by the offline verifier (docs/LEDGER.md §2): what a well-formed exported value is.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Date.prototype.toISOString() of a year 0000-9999: exactly 24 characters. */
const CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A lowercase uuid, as the server writes every id it hashes. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

export function isCreatedAt(value: unknown): value is string {
  return typeof value === 'string' && CREATED_AT.test(value);
}

/** True when the object's own members are exactly `names` (no more, no fewer). */
export function hasExactly(value: object, names: readonly string[]): boolean {
  const keys = Object.keys(value);
  return keys.length === names.length && names.every((n) => Object.hasOwn(value, n));
}

/** Like hasExactly, but the members in `optional` may be absent. */
export function hasOnly(value: object, required: readonly string[], optional: readonly string[]): boolean {
  let found = 0; // own keys are distinct: counting the required ones found counts each once
  for (const key of Object.keys(value)) {
    if (required.includes(key)) found++;
    else if (!optional.includes(key)) return false;
  }
  return found === required.length;
}
