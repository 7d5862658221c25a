// API keys: `epk_<prefix>_<secret>`. The prefix finds the row; only a hash of the secret is stored.
// Secrets are 256 random bits, so a fast hash is enough (no password stretching needed).
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { LimitViolation } from '../core/errors.ts';
import { must } from '../core/must.ts';

const SCOPES = ['read', 'write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

const TOKEN_PATTERN = /^epk_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

export interface GeneratedKey {
  token: string;
  prefix: string;
  secretHash: string;
}

export function hashSecret(secret: string): string {
  // crypto.hash: one call, no Hash object (every authenticated request hashes its key's secret).
  return hash('sha256', secret, 'hex');
}

export function generateApiKey(): GeneratedKey {
  const prefix = randomBytes(8).toString('hex').slice(0, 12);
  const secret = randomBytes(32).toString('base64url');
  return { token: `epk_${prefix}_${secret}`, prefix, secretHash: hashSecret(secret) };
}

export function parseToken(token: string): { prefix: string; secret: string } | null {
  const m = TOKEN_PATTERN.exec(token);
  return m ? { prefix: must(m[1]), secret: must(m[2]) } : null;
}

function secretMatches(secret: string, storedHash: string): boolean {
  // The digest as bytes: no hex text made to be decoded again (every authenticated request checks one).
  const a = hash('sha256', secret, 'buffer');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** admin implies write implies read. */
export function grantsScope(held: readonly string[], wanted: Scope): boolean {
  const rank = (s: string) => SCOPES.indexOf(s as Scope);
  return held.some((s) => rank(s) >= rank(wanted));
}

function parseScopes(input: readonly string[]): Scope[] | { invalid: string[] } {
  const invalid = input.filter((s) => !SCOPES.includes(s as Scope));
  if (invalid.length) return { invalid };
  return [...new Set(input)] as Scope[];
}

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** A new key's name and scopes, checked alike for the API and the operator CLI: the scopes to grant, or what is wrong. */
export function checkKeyRequest(name: string, requested: readonly string[]): { scopes: Scope[]; violations: LimitViolation[] } {
  const violations: LimitViolation[] = [];
  const parsed = parseScopes(requested);
  const scopes = 'invalid' in parsed ? [] : parsed;
  if ('invalid' in parsed) {
    violations.push({
      field: 'scopes',
      limit: 'read | write | admin',
      actual: parsed.invalid.join(','),
      message: `unknown scopes: ${parsed.invalid.join(', ')}`,
    });
  } else if (!scopes.length) {
    violations.push({ field: 'scopes', limit: 'at least 1', actual: '0', message: 'a key needs at least one scope' });
  }
  if (name.trim().length < 1 || name.length > 200 || CONTROL_CHARACTER.test(name)) {
    violations.push({
      field: 'name',
      limit: '1..200 characters, no control characters',
      actual: String(name.length),
      message: 'name must have 1 to 200 characters and no control characters',
    });
  }
  return { scopes, violations };
}

/** An expiry (of a key, a lease) must lie in the future: one already past would make a thing born dead. */
export function pastExpiryViolations(field: string, expiresAt: Date | null | undefined, now: Date): LimitViolation[] {
  if (!expiresAt || expiresAt.getTime() > now.getTime()) return [];
  return [{ field, limit: `after ${now.toISOString()}`, actual: expiresAt.toISOString(), message: `${field} must be in the future` }];
}

/** Reads `Authorization: Bearer <token>` (or a bare token, as WebSocket clients often send). */
export function tokenFromHeader(header: string | null | undefined): string | null {
  if (!header) return null;
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? must(m[1]) : header.trim() || null;
}

export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired';

export interface StoredKey {
  id: string;
  tenantId: string;
  secretHash: string;
  scopes: string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** Decides whether a presented secret opens a stored key at `now`. */
export function checkKey(key: StoredKey | null, secret: string, now: Date): AuthFailure | null {
  if (!key || !secretMatches(secret, key.secretHash)) return 'unknown';
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  return null;
}

export const AUTH_FAILURE_MESSAGES: Record<AuthFailure, string> = {
  missing: 'Authentication required: send "Authorization: Bearer <api key>" (WebSocket: {"authorization": "Bearer <api key>"} in connection_init).',
  malformed: 'The API key is malformed: expected epk_<12 chars>_<43 chars>.',
  unknown: 'The API key is not valid.',
  revoked: 'The API key has been revoked.',
  expired: 'The API key has expired.',
};
