// /metrics gauges at their exact values: this file's server has no other clients, so the number
// of open sockets, live subscriptions and group-committed steps is known at each point.
import type { Client } from 'graphql-ws';
import { expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { type TestApp, useApp } from '../support/app.ts';

let t: TestApp;
useApp((app) => (t = app));

async function metrics(): Promise<(name: string) => number> {
  // /metrics needs an admin key (or METRICS_TOKEN).
  const res = await fetch(t.url.replace('/graphql', '/metrics'), { headers: { authorization: `Bearer ${t.keys.admin}` } });
  expect(res.status).toBe(200);
  const lines = (await res.text()).split('\n');
  return (name) => {
    const line = lines.find((l) => l.startsWith(`${name} `));
    expect(line, name).toBeDefined();
    return Number(must(line).split(' ').at(-1));
  };
}

/** A connected client. */
async function connected(): Promise<Client> {
  const client = t.wsClient(t.keys.read);
  await new Promise<void>((resolve) => client.on('connected', () => resolve()));
  return client;
}

/** A live-only ledger subscription; `delivered` is set by its first event. */
function liveSubscription(client: Client): { delivered: boolean } {
  const state = { delivered: false };
  client.subscribe(
    { query: 'subscription { ledgerEvents { seq } }' },
    { next: () => (state.delivered = true), error: () => undefined, complete: () => undefined },
  );
  return state;
}

const START = 'mutation { startEpisode(input: { taskDescription: "gauges", taskType: "t" }) { ... on StartEpisodePayload { episode { id } } } }';

/** Reads /metrics until `done` holds for it (the server learns of a closed socket asynchronously). */
async function metricsWhen(done: (m: (name: string) => number) => boolean): Promise<(name: string) => number> {
  // Until a deadline, not a count of attempts: each attempt takes longer on a busy machine.
  for (const deadline = Date.now() + 30_000; ; ) {
    const m = await metrics();
    if (done(m) || Date.now() > deadline) return m;
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('reports exactly the open sockets, live subscriptions and steps committed', async () => {
  const idle = await metrics();
  expect([idle('episodic_open_websockets'), idle('episodic_active_subscriptions'), idle('episodic_graphql_requests_in_flight')]).toEqual([0, 0, 0]);

  const [first, second] = [await connected(), await connected()];
  const subscriptions = [liveSubscription(first), liveSubscription(first), liveSubscription(second)];
  // A subscription that received a live event is registered with the bus. Events are written
  // until each has one, as a subscribe message may reach the server after the first write.
  let started = await t.gql(START);
  while (!subscriptions.every((s) => s.delivered)) {
    await new Promise((r) => setTimeout(r, 50));
    started = await t.gql(START);
  }

  const before = await metrics();
  expect(before('episodic_open_websockets')).toBe(2);
  expect(before('episodic_active_subscriptions')).toBe(3);

  const logged = await t.gql('mutation($e: ID!) { logSteps(episodeId: $e, steps: [{ tool: "a" }, { tool: "b" }, { tool: "c" }]) { __typename } }', {
    e: started.data.startEpisode.episode.id,
  });
  expect(logged.data.logSteps.__typename).toBe('LogStepsPayload');
  const after = await metrics();
  expect(after('episodic_group_commit_rows_sum') - before('episodic_group_commit_rows_sum')).toBe(3);
  expect(after('episodic_group_commit_requests_count') - before('episodic_group_commit_requests_count')).toBe(1);
  expect(after('episodic_ingest_waiting_steps')).toBe(0);

  await first.dispose();
  const closed = await metricsWhen((m) => m('episodic_open_websockets') < 2 && m('episodic_active_subscriptions') < 3);
  expect(closed('episodic_open_websockets')).toBe(1);
  expect(closed('episodic_active_subscriptions')).toBe(1);
});
