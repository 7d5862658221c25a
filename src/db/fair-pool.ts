// The pool's connections shared fairly between tenants and keys: pg-pool hands free connections to
// waiters first come, first served, so one key's hundred queries queued in front of another key's
// one. Here every checkout (pool.connect, and pool.query, which checks out through it) first takes a
// turn from a FairQueue with as many slots as the pool has connections, by the caller the request
// scope names (src/http/admission.ts marks it); work outside any request (jobs, group commit) is one
// caller of its own. The pool itself then never has waiters.
import type pg from 'pg';
import { FairQueue, type Release } from '../core/fair-queue.ts';
import { requestScope } from '../log.ts';

/** pg-pool's message for a checkout that waited connectionTimeoutMillis: errors.ts reads it as saturation. */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';
const SYSTEM = 'system';

type ConnectCallback = (err: Error | undefined, client?: pg.PoolClient, done?: (release?: Error | boolean) => void) => void;

export function shareConnectionsFairly(pool: pg.Pool, connections: number, waitMs: number): void {
  const turns = new FairQueue({ capacity: connections, perKey: connections, queuedPerKey: Number.MAX_SAFE_INTEGER, waitMs });
  const checkout = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const checkoutWith = pool.connect.bind(pool) as (callback: ConnectCallback) => void;
  /** A checkout after the caller's turn came (a wait; a refusal reads as pg-pool's own timeout). */
  const connectAfter = async (turn: Promise<Release>): Promise<pg.PoolClient> => {
    const release = await turn.catch(() => {
      throw new Error(POOL_WAIT_TIMEOUT);
    });
    try {
      return withTurn(await checkout(), release);
    } catch (err) {
      release();
      throw err;
    }
  };
  const connect = (callback?: ConnectCallback) => {
    const scope = requestScope.getStore();
    const turn = turns.claim(scope?.tenantId ?? SYSTEM, scope?.keyId ?? SYSTEM);
    // pool.query asks with a callback: when a turn is free now, the checkout goes straight to
    // pg-pool's own callback form (no promise on a read's way to its connection).
    if (callback && !(turn instanceof Promise)) {
      checkoutWith((err, c) => {
        if (err || !c) {
          turn();
          callback(err);
          return;
        }
        const client = withTurn(c, turn);
        callback(undefined, client, client.release);
      });
      return undefined;
    }
    const client = connectAfter(Promise.resolve(turn));
    if (!callback) return client;
    client.then(
      (c) => callback(undefined, c, c.release),
      (err: Error) => callback(err),
    );
    return undefined;
  };
  pool.connect = connect as pg.Pool['connect'];
}

/** The client gives its turn back when it goes back to the pool (or is destroyed). */
function withTurn(client: pg.PoolClient, release: Release): pg.PoolClient {
  const original = client.release;
  client.release = (err?: Error | boolean) => {
    client.release = original;
    release();
    return original.call(client, err);
  };
  return client;
}
