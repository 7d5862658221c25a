// /metrics: Prometheus text with yoga's request metrics and our operational gauges.
import { expect, it } from 'vitest';
import { type TestApp, useApp } from '../support/app.ts';

let t: TestApp;
useApp((app) => (t = app));

function value(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.split(' ').at(-1)) : NaN;
}

it('serves sockets, subscriptions, queue depth, group-commit batches and request metrics', async () => {
  const started = await t.gql('mutation { startEpisode(input: { taskDescription: "m", taskType: "t" }) { ... on StartEpisodePayload { episode { id } } } }');
  await t.gql('mutation($e: ID!) { logSteps(episodeId: $e, steps: [{ tool: "a" }, { tool: "b" }]) { __typename } }', {
    e: started.data.startEpisode.episode.id,
  });
  // A subscription replaying from seq 0 is live once its first event arrives (not after a fixed wait).
  const ws = t.wsClient(t.keys.read);
  await new Promise<void>((resolve, reject) => {
    ws.subscribe({ query: 'subscription { ledgerEvents(afterSeq: 0) { seq } }' }, { next: () => resolve(), error: reject, complete: () => undefined });
  });
  // /metrics needs an admin key (or METRICS_TOKEN): it shows every tenant's traffic.
  const res = await fetch(t.url.replace('/graphql', '/metrics'), { headers: { authorization: `Bearer ${t.keys.admin}` } });
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(value(text, 'episodic_open_websockets')).toBeGreaterThanOrEqual(1);
  expect(value(text, 'episodic_active_subscriptions')).toBeGreaterThanOrEqual(1);
  expect(value(text, 'episodic_group_commit_rows_sum')).toBeGreaterThanOrEqual(2);
  expect(value(text, 'episodic_group_commit_requests_count')).toBeGreaterThanOrEqual(1);
  expect(text).toMatch(/episodic_job_queue_depth\{queue="episode-deadline"\} \d+/);
  expect(text).toContain('graphql_envelop_request_duration');
  expect(value(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
});
