/**
 * Redacted copy of step parameters (arguments redacted): the journal keeps the shape of what a
 * tool was called with, minus credentials. The exact arguments are covered by args_hash instead.
 *
 * A key matches a listed key when, both lowercased and stripped of '-' and '_', the key ends with
 * the listed one: 'API-Key' and 'apiKey' match 'api_key', 'github_token' matches 'token'.
 * ('max_tokens' does not match 'token'.) The whole value under a matching key is replaced,
 * whatever its type, so nested secrets cannot leak.
 */

export const DEFAULT_REDACTED_KEYS: readonly string[] = [
  'password',
  'passwd',
  'token',
  'secret',
  'api_key',
  'apikey',
  'authorization',
  'access_token',
  'refresh_token',
  'private_key',
  'cookie',
];

export const REDACTED = '[REDACTED]';

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

/** Whether `key` names a secret according to `keys` (matching rules in the file comment). */
export function isRedactedKey(key: string, keys: readonly string[] = DEFAULT_REDACTED_KEYS): boolean {
  return matcherFor(keys)(key);
}

/** Deep copy of `value` with the values of matching keys replaced by '[REDACTED]'; input untouched. */
export function redact(value: unknown, keys: readonly string[] = DEFAULT_REDACTED_KEYS): unknown {
  return redactWith(value, matcherFor(keys));
}

function matcherFor(keys: readonly string[]): (key: string) => boolean {
  // An empty listed key would match every key: drop it.
  const suffixes = keys.map(normalizeKey).filter((suffix) => suffix.length > 0);
  return (key) => {
    const normalized = normalizeKey(key);
    return suffixes.some((suffix) => normalized.endsWith(suffix));
  };
}

function redactWith(value: unknown, isSecret: (key: string) => boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => redactWith(item, isSecret));
  if (value === null || typeof value !== 'object') return value;
  // fromEntries defines own properties, so a '__proto__' key stays data, never a prototype.
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, isSecret(key) ? REDACTED : redactWith(item, isSecret)]));
}
