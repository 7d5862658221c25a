// Equivalent mutant, left alive: normalizeKey's toLowerCase() -> toUpperCase(). Both sides of the
// comparison are normalised the same way, so the verdict only differs for keys whose case
// mappings are not one-to-one ('ß' uppercases to 'SS'); no listed key or realistic parameter name
// is one, and neither folding is more right for them.
import { describe, expect, it } from 'vitest';
import { DEFAULT_REDACTED_KEYS, isRedactedKey, REDACTED, redact } from '../../src/steps/redact.ts';

describe('isRedactedKey', () => {
  // The list itself is pinned below ('lists the default keys of the brief').
  it.each([...DEFAULT_REDACTED_KEYS, 'PASSWORD'])('matches the listed key %s', (key) => expect(isRedactedKey(key)).toBe(true));

  it.each([
    'API-Key',
    'apiKey',
    'Api_Key',
    'x-api-key',
    'Authorization',
    'github_token',
    'GITHUB_TOKEN',
    'client_secret',
    'set-cookie',
    'privateKey',
    'refreshToken',
    'db_password',
  ])('matches the variant %s', (key) => expect(isRedactedKey(key)).toBe(true));

  it.each(['max_tokens', 'tokens', 'token_count', 'secretary_name', 'path', 'user', 'key', 'author', 'passwords'])('leaves %s alone', (key) =>
    expect(isRedactedKey(key)).toBe(false),
  );

  it('uses only the given keys', () => {
    expect(isRedactedKey('ssn', ['ssn'])).toBe(true);
    expect(isRedactedKey('password', ['ssn'])).toBe(false);
  });

  it('ignores an empty listed key instead of matching everything', () => {
    expect(isRedactedKey('path', ['', '-', 'ssn'])).toBe(false);
  });
});

describe('redact', () => {
  it('replaces values of matching keys at any depth, in objects inside arrays', () => {
    const input = {
      url: 'https://api.example.com',
      headers: { Authorization: 'Bearer abc', 'X-Api-Key': 'k-123', accept: 'json' },
      users: [
        { name: 'ann', password: 'hunter2' },
        { name: 'bob', github_token: 'ghp_x' },
      ],
      max_tokens: 512,
    };
    expect(redact(input)).toEqual({
      url: 'https://api.example.com',
      headers: { Authorization: REDACTED, 'X-Api-Key': REDACTED, accept: 'json' },
      users: [
        { name: 'ann', password: REDACTED },
        { name: 'bob', github_token: REDACTED },
      ],
      max_tokens: 512,
    });
  });

  it('replaces a whole object or array held by a matching key', () => {
    expect(redact({ secret: { nested: 'x' }, cookie: ['a', 'b'], token: null })).toEqual({
      secret: REDACTED,
      cookie: REDACTED,
      token: REDACTED,
    });
  });

  it('does not mutate the input and returns new containers', () => {
    const input = { a: { password: 'p' }, list: [{ token: 't' }] };
    const snapshot = structuredClone(input);
    const output = redact(input) as typeof input;
    expect(input).toEqual(snapshot);
    expect(output.a).not.toBe(input.a);
    expect(output.list).not.toBe(input.list);
  });

  it('passes primitives and top-level arrays through', () => {
    expect(redact('password')).toBe('password');
    expect(redact(42)).toBe(42);
    expect(redact(null)).toBeNull();
    expect(redact([1, { passwd: 'x' }])).toEqual([1, { passwd: REDACTED }]);
  });

  it('honours a custom key list', () => {
    expect(redact({ ssn: '123', password: 'p' }, ['ssn'])).toEqual({ ssn: REDACTED, password: 'p' });
  });

  it('keeps a __proto__ key as plain data', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "token": "t"}') as unknown;
    const output = redact(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.keys(output)).toEqual(['__proto__', 'token']);
    expect(output.token).toBe(REDACTED);
  });

  it('lists the default keys of the brief', () => {
    expect(DEFAULT_REDACTED_KEYS).toEqual([
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
    ]);
  });
});
