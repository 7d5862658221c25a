// The step journal: contiguous numbering (also under concurrent writers), side-effect keys, and
// parameters stored redacted with a BLAKE3 hash of the original.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createDatabase } from '../../src/db/client.ts';
import { contentHash } from '../../src/ledger/format/hash.ts';
import { createLogger } from '../../src/log.ts';
import { createApp } from '../../src/server.ts';
import { createServices, stopServices } from '../../src/services.ts';
import type { TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { type Client, client, counts, range, step, stepNumbers, steps, useApp } from './support.ts';

let t: TestApp;
let api: Client;
useApp((app) => ([t, api] = [app, client(app)]));

const numbersOf = (results: Json[]) => results.map((r) => r.stepNumber);

describe('step numbers', () => {
  it('run 1, 2, 3, ... across logStep and logSteps calls', async () => {
    const episode = await api.startOk();
    const a = await api.logStepsOk(episode.id, steps(3));
    const b = await api.logStep(episode.id, step());
    const c = await api.logStepsOk(episode.id, steps(2));
    expect(numbersOf(a.results)).toEqual([1, 2, 3]);
    expect(b.result).toMatchObject({ index: 0, status: 'ACCEPTED', stepNumber: 4 });
    expect(numbersOf(c.results)).toEqual([5, 6]);
    expect(c.episode.stepCount).toBe(6);
    expect(await stepNumbers(t, episode.id)).toEqual(range(1, 6));
  });

  it('stay contiguous with 20 concurrent writers on one episode', async () => {
    const episode = await api.startOk();
    const calls = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? api.logStepsOk(
            episode.id,
            steps(3, (j) => ({ action: `call ${i} step ${j}` })),
          )
        : api.logStep(episode.id, step({ action: `call ${i}` })),
    );
    const answers = await Promise.all(calls);
    const answered = answers.flatMap((a) => (a.results ?? [a.result]).map((r: Json) => r.stepNumber)).sort((x, y) => x - y);
    const total = 10 * 3 + 10;
    expect(answered).toEqual(range(1, total));
    expect(await stepNumbers(t, episode.id)).toEqual(range(1, total));
    // Each call's own steps keep their order.
    for (const a of answers.filter((x) => x.results)) {
      const n = numbersOf(a.results);
      expect(n).toEqual([n[0], n[0] + 1, n[0] + 2]);
    }
    const { rows } = await t.services.db.pool.query('SELECT step_count FROM episodes WHERE id = $1', [episode.id]);
    expect(rows[0].step_count).toBe(total);
  });

  it('stay contiguous per episode with concurrent writers on several episodes', async () => {
    const episodes = await Promise.all(Array.from({ length: 5 }, () => api.startOk()));
    const calls = episodes.flatMap((e, k) => Array.from({ length: 8 }, (_, i) => (i % 2 ? api.logStep(e.id, step()) : api.logStepsOk(e.id, steps(k + 1)))));
    await Promise.all(calls);
    for (const [k, e] of episodes.entries()) {
      expect(await stepNumbers(t, e.id)).toEqual(range(1, 4 + 4 * (k + 1)));
    }
  });
});

describe('two server processes on one database', () => {
  it('keep numbers contiguous and side-effect keys unique across servers', async () => {
    // A second server on the same database, as a second process would be: its own pool, queue and group commit.
    const config = loadConfig({ NODE_ENV: 'test', PORT: '0', DATABASE_URL: t.database.url, LOG_LEVEL: 'silent', JOB_POLL_SECONDS: '0.5' });
    const db = createDatabase(t.database.url, 10);
    const services = await createServices(config, db, createLogger('silent'));
    const second = createApp(services);
    await second.start();
    try {
      const other = {
        ...t,
        gql: (query: string, variables?: Record<string, unknown>, token: string | null = t.keys.write) =>
          fetch(second.url(), {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify({ query, variables }),
          }).then((r) => r.json() as Json),
      } as TestApp;
      const api2 = client(other);
      const episode = await api.startOk();
      const calls = Array.from({ length: 24 }, (_, i) => {
        const via = i % 2 ? api : api2;
        return i % 3 === 0 ? via.logStep(episode.id, step({ sideEffectKey: 'once' })) : via.logStepsOk(episode.id, steps(2));
      });
      const answers = await Promise.all(calls);
      const keyed = answers.filter((a) => a.result).map((a) => a.result);
      expect(keyed.filter((r) => r.status === 'ACCEPTED')).toHaveLength(1);
      expect(new Set(keyed.map((r) => r.step.id)).size).toBe(1);
      expect(await stepNumbers(t, episode.id)).toEqual(range(1, 16 * 2 + 1));
    } finally {
      await second.stop();
      await stopServices(services);
      await db.close();
    }
  });
});

describe('side-effect keys', () => {
  it('return the original step for a repeated key in a later call, without a second row or number', async () => {
    const episode = await api.startOk();
    const first = await api.logStep(episode.id, step({ sideEffectKey: 'deploy-1', action: 'deploy' }));
    expect(first.result.status).toBe('ACCEPTED');
    const before = await counts(t, t.keys.tenantId);
    const again = await api.logStep(episode.id, step({ sideEffectKey: 'deploy-1', action: 'deploy again' }));
    expect(again.result).toMatchObject({
      status: 'DUPLICATE',
      stepNumber: first.result.stepNumber,
      step: { id: first.result.step.id, sideEffectKey: 'deploy-1' },
    });
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
    // The duplicate used no number: the next step follows directly.
    expect((await api.logStep(episode.id, step())).result.stepNumber).toBe(2);
  });

  it('return the first step for a key repeated within one call', async () => {
    const episode = await api.startOk();
    const result = await api.logStepsOk(episode.id, [step({ sideEffectKey: 'k' }), step(), step({ sideEffectKey: 'k' }), step()]);
    expect(result.results.map((r: Json) => [r.status, r.stepNumber])).toEqual([
      ['ACCEPTED', 1],
      ['ACCEPTED', 2],
      ['DUPLICATE', 1],
      ['ACCEPTED', 3],
    ]);
    expect(result.results[2].step.id).toBe(result.results[0].step.id);
    expect(result).toMatchObject({ accepted: 3, duplicates: 1, rejected: 0 });
    expect(await stepNumbers(t, episode.id)).toEqual([1, 2, 3]);
  });

  it('produce one step for concurrent calls with the same key', async () => {
    const episode = await api.startOk();
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => api.logStep(episode.id, step({ sideEffectKey: 'pay-42', action: `attempt ${i}` }))));
    const statuses = answers.map((a) => a.result.status);
    expect(statuses.filter((s) => s === 'ACCEPTED')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'DUPLICATE')).toHaveLength(11);
    expect(new Set(answers.map((a) => a.result.step.id)).size).toBe(1);
    expect(new Set(answers.map((a) => a.result.stepNumber))).toEqual(new Set([1]));
    const { rows } = await t.services.db.pool.query(`SELECT count(*)::int AS n FROM steps WHERE episode_id = $1`, [episode.id]);
    expect(rows[0].n).toBe(1);
  });

  it('are per episode: the same key in another episode is a new step', async () => {
    const [a, b] = await Promise.all([api.startOk(), api.startOk()]);
    const ra = await api.logStep(a.id, step({ sideEffectKey: 'same' }));
    const rb = await api.logStep(b.id, step({ sideEffectKey: 'same' }));
    expect([ra.result.status, rb.result.status]).toEqual(['ACCEPTED', 'ACCEPTED']);
    expect(ra.result.step.id).not.toBe(rb.result.step.id);
  });
});

describe('parameters', () => {
  const original = {
    cmd: 'deploy',
    password: 'hunter2-secret',
    headers: { Authorization: 'Bearer tok-abc', 'X-Trace': 't1' },
    auth: { api_key: 'ak-123', token: 'tk-456', nested: [{ secret: 's-789' }] },
    max_tokens: 256,
  };
  const redacted = {
    cmd: 'deploy',
    password: '[REDACTED]',
    headers: { Authorization: '[REDACTED]', 'X-Trace': 't1' },
    auth: { api_key: '[REDACTED]', token: '[REDACTED]', nested: [{ secret: '[REDACTED]' }] },
    max_tokens: 256,
  };

  it('are stored redacted, with argsHash the BLAKE3 of the canonical JSON of the original', async () => {
    const episode = await api.startOk();
    const result = await api.logStep(episode.id, step({ parameters: original }));
    const stored = result.result.step;
    expect(stored.parameters).toEqual(redacted);
    expect(stored.argsHash).toBe(contentHash(original));
    expect(stored.argsHash).toMatch(/^[0-9a-f]{64}$/);
    const { rows } = await t.services.db.pool.query('SELECT parameters, args_hash FROM steps WHERE id = $1', [stored.id]);
    expect(rows[0]).toEqual({ parameters: redacted, args_hash: contentHash(original) });
    const anywhere = JSON.stringify((await t.services.db.pool.query('SELECT * FROM steps WHERE id = $1', [stored.id])).rows);
    for (const secret of ['hunter2-secret', 'tok-abc', 'ak-123', 'tk-456', 's-789']) expect(anywhere).not.toContain(secret);
  });

  it('hash the same regardless of key order (RFC 8785), and differently when a secret differs', async () => {
    const episode = await api.startOk();
    const reordered = Object.fromEntries(Object.entries(original).reverse());
    const changed = { ...original, password: 'other' };
    const r = await api.logStepsOk(episode.id, [step({ parameters: original }), step({ parameters: reordered }), step({ parameters: changed })]);
    const [a, b, c] = r.results.map((x: Json) => x.step.argsHash);
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    expect(r.results[2].step.parameters).toEqual(redacted);
  });

  it('are null with no argsHash when a step has none', async () => {
    const episode = await api.startOk();
    const r = await api.logStep(episode.id, { kind: 'observation', observation: 'saw it' });
    expect(r.result.step).toMatchObject({ kind: 'observation', parameters: null, argsHash: null });
  });
});

describe('stored steps', () => {
  it('keep every field the agent sent, and the content hash the ledger covers', async () => {
    const episode = await api.startOk();
    const sent = {
      kind: 'tool_call',
      tool: 'http',
      action: 'GET /health',
      parameters: { url: 'http://x' },
      result: { kind: 'ERROR', message: 'timeout after 5s', errorClass: 'TimeoutError' },
      observation: 'service down',
      latencyMs: 5012,
      tokens: 42,
      cost: 0.25,
      worldBefore: { up: true },
      worldAfter: { up: false },
      metadata: { attempt: 2 },
    };
    const r = await api.logStep(episode.id, sent);
    const q = `query($id: ID!) { episode(id: $id) { ... on Episode { usedTokens usedToolCalls usedCost steps(first: 10) { edges { node {
      stepNumber kind tool action parameters resultKind result observation latencyMs tokens cost worldBefore worldAfter metadata contentHash } } } } } }`;
    const read = (await api.call(q, { id: episode.id })) as Json;
    expect(read.steps.edges[0].node).toEqual({
      stepNumber: 1,
      kind: 'tool_call',
      tool: 'http',
      action: 'GET /health',
      parameters: { url: 'http://x' },
      resultKind: 'error',
      result: { message: 'timeout after 5s', errorClass: 'TimeoutError' },
      observation: 'service down',
      latencyMs: 5012,
      tokens: 42,
      cost: 0.25,
      worldBefore: { up: true },
      worldAfter: { up: false },
      metadata: { attempt: 2 },
      contentHash: r.result.step.contentHash,
    });
    expect(read).toMatchObject({ usedTokens: '42', usedToolCalls: 1, usedCost: 0.25 });
    const { rows } = await t.services.db.pool.query('SELECT content_hash FROM steps WHERE episode_id = $1', [episode.id]);
    expect(rows[0].content_hash).toBe(r.result.step.contentHash);
  });

  it('answers NotFoundError for an unknown episode and writes nothing', async () => {
    const before = await counts(t, t.keys.tenantId);
    for (const id of ['00000000-0000-0000-0000-000000000009', 'not-a-uuid']) {
      expect(await api.logSteps(id, steps(2))).toMatchObject({ __typename: 'NotFoundError', entity: 'Episode', notFoundId: id });
    }
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
  });
});
