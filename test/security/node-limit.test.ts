// The node limit (MAX_NODES, src/http/node-limit.ts) through the real server: a request whose
// nested pages may return more nodes than the limit is refused with GRAPHQL_VALIDATION_FAILED and
// reads no row, over HTTP and over graphql-ws, with page sizes from variables, defaults and
// fragments; a request at the limit passes; another key's traffic keeps working meanwhile.
// Page sizes are passed as variables, as the client library and the monitor pass them:
// graphql-armor's cost limit multiplies literal first/last values (so it refuses the literal
// 100 x 1,000 first, checked below) but sees neither variables nor default page sizes.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { delay } from '../../src/core/delay.ts';
import { requestScope } from '../../src/log.ts';
import { startTestApp, type TenantKeys, type TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { acked, post, rawSocket, waitFor } from './support.ts';

let t: TestApp;
let victim: TenantKeys;
let episodeId: string;

/**
 * SQL statements this process sends for a request (HTTP or graphql-ws) that read episodes or steps
 * (Prisma and raw SQL share pg). The server's own jobs are left out: the deadline and learning
 * sweeps read episodes every minute, outside any request, and on a busy machine a test spanning a
 * minute boundary counted the sweep's read as the refused request's.
 */
const reads: string[] = [];
const READS_ROWS = /\bFROM\s+"?(public"?\."?)?"?(episodes|steps)"?/i;

beforeAll(async () => {
  // Over the socket, as attackers come: in process, two tight request loops resolved in promises
  // alone and held up the event loop's I/O, so the victim's database answers waited behind them.
  t = await startTestApp({ CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' }, { overSocket: true });
  victim = await t.addTenant('node-limit-victim');
  const started = await t.gql<Json>(
    'mutation { startEpisode(input: { taskDescription: "node limit", taskType: "limits" }) { ... on StartEpisodePayload { episode { id } } } }',
    {},
    t.keys.write,
  );
  episodeId = started.data?.startEpisode.episode.id;
  const logged = await t.gql<Json>(
    'mutation($id: ID!) { logSteps(episodeId: $id, steps: [{ tool: "sh" }, { tool: "sh" }]) { ... on LogStepsPayload { accepted } } }',
    { id: episodeId },
    t.keys.write,
  );
  expect(logged.data?.logSteps.accepted).toBe(2);
  const original = pg.Client.prototype.query;
  vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: Parameters<typeof original>) {
    const [config] = args;
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | undefined)?.text;
    if (requestScope.getStore() && typeof text === 'string' && READS_ROWS.test(text)) reads.push(text);
    return Reflect.apply(original, this, args);
  } as typeof original);
});
afterAll(async () => {
  vi.restoreAllMocks();
  await t.stop();
});
afterEach(() => {
  reads.length = 0;
});

const STEPS = (n: number | string) => `steps(first: ${n}) { edges { node { id stepNumber observation result } } }`;
const NESTED = `query($n: Int, $m: Int) { episodes(first: $n) { edges { node { id ${STEPS('$m')} } } } }`;
const TOO_MANY = { n: 100, m: 1000 };
/** 100 + 100 x 99 nodes: exactly the limit. */
const AT_LIMIT = { n: 100, m: 99 };
const MESSAGE = 'This request may return 100,100 nodes (episodes.edges.node.steps: 100 x 1,000); the limit is 10,000. Ask for smaller pages.';

function expectRefused(res: { status: number; body: Json }, message: string | RegExp) {
  const what = JSON.stringify(res.body)?.slice(0, 400);
  expect(res.status, what).toBe(400);
  expect(res.body?.data ?? undefined, what).toBeUndefined();
  expect(res.body.errors?.[0]?.extensions?.code, what).toBe('GRAPHQL_VALIDATION_FAILED');
  expect(res.body.errors[0].message, what).toMatch(message);
}

describe('the node limit over HTTP', () => {
  it('defaults to 10,000 nodes', () => {
    expect(t.services.config.armor.maxNodes).toBe(10_000);
  });

  it('refuses 100 episodes x 1,000 steps, naming the count, the biggest field and the limit, and reads nothing', async () => {
    const res = await post(t, NESTED, TOO_MANY, t.keys.read);
    expectRefused(res, MESSAGE);
    expect(res.body.errors[0].message).toBe(MESSAGE);
    expect(res.body.errors[0].extensions).toMatchObject({ limit: 10_000, actual: 100_100, field: 'episodes.edges.node.steps' });
    expect(reads).toEqual([]);
  });

  it('serves a request at the limit (100 + 100 x 99 = 10,000 nodes), which does read', async () => {
    const res = await post(t, NESTED, AT_LIMIT, t.keys.read);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const [edge] = res.body.data.episodes.edges;
    expect(edge.node.id).toBe(episodeId);
    expect(edge.node.steps.edges).toHaveLength(2);
    expect(reads.length).toBeGreaterThan(0);
  });

  it('counts default page sizes (steps: 50) and refuses the literal 100 x 1,000 too (graphql-armor cost limit, first)', async () => {
    const defaults = `query($n: Int) { a: episodes(first: $n) { edges { node { id steps { edges { node { id } } } } } }
      b: episodes(first: $n) { edges { node { id steps { edges { node { id } } } } } } }`;
    // Two aliases of 100 + 100 x 50: 10,200.
    expectRefused(await post(t, defaults, { n: 100 }, t.keys.read), /^This request may return 10,200 nodes \(a\.edges\.node\.steps: 100 x 50\)/);
    const literal = await post(t, `{ episodes(first: 100) { edges { node { id ${STEPS(1000)} } } } }`, {}, t.keys.read);
    // graphql-armor's refusals are answered with 200 (a validation error); the node limit's with 400.
    expect(literal.body.data).toBeUndefined();
    expect(literal.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(literal.body.errors[0].message).toMatch(/Cost limit of 500000 exceeded/);
    expect(reads).toEqual([]);
  });

  it('counts a copy made by a fragment spread', async () => {
    const fragments = `fragment Page on Query { again: episodes(first: $n) { edges { node { ...Steps } } } }
      fragment Steps on Episode { ${STEPS('$m')} }`;
    // One page: 100 + 6,000 nodes. Two (the second spread from a fragment): 12,200.
    const one = await post(t, `query($n: Int, $m: Int) { ...Page } ${fragments}`, { n: 100, m: 60 }, t.keys.read);
    expect(one.body.errors, JSON.stringify(one.body.errors)).toBeUndefined();
    reads.length = 0;
    const two = await post(
      t,
      `query($n: Int, $m: Int) { episodes(first: $n) { edges { node { ...Steps } } } ...Page } ${fragments}`,
      { n: 100, m: 60 },
      t.keys.read,
    );
    expectRefused(two, /^This request may return 12,200 nodes \((again|episodes)\.edges\.node\.steps: 100 x 60\); the limit is 10,000\./);
    expect(reads).toEqual([]);
  });
});

describe('the node limit over graphql-ws', () => {
  const SUBSCRIPTION = `subscription($id: ID!, $n: Int, $m: Int) { episodeUpdated(id: $id) { workItem { episodes(first: $n) { edges { node { ${STEPS('$m')} } } } } } }`;

  it('refuses a query and a subscription on that operation, with the same code and message; the socket stays usable', async () => {
    const s = rawSocket(t.url, t.keys.read);
    await acked(s);
    s.send({ id: 'q', type: 'subscribe', payload: { query: NESTED, variables: TOO_MANY } });
    s.send({ id: 's', type: 'subscribe', payload: { query: SUBSCRIPTION, variables: { id: episodeId, ...TOO_MANY } } });
    for (const [id, field] of [
      ['q', 'episodes.edges.node.steps'],
      ['s', 'episodeUpdated.workItem.episodes.edges.node.steps'],
    ]) {
      const answer = await waitFor(() => s.messages.find((m) => m.id === id), `the refusal of ${id}`);
      expect(answer.type, JSON.stringify(answer)).toBe('error');
      expect(answer.payload[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(answer.payload[0].extensions.field).toBe(field);
      expect(answer.payload[0].message).toMatch(/^This request may return 100,100 nodes \(.*: 100 x 1,000\); the limit is 10,000\. Ask for smaller pages\.$/);
    }
    expect(reads).toEqual([]);
    s.send({ id: 'ok', type: 'subscribe', payload: { query: NESTED, variables: AT_LIMIT } });
    const ok = await waitFor(() => s.messages.find((m) => m.id === 'ok' && m.type === 'next'), 'an ordinary answer');
    expect(ok.payload.errors).toBeUndefined();
    expect(ok.payload.data.episodes.edges).toHaveLength(1);
    s.close();
  });

  it('refuses through the graphql-ws client', async () => {
    const client = t.wsClient(t.keys.read);
    const error = await new Promise<unknown>((resolve, reject) => {
      client.subscribe(
        { query: SUBSCRIPTION, variables: { id: episodeId, ...TOO_MANY } },
        { next: (r) => reject(new Error(`answered: ${JSON.stringify(r)}`)), error: resolve, complete: () => reject(new Error('completed without a refusal')) },
      );
    });
    const [first] = error as Array<{ message: string; extensions: Record<string, unknown> }>;
    expect(first?.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(first?.message).toMatch(/may return 100,100 nodes/);
    expect(reads).toEqual([]);
  });
});

/** How often the victim sends a request the loaded machine answered 503, waiting the Retry-After between. */
const VICTIM_ATTEMPTS = 6;
/** Ten 1,000-node reads beside two attackers took 60 s at load 24 on 2 cores. */
const UNDER_LOAD_MS = 180_000;

describe('the node limit under load', () => {
  it(
    "refuses one key's over-limit requests while another key's traffic succeeds",
    async () => {
      let victimDone = false;
      const attack = async () => {
        let refused = 0;
        for (let i = 0; i < 3 || !victimDone; i++) {
          expectRefused(await post(t, NESTED, TOO_MANY, t.keys.read), MESSAGE);
          refused += 1;
        }
        return refused;
      };
      // The attacker's requests never reach the database (refused at validation, keys cached), so a
      // 503 the victim sees is this machine's load (a connection not opened within its timeout), which
      // a client retries as the answer says; starvation would fail the retries as well.
      const victimCall = async () => {
        for (let attempt = 1; ; attempt++) {
          const res = await post(t, NESTED, { n: 20, m: 50 }, victim.read);
          if (res.status !== 503 || attempt === VICTIM_ATTEMPTS) return res;
          expect(res.body.errors?.[0]?.extensions?.code).toBe('OVERLOADED');
          await delay(Number(res.body.errors?.[0]?.extensions?.retryAfterMs ?? 1_000));
        }
      };
      const victimWork = async () => {
        try {
          for (let i = 0; i < 10; i++) {
            const res = await victimCall();
            expect(res.status, JSON.stringify(res.body)).toBe(200);
            expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
          }
        } finally {
          victimDone = true;
        }
      };
      const [refused] = await Promise.all([attack(), attack(), victimWork()]);
      expect(refused).toBeGreaterThanOrEqual(3);
    },
    UNDER_LOAD_MS,
  );
});
