// The pure classification behind the server's OVERLOADED / DATABASE_UNAVAILABLE answers
// (src/db/errors.ts), with errors shaped as pg, pg-pool and Prisma raise them. The connect-timeout
// cases against a real PostgreSQL are in test/platform/database-trouble.test.ts.
import { describe, expect, it } from 'vitest';
import { databaseTrouble } from '../../src/db/errors.ts';

const coded = (message: string, code: string) => Object.assign(new Error(message), { code });
/** As pg-pool reports a new connection whose handshake outlasted connectionTimeoutMillis. */
const connectTimeout = () => new Error('Connection terminated due to connection timeout', { cause: new Error('Connection terminated') });
/** As Prisma and GraphQL wrap a driver error. */
const wrapped = (cause: unknown) => new Error('Invalid `prisma.episode.findMany()` invocation', { cause });

describe('databaseTrouble', () => {
  it('calls a pool checkout timeout, too many connections and Prisma pool timeout load, whatever else is known', () => {
    for (const recently of [true, false]) {
      expect(databaseTrouble(new Error('timeout exceeded when trying to connect'), recently)).toBe('saturated');
      expect(databaseTrouble(coded('sorry, too many clients already', '53300'), recently)).toBe('saturated');
      expect(databaseTrouble(wrapped(coded('Timed out fetching a new connection from the connection pool', 'P2024')), recently)).toBe('saturated');
    }
  });

  it('calls a connect timeout load while the database answers others, an outage when it answered nothing', () => {
    expect(databaseTrouble(connectTimeout(), true)).toBe('saturated');
    expect(databaseTrouble(wrapped(connectTimeout()), true)).toBe('saturated');
    expect(databaseTrouble(connectTimeout(), false)).toBe('unavailable');
  });

  it('calls refused, lost and shut-down connections an outage even while other queries were answered', () => {
    for (const err of [
      coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      new Error('Connection terminated unexpectedly'),
      coded('terminating connection due to administrator command', '57P01'),
      coded('the database system is starting up', '57P03'),
      wrapped(coded("Can't reach database server", 'P1001')),
    ]) {
      expect(databaseTrouble(err, true), String(err)).toBe('unavailable');
    }
  });

  it('leaves every other error alone', () => {
    expect(databaseTrouble(coded('duplicate key value violates unique constraint', '23505'), true)).toBeNull();
    expect(databaseTrouble(new Error('boom'), false)).toBeNull();
    expect(databaseTrouble('not an error', false)).toBeNull();
  });
});
