// Subscriptions are refused when they are made, not at their first event, and a tenant sees only
// its own ledger through every subscription.
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/store.ts';
import { must } from '../../src/core/must.ts';
import { type TenantKeys, type TestApp, useApp } from '../support/app.ts';
import { LEDGER_EVENTS, logSteps, startEpisode, waitUntil, watch } from './support.ts';

let t: TestApp;
let b: TenantKeys;
useApp(async (app) => {
  t = app;
  b = await t.addTenant('tenant-b');
});

const EPISODE_UPDATED = 'subscription($id: ID!) { episodeUpdated(id: $id) { id stepCount } }';
const STEPS_LOGGED = 'subscription($id: ID!) { stepsLogged(episodeId: $id, afterSeq: 0) { seq steps { id } } }';

describe('refused at subscribe time', () => {
  it('closes a graphql-ws connection without a valid key in connection_init (4403), before any subscribe', async () => {
    for (const token of [null, `epk_aaaaaaaaaaaa_${'a'.repeat(43)}`]) {
      const w = watch(t.wsClient(token), LEDGER_EVENTS, { afterSeq: '0' });
      await waitUntil(() => w.done, 'the refusal');
      expect((w.error as { code?: number }).code).toBe(4403);
      expect(w.results).toEqual([]);
    }
  });

  it('refuses a key without the read scope when it subscribes, even with no event to deliver', async () => {
    const scopeless = await createApiKey(t.database.db.prisma, { tenantId: t.keys.tenantId, name: 'none', scopes: [] });
    const w = watch(t.wsClient(scopeless.token), LEDGER_EVENTS, {});
    await waitUntil(() => w.done, 'the refusal');
    expect(w.results).toHaveLength(1);
    expect(must(w.results[0]).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(w.values).toEqual([]);
  });

  it('answers an SSE subscription without a key with 401 at once', async () => {
    const res = await fetch(t.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: LEDGER_EVENTS, variables: {} }),
    });
    const text = await res.text(); // ends at once: nothing is tailed
    expect(res.status).toBe(401);
    expect(text).toContain('UNAUTHENTICATED');
  });
});

describe('tenant isolation', () => {
  it("never shows tenant A's events, episodes or steps to tenant B", async () => {
    const episodeA = await startEpisode(t);
    await logSteps(t, episodeA, 2);
    const clientB = t.wsClient(b.read);
    const all = watch(clientB, LEDGER_EVENTS, { afterSeq: '0' });
    const filtered = watch(clientB, LEDGER_EVENTS, { afterSeq: '0', filter: { episodeId: episodeA } });
    const updated = watch(clientB, EPISODE_UPDATED, { id: episodeA });
    const steps = watch(clientB, STEPS_LOGGED, { id: episodeA });

    await waitUntil(() => updated.done && steps.done, 'the episode subscriptions to be refused');
    for (const w of [updated, steps]) {
      expect(w.values).toEqual([]);
      expect(must(w.results[0]).errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', entity: 'Episode', id: episodeA });
    }

    // Tenant B's own writes arrive; tenant A's, before and after, do not.
    await logSteps(t, episodeA);
    const episodeB = await startEpisode(t, b.write);
    await waitUntil(() => all.values.length === 1, "tenant B's own event");
    await logSteps(t, episodeA);
    await logSteps(t, episodeB, 1, b.write);
    await waitUntil(() => all.values.length === 2, "tenant B's second event");
    expect(all.values.every((e) => e.tenantId === b.tenantId && e.episodeId === episodeB)).toBe(true);
    expect(all.values.map((e) => Number(e.seq))).toEqual([1, 2]); // B's own chain
    expect(filtered.values).toEqual([]);
    all.stop();
    filtered.stop();
  });

  it('answers malformed ids as not found or bad input, at subscribe time', async () => {
    const client = t.wsClient(t.keys.read);
    const updated = watch(client, EPISODE_UPDATED, { id: 'not-a-uuid' });
    const steps = watch(client, STEPS_LOGGED, { id: "1' OR 1=1 --" });
    const filtered = watch(client, LEDGER_EVENTS, { filter: { workItemId: 'nope' } });
    const cursor = watch(client, LEDGER_EVENTS, { afterSeq: '-1' });
    await waitUntil(() => [updated, steps, filtered, cursor].every((w) => w.done), 'every refusal');
    expect(must(updated.results[0]).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(must(steps.results[0]).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(must(filtered.results[0]).errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'filter.workItemId' });
    expect(must(cursor.results[0]).errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'afterSeq' });
  });
});
