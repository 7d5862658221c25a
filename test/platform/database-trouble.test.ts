// How the server tells load from an outage (src/db/errors.ts databaseTrouble, used by its error
// masking): a connection that could not be opened in time while the database kept answering other
// queries is load (OVERLOADED), the same timeout with a database that answers nothing is an outage
// (DATABASE_UNAVAILABLE), and so is a refused connection. A TCP proxy in front of the run's
// PostgreSQL holds back new connections (it accepts them and forwards nothing), as a database (or a
// process) too busy to finish a handshake does; the connections it already forwards keep working.
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { databaseTrouble } from '../../src/db/errors.ts';
import { serverUrl } from '../support/db.ts';

/** Short, so the timeouts below cost little; the classification does not depend on its length. */
const CONNECT_TIMEOUT_MS = 500;

interface StallingProxy {
  url: string;
  /** New connections from now on are accepted and never forwarded. */
  stallNew(): void;
  close(): Promise<void>;
}

async function stallingProxy(target: URL): Promise<StallingProxy> {
  let stalling = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    sockets.add(inbound);
    inbound.on('error', () => undefined);
    if (stalling) return;
    const outbound = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(outbound);
    outbound.on('error', () => inbound.destroy());
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    stallNew: () => (stalling = true),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The error a new connection of `db` fails with. */
async function connectError(db: Database): Promise<unknown> {
  const err = await db.pool.connect().then(
    (client) => client.release(),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return err;
}

let proxy: StallingProxy;
const opened: Database[] = [];
const open = (url: string) => {
  const db = createDatabase(url, 3, CONNECT_TIMEOUT_MS);
  opened.push(db);
  return db;
};

beforeAll(async () => {
  proxy = await stallingProxy(new URL(serverUrl()));
});
afterAll(async () => {
  await Promise.all(opened.map((db) => db.pool.end().catch(() => undefined)));
  await proxy.close();
});

it('a connection not opened in time while the database answers other queries is load (OVERLOADED)', async () => {
  const db = open(proxy.url);
  let working = await db.pool.connect();
  proxy.stallNew();
  // The pool's one open connection is busy, so this attempt opens a new one, which the proxy holds.
  const attempt = connectError(db);
  let settled = false;
  void attempt.finally(() => (settled = true));
  // Meanwhile the open connection keeps answering, checked out and released as requests do.
  while (!settled) {
    await working.query('SELECT 1');
    working.release();
    working = await db.pool.connect();
  }
  working.release();
  const err = await attempt;
  expect(String(err)).toMatch(/connection timeout/);
  expect(db.answeredRecently()).toBe(true);
  expect(databaseTrouble(err, db.answeredRecently())).toBe('saturated');
});

it('the same timeout with a database that answered nothing is an outage (DATABASE_UNAVAILABLE)', async () => {
  const db = open(proxy.url); // the proxy stalls every new connection now
  const err = await connectError(db);
  expect(String(err)).toMatch(/connection timeout/);
  expect(db.answeredRecently()).toBe(false);
  expect(databaseTrouble(err, db.answeredRecently())).toBe('unavailable');
});

it('a refused connection is an outage; an ordinary SQL error is neither', async () => {
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const refused = await connectError(open(`postgresql://postgres@127.0.0.1:${port}/postgres`));
  expect(databaseTrouble(refused, false)).toBe('unavailable');
  const db = open(serverUrl());
  const syntax = await db.pool.query('SELEC 1').catch((e: unknown) => e);
  expect(databaseTrouble(syntax, db.answeredRecently())).toBeNull();
});
