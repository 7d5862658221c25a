// Refusals on a saturated server (issue 50): with every request slot taken, a request of the wrong
// shape is still its 400 (the shape checks run before admission), and a well-formed call is shed
// with exactly one OVERLOADED error and Retry-After, however many steps or fields it carries. The
// server's one slot is held by a start blocked in the database by a table lock, not by timing.
import { expect, it } from 'vitest';
import { type TestApp, useApp } from '../support/app.ts';
import { postGraphql } from '../support/http.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
useApp((app) => (t = app), { MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUED_PER_KEY: '0' });

const post = (query: string, variables: Record<string, unknown>, token: string) => postGraphql(t.url, query, variables, token);

const OVER_NODE_LIMIT = 'query($n: Int, $m: Int) { episodes(first: $n) { edges { node { id steps(first: $m) { edges { node { id } } } } } } }';
const LOG = 'mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { ... on LogStepsPayload { accepted } } }';

it('answers shape refusals with 400 and sheds a well-formed call with one OVERLOADED error while every slot is taken', async () => {
  const other = await t.addTenant('saturated-other');
  const started = await t.gql('mutation { startEpisode(input: { taskDescription: "s", taskType: "t" }) { ... on StartEpisodePayload { episode { id } } } }');
  const episodeId = (started.data as Json).startEpisode.episode.id;
  const lock = await t.services.db.pool.connect();
  await lock.query('BEGIN');
  await lock.query('LOCK TABLE ledger_events IN ACCESS EXCLUSIVE MODE');
  const held = t.gql('mutation { startEpisode(input: { taskDescription: "held", taskType: "t" }) { __typename } }');
  try {
    const root = t.url.replace(/\/graphql$/, '');
    while ((await fetch(`${root}/readyz`)).status !== 503) await new Promise((r) => setTimeout(r, 10));
    const tooMany = await post(OVER_NODE_LIMIT, { n: 100, m: 1000 }, other.read);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors).toHaveLength(1);
    expect(tooMany.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    // yoga answers a parse failure 200 under application/json (as graphql-armor's refusals): its code, never OVERLOADED.
    const unparsed = await post('{ viewer { id ', {}, other.read);
    expect(unparsed.body.errors.map((e: Json) => e.extensions.code)).toEqual(['GRAPHQL_PARSE_FAILED']);
    const steps = Array.from({ length: 1000 }, (_, i) => ({ tool: `t${i}` }));
    for (const shed of [await post('{ viewer { id } }', {}, other.read), await post(LOG, { e: episodeId, s: steps }, t.keys.write)]) {
      expect(shed.status).toBe(503);
      expect(shed.retryAfter).toBe('1');
      expect(shed.body.errors).toHaveLength(1);
      expect(shed.body.errors[0].extensions).toMatchObject({ code: 'OVERLOADED', retryAfterMs: 1000 });
    }
  } finally {
    await lock.query('COMMIT');
    lock.release();
  }
  expect((await held).errors).toBeUndefined();
  expect((await post('{ viewer { id } }', {}, other.read)).status).toBe(200);
});
