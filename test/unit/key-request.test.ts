// What createApiKey and `episodic keys create` accept as a new key's name and scopes.
import { describe, expect, it } from 'vitest';
import { checkKeyRequest } from '../../src/auth/keys.ts';

describe('checkKeyRequest', () => {
  it('grants the named scopes once each', () => {
    expect(checkKeyRequest('ci-agent', ['write', 'read', 'write'])).toEqual({ scopes: ['write', 'read'], violations: [] });
  });

  it('names unknown scopes, and refuses an empty list', () => {
    expect(checkKeyRequest('k', ['read', 'root']).violations).toEqual([
      expect.objectContaining({ field: 'scopes', actual: 'root', message: 'unknown scopes: root' }),
    ]);
    expect(checkKeyRequest('k', []).violations).toEqual([expect.objectContaining({ field: 'scopes', limit: 'at least 1' })]);
  });

  it('refuses a blank, over-long or control-character name, with every problem at once', () => {
    for (const name of ['', '   ', 'x'.repeat(201), 'line\nbreak', 'bell\u0007', 'del\u007f']) {
      expect(checkKeyRequest(name, ['read']).violations.map((v) => v.field)).toEqual(['name']);
    }
    expect(checkKeyRequest('x'.repeat(200), ['read']).violations).toEqual([]);
    expect(checkKeyRequest('', ['nope']).violations.map((v) => v.field)).toEqual(['scopes', 'name']);
  });
});
