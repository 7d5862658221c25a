// A key already over its admission queue is refused before its request's body is read (issue 50;
// src/http/refusal-before-body.ts): one OVERLOADED answer with Retry-After, sent while the body is
// still on its way, so a flood's refusals cost no parse. Another tenant meanwhile gets its shape
// refusal (400 over the node limit) and its answers. The key's slot is held by a start blocked in
// the database by a table lock, its one queue place by a second start, not by timing.
import net from 'node:net';
import { expect, it } from 'vitest';
import { type TenantKeys, type TestApp, useApp } from '../support/app.ts';
import { postGraphql } from '../support/http.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
let other: TenantKeys;
useApp(
  async (app) => {
    t = app;
    other = await app.addTenant('before-body-other');
  },
  { MAX_CONCURRENT_REQUESTS: '4', MAX_REQUESTS_PER_KEY: '1', MAX_QUEUED_PER_KEY: '1', ADMISSION_WAIT_MS: '20000' },
  { overSocket: true },
);

const START = 'mutation { startEpisode(input: { taskDescription: "held", taskType: "t" }) { __typename } }';
const OVER_NODE_LIMIT = 'query($n: Int, $m: Int) { episodes(first: $n) { edges { node { id steps(first: $m) { edges { node { id } } } } } } }';

/** A POST that declares a 200-byte body and sends 10 bytes of it: what is answered within `ms`, else null. */
function answerToHalfSent(url: string, token: string, ms: number): Promise<string | null> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname, () => {
      socket.write(
        `POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${token}\r\nContent-Length: 200\r\n\r\n{"query":"`,
      );
    });
    let answer = '';
    const done = (value: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    socket.on('data', (d) => {
      answer += d;
      if (/\r\n\r\n[\s\S]*\}\]\}$/.test(answer)) done(answer);
    });
    socket.on('error', reject);
    const timer = setTimeout(() => done(null), ms);
  });
}

const post = (query: string, variables: Record<string, unknown>, token: string) => postGraphql(t.url, query, variables, token);

it("refuses a key over its queue before reading the body, with one OVERLOADED and Retry-After, while another tenant's shape refusal is its 400", async () => {
  const lock = await t.services.db.pool.connect();
  await lock.query('BEGIN');
  await lock.query('LOCK TABLE ledger_events IN ACCESS EXCLUSIVE MODE');
  const held = t.gql(START, {}, t.keys.write);
  const queued = t.gql(START, {}, t.keys.write);
  try {
    // Until the second start waits in the key's one queue place, a half-sent POST waits for its body.
    let answer: string | null = null;
    for (let i = 0; i < 50 && !answer; i++) answer = await answerToHalfSent(t.url, t.keys.write, 200);
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/\r\nretry-after: 1\r\n/i);
    const body = JSON.parse((answer ?? '').split('\r\n\r\n')[1] ?? '') as Json;
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions).toMatchObject({ code: 'OVERLOADED', retryAfterMs: 1000, limit: 1 });
    expect(body.errors[0].message).toContain('MAX_QUEUED_PER_KEY');
    // A whole request of the same key: the same one answer.
    const shed = await post('{ viewer { id } }', {}, t.keys.write);
    expect(shed.status).toBe(503);
    expect(shed.retryAfter).toBe('1');
    expect(shed.body.errors).toHaveLength(1);
    expect(shed.body.errors[0].extensions.code).toBe('OVERLOADED');
    // Another tenant: its bad request is its 400, its good one is answered.
    const tooMany = await post(OVER_NODE_LIMIT, { n: 100, m: 1000 }, other.read);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors.map((e: Json) => e.extensions.code)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect((await post('{ viewer { name } }', {}, other.read)).body.data.viewer.name).toBe('before-body-other');
  } finally {
    await lock.query('COMMIT');
    lock.release();
  }
  expect((await held).errors).toBeUndefined();
  expect((await queued).errors).toBeUndefined();
  // The queue has room again: the key's requests are read and checked for shape first.
  expect((await post(OVER_NODE_LIMIT, { n: 100, m: 1000 }, t.keys.write)).status).toBe(400);
});
