// Backpressure: when the ingestion buffer is full the server sheds work with a clear, retryable
// error instead of queueing without bound; every step it accepted is stored.
import { expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
useApp((app) => (t = app), { INGEST_MAX_PENDING_ROWS: '20', GROUP_COMMIT_WINDOW_MS: '300' });

it('refuses steps beyond the buffer with OVERLOADED (503) and stores every accepted one', async () => {
  const started = await t.gql(
    'mutation { startEpisode(input: { taskDescription: "flood", taskType: "t" }) { ... on StartEpisodePayload { episode { id } } } }',
  );
  const id = started.data.startEpisode.episode.id;
  const calls = Array.from({ length: 12 }, (_, i) =>
    fetch(t.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.keys.write}` },
      body: JSON.stringify({
        query: 'mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { ... on LogStepsPayload { accepted } } }',
        variables: { e: id, s: Array.from({ length: 5 }, (_, k) => ({ tool: `t${i}-${k}` })) },
      }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Json })),
  );
  const answers = await Promise.all(calls);
  const shed = answers.filter((a) => a.body.errors?.[0]?.extensions?.code === 'OVERLOADED');
  const accepted = answers.filter((a) => a.body.data?.logSteps?.accepted === 5);
  expect(shed.length).toBeGreaterThan(0);
  expect(must(shed[0]).status).toBe(503);
  expect(accepted.length + shed.length).toBe(12);
  const { rows } = await t.services.db.pool.query('SELECT count(*)::int AS n, max(step_number) AS top FROM steps WHERE episode_id = $1', [id]);
  expect(rows[0]).toEqual({ n: accepted.length * 5, top: accepted.length * 5 });
});
