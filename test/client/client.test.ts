// The typed client against the real server: mutations and queries return their typed union
// members, transport and GraphQL failures throw EpisodicError, and logSteps batches big inputs.
import { type AddressInfo, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { createEpisodicClient, type EpisodicClient, EpisodicError, isErrorResult, type StepInput, unwrap } from '../../src/index.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { clientFor, leaseFor } from './support.ts';

let t: TestApp;
let api: EpisodicClient;
useApp((app) => {
  t = app;
  api = clientFor(t);
});

const step = (i: number, extra: Partial<StepInput> = {}): StepInput => ({
  kind: 'tool_call',
  tool: 'shell',
  action: `cmd ${i}`,
  result: { kind: 'SUCCESS', output: 'ok' },
  tokens: 1,
  ...extra,
});

describe('mutations and queries', () => {
  it('drives an episode through its lifecycle with typed results', async () => {
    const started = await api.startEpisode({
      taskDescription: 'Fix the flaky test',
      taskType: 'bugfix',
      context: { tags: ['ci'], language: 'typescript' },
      budget: { maxSteps: 100 },
    });
    expect(started.__typename).toBe('StartEpisodePayload');
    const episode = unwrap(started).episode;
    expect(episode).toMatchObject({ status: 'RUNNING', taskType: 'bugfix', context: { tags: ['ci'] } });

    const one = unwrap(await api.logStep(episode.id, step(0, { sideEffectKey: 'k-0' })));
    expect(one.result).toMatchObject({ status: 'ACCEPTED', stepNumber: 1 });
    const again = unwrap(await api.logStep(episode.id, step(0, { sideEffectKey: 'k-0' })));
    expect(again.result.status).toBe('DUPLICATE');

    unwrap(await api.saveCheckpoint(episode.id, { cursor: 1 }, 'first'));
    const blocked = unwrap(await api.blockEpisode(episode.id, 'needs approval', { diff: '+1 -1' }));
    expect(blocked.episode.status).toBe('BLOCKED');
    expect(unwrap(await api.resumeEpisode(episode.id, { approved: true, decidedBy: 'reviewer' })).episode.status).toBe('RUNNING');
    const critiqued = unwrap(await api.recordCritique(episode.id, { verdict: 'good', score: 0.9, virtueScores: [{ name: 'care', score: 0.8 }] }));
    expect(critiqued.episode.critique).toMatchObject({ verdict: 'good', score: 0.9, virtueScores: [{ name: 'care', score: 0.8 }] });

    const done = unwrap(await api.completeEpisode(episode.id, { kind: 'SUCCESS', verdict: 'fixed', artifacts: ['patch.diff'] }));
    expect(done.episode).toMatchObject({
      status: 'COMPLETED',
      outcome: { kind: 'SUCCESS', verdict: 'fixed' },
      stopReason: { kind: 'completed', isSuccessful: true, canContinue: false },
    });
    expect(done.episode.checkpoints).toHaveLength(1);

    const read = unwrap(await api.episode(episode.id));
    expect(read.id).toBe(episode.id);
    const steps = unwrap(await api.episodeSteps(episode.id));
    expect(steps.edges.map((e) => e.node.kind)).toContain('tool_call');
    const listed = await api.episodes({ filter: { tags: ['ci'], status: ['COMPLETED'] } });
    expect(listed.edges.map((e) => e.node.id)).toContain(episode.id);
  });

  it('returns the error members of result unions instead of throwing', async () => {
    const missing = '00000000-0000-0000-0000-0000000000ff';
    const notFound = await api.episode(missing);
    expect(notFound).toMatchObject({ __typename: 'NotFoundError', entity: 'Episode', notFoundId: missing });
    expect(isErrorResult(notFound)).toBe(true);

    const refused = await api.startEpisode({ taskDescription: '', taskType: 'x' });
    expect(refused).toMatchObject({ __typename: 'InputLimitError', violations: [expect.objectContaining({ field: 'input.taskDescription' })] });

    const ep = unwrap(await api.startEpisode({ taskDescription: 'one', taskType: 'x' })).episode;
    unwrap(await api.failEpisode(ep.id, 'crashed', true));
    const illegal = await api.completeEpisode(ep.id, { kind: 'SUCCESS', verdict: 'no' });
    expect(illegal).toMatchObject({ __typename: 'IllegalTransitionError', from: 'failed' });
    const thrown = (() => {
      try {
        unwrap(illegal);
      } catch (err) {
        return err;
      }
    })();
    expect(thrown).toBeInstanceOf(EpisodicError);
    expect(thrown).toMatchObject({ kind: 'result', code: 'IllegalTransitionError' });
  });

  it('issues and revokes leases; a revoked lease refuses episodes with LeaseError', async () => {
    const { workItem, lease } = await leaseFor(api, { episodes: 2 });
    expect(lease).toMatchObject({ workItem: { id: workItem.id }, budget: { episodes: 2 } });
    expect(unwrap(await api.revokeLease(lease.id)).lease.revokedAt).not.toBeNull();
    expect(await api.startEpisode({ taskDescription: 'x', taskType: 'x', leaseId: lease.id })).toMatchObject({ __typename: 'LeaseError', rule: 'revoked' });
  });

  it('creates, lists and revokes API keys (admin), and refuses them to a write key with a FORBIDDEN EpisodicError', async () => {
    const created = unwrap(await api.createApiKey({ name: 'ci', scopes: ['read'] }));
    expect(created.token).toMatch(/^epk_/);
    expect((await api.apiKeys()).map((k) => k.id)).toContain(created.key.id);
    expect(unwrap(await api.revokeApiKey(created.key.id)).revokedAt).not.toBeNull();
    const err = await clientFor(t, t.keys.write)
      .apiKeys()
      .catch((e) => e);
    expect(err).toBeInstanceOf(EpisodicError);
    expect(err).toMatchObject({ kind: 'graphql', code: 'FORBIDDEN' });
  });

  it("forgets a step's content (admin) and answers a typed error for an unknown episode", async () => {
    const { episode } = unwrap(await api.startEpisode({ taskDescription: 'forget me', taskType: 'x' }));
    unwrap(await api.logStep(episode.id, { kind: 'tool_call', tool: 'shell', observation: 'pasted secret' }));
    expect(unwrap(await api.forgetSteps(episode.id, 'secret in tool output', [1]))).toEqual({
      __typename: 'ForgetStepsPayload',
      episodeId: episode.id,
      forgotten: [1],
      blobsDeleted: 0,
    });
    expect(await api.forgetSteps('00000000-0000-4000-8000-000000000000', 'x')).toMatchObject({ __typename: 'NotFoundError', entity: 'Episode' });
  });
});

describe('retrieval', () => {
  it('asks relevantEpisodes for a task and credits the retrieval on completion', async () => {
    const done = unwrap(await api.startEpisode({ taskDescription: 'Parse the CSV export', taskType: 'parsing', context: { tags: ['csv'] } })).episode;
    unwrap(await api.completeEpisode(done.id, { kind: 'SUCCESS', verdict: 'parsed' }));
    const answer = unwrap(
      await api.relevantEpisodes({ task: { description: 'Parse a CSV export', taskType: 'parsing', context: { tags: ['csv'] } }, limit: 3 }),
    );
    expect(answer.retrievalId).toEqual(expect.any(String));
    expect(answer.episodes.map((e) => e.episode.id)).toContain(done.id);
    expect(must(answer.episodes[0]).score.total).toBeGreaterThan(0);
    const mine = must(answer.episodes.find((e) => e.episode.id === done.id));
    expect(mine).toMatchObject({ failed: false, whatWentWrong: null, score: { feedbackUses: 0, feedbackResemblance: 0 } });
    expect(mine.score.taskText).toBeGreaterThan(0);
    expect(mine.score.work).toEqual(expect.any(Number));

    const next = unwrap(await api.startEpisode({ taskDescription: 'Parse another CSV', taskType: 'parsing' })).episode;
    const finished = await api.completeEpisode(next.id, { kind: 'SUCCESS', verdict: 'parsed' }, [answer.retrievalId ?? 'none']);
    expect(finished.__typename).toBe('FinishEpisodePayload');
  });

  it('asks relevantFiles where to look, with the runs that changed each file', async () => {
    const fixed = unwrap(await api.startEpisode({ taskDescription: 'Tab-separated export loses its header row', taskType: 'bugfix' })).episode;
    unwrap(await api.completeEpisode(fixed.id, { kind: 'SUCCESS', verdict: 'fixed', artifacts: ['export/tsv.py'] }));
    const answer = unwrap(await api.relevantFiles({ task: { description: 'the tab-separated export has no header row' }, limit: 3 }));
    expect(answer.retrievalId).toEqual(expect.any(String));
    const file = must(answer.files.find((f) => f.path === 'export/tsv.py'));
    expect(file).toMatchObject({ runs: 1, resolved: 1, failed: 0 });
    expect(file.evidence.map((e) => e.id)).toEqual([fixed.id]);
    const refused = await api.relevantFiles({ task: { description: 'x' }, limit: 0 });
    expect(refused).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: 'limit' }] });
  });
});

describe('logSteps batching', () => {
  it('splits 700 steps into calls of at most 500 and adds the answers up', async () => {
    const ep = unwrap(await api.startEpisode({ taskDescription: 'many steps', taskType: 'bulk' })).episode;
    const progress: number[] = [];
    const result = unwrap(
      await api.logSteps(
        ep.id,
        Array.from({ length: 700 }, (_, i) => step(i, { sideEffectKey: `s-${i === 699 ? 0 : i}` })),
        { onProgress: (sent) => progress.push(sent) },
      ),
    );
    expect(progress).toEqual([500, 700]);
    expect(result).toMatchObject({ batches: 2, accepted: 699, duplicates: 1, rejected: 0, notSent: 0 });
    expect(result.results).toHaveLength(700);
    expect(result.results[699]).toMatchObject({ index: 699, status: 'DUPLICATE' });
    expect(result.episode.stepCount).toBe(699);
  });

  it('stops at the chunk that exhausts the budget and counts the rest as not sent', async () => {
    const ep = unwrap(await api.startEpisode({ taskDescription: 'budgeted', taskType: 'bulk', budget: { maxSteps: 3 } })).episode;
    const result = unwrap(
      await api.logSteps(
        ep.id,
        Array.from({ length: 10 }, (_, i) => step(i)),
        { batchSize: 4 },
      ),
    );
    expect(result).toMatchObject({ batches: 1, accepted: 3, rejected: 1, notSent: 6, budgetExhausted: 'steps', episode: { status: 'FAILED' } });
  });
});

describe('ledger', () => {
  it('pages events, reads the head, verifies the range and serves proof bundles', async () => {
    const head = await api.ledgerHead();
    expect(Number(head.seq)).toBeGreaterThan(3);
    const page = unwrap(await api.ledgerEvents({ after: 0, first: 3 }));
    expect(page.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(page.pageInfo).toMatchObject({ hasNextPage: true, endCursor: '3' });
    expect(unwrap(await api.verifyLedger())).toMatchObject({ ok: true });
    const ep = must(must(page.events.find((e) => e.episodeId)).episodeId);
    await t.services.checkpoints.publish(t.keys.tenantId); // bundles are proved against signed checkpoints only
    const bundle = unwrap(await api.episodeProofBundle(ep));
    expect(bundle.eventCount).toBeGreaterThan(0);
    expect(await api.ledgerEvents({ first: 501 })).toMatchObject({ __typename: 'InputLimitError' });
  });
});

describe('transport errors', () => {
  it('throws EpisodicError UNAUTHENTICATED for a bad key', async () => {
    const err = await clientFor(t, `epk_aaaaaaaaaaaa_${'a'.repeat(43)}`)
      .episodes()
      .catch((e) => e);
    expect(err).toBeInstanceOf(EpisodicError);
    expect(err).toMatchObject({ kind: 'graphql', code: 'UNAUTHENTICATED', status: 401 });
  });

  it('throws EpisodicError transport when the server cannot be reached, and graphql for an invalid document', async () => {
    const port = await closedPort();
    const down = createEpisodicClient({ url: `http://127.0.0.1:${port}/graphql`, apiKey: 'x' });
    const refused = await down.ledgerHead().catch((e) => e);
    expect(refused).toMatchObject({ name: 'EpisodicError', kind: 'transport' });
    // The socket's reason, not only fetch's "fetch failed".
    expect(refused.message).toBe(`cannot reach http://127.0.0.1:${port}/graphql: fetch failed (ECONNREFUSED)`);
    const bad: Json = await api.request('{ result: noSuchField }').catch((e) => e);
    expect(bad).toMatchObject({ kind: 'graphql' });
    expect(bad.message).toMatch(/noSuchField/);
  });

  it('accepts a custom fetch', async () => {
    const calls: string[] = [];
    const c = createEpisodicClient({ url: t.url, apiKey: t.keys.read, fetch: (url, init) => (calls.push(init.body), t.fetch(url, init)) });
    expect((await c.viewer()).name).toBe('tenant-a');
    expect(calls[0]).toMatch(/Viewer/);
  });
});

/** A port nothing listens on: one the system gave and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
