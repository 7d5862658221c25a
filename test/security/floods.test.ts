// Floods while others work: one key sends oversized bodies (sized and chunked), deep, wide, alias,
// directive and cost floods, batched-operation floods and oversized WebSocket messages, all at
// once, while another tenant's key runs an ordinary agent workload. Every flood request is refused
// with a clear, coded error and writes nothing; every request of the other key succeeds.
// (test/platform/hardening.test.ts checks each limit once, alone, and the per-key rate limit.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TenantKeys, type TestApp } from '../support/app.ts';
import { chunkedPost } from '../support/http.ts';
import { acked, type HttpAnswer, post, postRaw, rawSocket, Snapshotter, waitFor } from './support.ts';

const MAX_BODY = 64 * 1024;

let t: TestApp;
let attacker: TenantKeys;
let victim: TenantKeys;
let snapshots: Snapshotter;

beforeAll(async () => {
  t = await startTestApp({ MAX_BODY_BYTES: String(MAX_BODY), CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' });
  attacker = t.keys;
  victim = await t.addTenant('victim');
  snapshots = await Snapshotter.create(t.services.db.pool, { skipTables: ['ledger_checkpoints'], skipColumns: { api_keys: ['last_used_at'] } });
});
afterAll(() => t.stop());

/** A body without Content-Length, streamed past the body limit. */
function* oversizedChunks(bytes: number): Generator<string> {
  yield '{"query": "mutation { createWorkItem(title: \\"chunked\\") { __typename } }", "variables": {"pad": "';
  for (let sent = 0; sent < bytes; sent += 8 * 1024) yield 'x'.repeat(8 * 1024);
  yield '"}}';
}

let deep = 'id';
for (let i = 0; i < 20; i++) deep = `parentEpisode { ${deep} }`;

interface Attack {
  name: string;
  send(): Promise<HttpAnswer>;
  /** What the refusal must say. */
  expect: { status?: number; code: string; message: RegExp };
}

const WRITE = 'mutation { createWorkItem(title: "flood") { __typename } }';
const ATTACKS: Attack[] = [
  {
    name: 'oversized body',
    send: () => postRaw(t.url, JSON.stringify({ query: WRITE, variables: { pad: 'x'.repeat(MAX_BODY + 1) } }), attacker.write),
    expect: { status: 413, code: 'REQUEST_ENTITY_TOO_LARGE', message: /too large/i },
  },
  {
    name: 'oversized chunked body',
    send: async () => ({ ...(await chunkedPost(t.url, attacker.write, oversizedChunks(4 * MAX_BODY))), requestId: null }),
    expect: { status: 413, code: 'REQUEST_ENTITY_TOO_LARGE', message: /too large/i },
  },
  {
    name: 'deep query',
    send: () => post(t.url, `{ episodes(first: 1) { edges { node { ${deep} } } } }`, {}, attacker.read),
    expect: { code: 'GRAPHQL_VALIDATION_FAILED', message: /depth limit of \d+ exceeded/ },
  },
  {
    name: 'wide query (tokens)',
    send: () => post(t.url, `{ viewer { ${'id '.repeat(11_000)} } }`, {}, attacker.read),
    expect: { code: 'GRAPHQL_PARSE_FAILED', message: /Token limit of \d+ exceeded/ },
  },
  {
    name: 'wide query (one field repeated)',
    send: () => post(t.url, `{ viewer { ${'name '.repeat(3_000)} } }`, {}, attacker.read),
    expect: { code: 'GRAPHQL_VALIDATION_FAILED', message: /Validation aborted/ },
  },
  {
    name: 'alias flood',
    send: () =>
      post(t.url, `mutation { ${Array.from({ length: 200 }, (_, i) => `a${i}: createWorkItem(title: "x") { __typename }`).join(' ')} }`, {}, attacker.write),
    expect: { code: 'GRAPHQL_VALIDATION_FAILED', message: /Aliases limit of \d+ exceeded/ },
  },
  {
    name: 'directive flood',
    send: () => post(t.url, `{ viewer { id ${'@include(if: true) '.repeat(200)} } }`, {}, attacker.read),
    expect: { code: 'GRAPHQL_VALIDATION_FAILED', message: /Directives limit of \d+ exceeded/ },
  },
  {
    name: 'cost flood (nested connections)',
    send: () =>
      post(
        t.url,
        '{ episodes(first: 100) { edges { node { steps(first: 1000) { edges { node { id parameters } } } workItem { episodes(first: 100) { edges { node { steps(first: 1000) { edges { node { id } } } } } } } } } } }',
        {},
        attacker.read,
      ),
    expect: { code: 'GRAPHQL_VALIDATION_FAILED', message: /Cost limit of \d+ exceeded/i },
  },
  {
    name: 'batched operations',
    send: () => postRaw(t.url, JSON.stringify(Array.from({ length: 500 }, () => ({ query: WRITE }))), attacker.write),
    expect: { status: 400, code: 'BAD_REQUEST', message: /Batching is not supported/ },
  },
];

function checkRefusal(attack: Attack, res: HttpAnswer) {
  const what = `${attack.name}: ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`;
  if (attack.expect.status) expect(res.status, what).toBe(attack.expect.status);
  expect(res.body?.data ?? undefined, what).toBeUndefined();
  expect(res.body.errors?.[0]?.extensions?.code, what).toBe(attack.expect.code);
  expect(res.body.errors[0].message, what).toMatch(attack.expect.message);
}

/** An ordinary agent run of the victim: start, journal, read, complete. Each answer must be clean. */
async function victimRun(i: number): Promise<number> {
  const ok = async (query: string, variables: Record<string, unknown>, token = victim.write) => {
    const res = await post(t.url, query, variables, token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return res.body.data;
  };
  const start = await ok(
    'mutation($d: String!) { startEpisode(input: { taskDescription: $d, taskType: "flood" }) { ... on StartEpisodePayload { episode { id } } } }',
    { d: `run ${i}` },
  );
  const id = start.startEpisode.episode.id;
  const logged = await ok('mutation($id: ID!, $s: [StepInput!]!) { logSteps(episodeId: $id, steps: $s) { ... on LogStepsPayload { accepted } } }', {
    id,
    s: [
      { tool: 'sh', tokens: 3 },
      { tool: 'sh', tokens: 4 },
    ],
  });
  expect(logged.logSteps.accepted).toBe(2);
  await ok('{ episodes(first: 20) { edges { node { id status steps(first: 50) { edges { node { stepNumber } } } } } } }', {}, victim.read);
  const done = await ok(
    'mutation($id: ID!) { completeEpisode(episodeId: $id, outcome: { kind: SUCCESS, verdict: "ok" }) { ... on FinishEpisodePayload { episode { status } } } }',
    { id },
  );
  expect(done.completeEpisode.episode.status).toBe('COMPLETED');
  return 4;
}

describe('floods', () => {
  it('refuses every flood with a clear error while another key keeps working', async () => {
    const attackerBefore = await snapshots.take(attacker.tenantId);
    let victimDone = false;
    const refused = new Map<string, number>();
    const flood = async () => {
      // Each worker cycles through every attack until the victim's workload is done (at least twice).
      for (let round = 0; round < 2 || !victimDone; round++) {
        for (const attack of ATTACKS) {
          checkRefusal(attack, await attack.send());
          refused.set(attack.name, (refused.get(attack.name) ?? 0) + 1);
        }
      }
    };
    const victimWork = async () => {
      let requests = 0;
      try {
        for (let i = 0; i < 12; i++) requests += await victimRun(i);
      } finally {
        victimDone = true;
      }
      return requests;
    };
    const [requests] = await Promise.all([victimWork(), ...Array.from({ length: 6 }, flood)]);
    expect(requests).toBe(48);
    for (const attack of ATTACKS) expect(refused.get(attack.name), attack.name).toBeGreaterThanOrEqual(12);
    // The floods wrote nothing: every row of the attacker's tenant is as it was.
    expect(await snapshots.take(attacker.tenantId)).toEqual(attackerBefore);
    const health = await fetch(t.url.replace('/graphql', '/healthz'));
    expect(health.status).toBe(200);
    // Six flooding workers and the victim share 2 cores with the server: minutes when the machine is busy.
  }, 180_000);

  it('closes a WebSocket whose message passes the body limit (1009) without disturbing other sockets', async () => {
    const other = rawSocket(t.url, victim.read);
    await acked(other);
    const big = rawSocket(t.url, attacker.read);
    await acked(big);
    big.send({ id: '1', type: 'subscribe', payload: { query: '{ viewer { id } }', variables: { pad: 'x'.repeat(MAX_BODY + 1) } } });
    expect((await big.closed).code).toBe(1009);
    other.send({ id: 'v', type: 'subscribe', payload: { query: '{ viewer { id } }' } });
    const answer = await waitFor(() => other.messages.find((m) => m.id === 'v' && m.type === 'next'), 'the other socket to answer');
    expect(answer.payload.data.viewer.id).toBe(victim.tenantId);
    other.close();
  });

  it('answers over-limit operations on a WebSocket with an error on that operation; the socket stays usable', async () => {
    const s = rawSocket(t.url, attacker.read);
    await acked(s);
    const refusals = [
      { query: `{ episodes(first: 1) { edges { node { ${deep} } } } }`, code: 'GRAPHQL_VALIDATION_FAILED', message: /depth limit/ },
      { query: `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: viewer { id }`).join(' ')} }`, code: 'GRAPHQL_VALIDATION_FAILED', message: /Aliases limit/ },
      { query: `{ viewer { ${'id '.repeat(11_000)} } }`, code: 'GRAPHQL_PARSE_FAILED', message: /Token limit/ },
      { query: '{ viewer { ', code: 'GRAPHQL_PARSE_FAILED', message: /Syntax Error/ },
    ];
    for (const [i, r] of refusals.entries()) {
      s.send({ id: `r${i}`, type: 'subscribe', payload: { query: r.query } });
      const error = await waitFor(() => s.messages.find((m) => m.id === `r${i}`), `the refusal of r${i}`);
      expect(error.type).toBe('error');
      expect(error.payload[0].extensions.code).toBe(r.code);
      expect(error.payload[0].message).toMatch(r.message);
    }
    s.send({ id: 'ok', type: 'subscribe', payload: { query: '{ viewer { id } }' } });
    const answer = await waitFor(() => s.messages.find((m) => m.id === 'ok' && m.type === 'next'), 'an ordinary answer');
    expect(answer.payload.data.viewer.id).toBe(attacker.tenantId);
    expect(s.socket.readyState).toBe(s.socket.OPEN);
    s.close();
  });
});
