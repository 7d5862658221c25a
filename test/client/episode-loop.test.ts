// runEpisodeLoop (a work item's bounded loop of episodes) against the real server with a fake holon: the holon is outside our
// service, so a fake stands in for it; leases, charging, budgets and numbering are the server's.
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import {
  type EpisodeContext,
  type EpisodicClient,
  EpisodicError,
  type Holon,
  type HolonEpisodeResult,
  nextEpisodeNumber,
  runEpisodeLoop,
  unwrap,
} from '../../src/index.ts';
import { type TestApp, useApp } from '../support/app.ts';
import { clientFor, leaseFor } from './support.ts';

let t: TestApp;
let api: EpisodicClient;
useApp((app) => {
  t = app;
  api = clientFor(t, t.keys.write);
});

const task = { taskDescription: 'Refactor the parser', taskType: 'refactor', agent: 'fake-holon' };

/** A holon that answers each episode with `script(context)` and remembers the contexts it saw. */
function fakeHolon(script: (ctx: EpisodeContext<number>) => HolonEpisodeResult<number>): Holon<number> & { seen: EpisodeContext<number>[] } {
  const seen: EpisodeContext<number>[] = [];
  return { seen, executeEpisode: (ctx) => (seen.push(ctx), script(ctx)) };
}

const work = (n: number, tokens = 10) =>
  Array.from({ length: n }, (_, i) => ({ kind: 'tool_call', tool: 'editor', action: `edit ${i}`, result: { kind: 'SUCCESS' as const, output: 'ok' }, tokens }));

async function leaseState(id: string) {
  const lease = unwrap(await api.lease(id));
  return lease.consumed;
}

describe('runEpisodeLoop', () => {
  it('completes when the holon says so: isSuccessful, numbers 1.., the lease charged per episode', async () => {
    const { workItem, lease } = await leaseFor(api, { episodes: 10, tokens: 10_000 });
    const holon = fakeHolon((ctx) => ({ steps: work(2), output: (ctx.progress ?? 0) + 1, stop: ctx.episodeNumber === 3 ? { kind: 'completed' } : null }));
    const result = await runEpisodeLoop(api, holon, workItem.id, lease, 'make it readable', 1, { task });

    expect(result.outcome).toEqual({ kind: 'completed', episodesExecuted: 3, tokensConsumed: 60 });
    expect(result).toMatchObject({ isSuccessful: true, canContinue: false, output: 3, nextEpisodeNumber: 4, finalStopCondition: { kind: 'completed' } });
    expect(result.episodes.map((e) => [e.episodeNumber, e.status])).toEqual([
      [1, 'COMPLETED'],
      [2, 'COMPLETED'],
      [3, 'COMPLETED'],
    ]);
    expect(holon.seen.map((c) => c.progress)).toEqual([undefined, 1, 2]);
    expect(must(holon.seen[1]).remaining).toMatchObject({ episodes: 9, tokens: 9_980 });
    expect(await leaseState(lease.id)).toMatchObject({ episodes: 3, tokens: 60, toolCalls: 6 });
    expect(must(result.episodes.at(-1)).leaseCharge).toMatchObject({ ok: true, remainingEpisodes: 7, remainingTokens: 9_940 });
    const last = unwrap(await api.episode(must(result.episodes[2]).id));
    expect(last).toMatchObject({ outcome: { kind: 'SUCCESS' }, goalSpec: 'make it readable', lease: { id: lease.id } });
  });

  it('lets budget exhaustion win over the holon’s own stop (priority budget > holon > max episodes)', async () => {
    const { workItem, lease } = await leaseFor(api, { tokens: 100 });
    // The holon claims success, but its steps overdraw the lease's tokens: the server stops the episode.
    const holon = fakeHolon(() => ({ steps: work(3, 50), stop: { kind: 'completed' } }));
    const result = await runEpisodeLoop(api, holon, workItem.id, lease.id, null, 1, { task, maxEpisodes: 1 });
    expect(result.outcome).toEqual({ kind: 'budget_exhausted', resource: 'tokens', episodesExecuted: 1, tokensConsumed: 150 });
    expect(result).toMatchObject({ isSuccessful: false, canContinue: true });
    expect(result.episodes[0]).toMatchObject({ status: 'FAILED', stepsAccepted: 2 });
    expect(await leaseState(lease.id)).toMatchObject({ episodes: 1, tokens: 100 });
  });

  it('reports an episode budget the server converged on (policy CONVERGE) as budget_exhausted too', async () => {
    const { workItem, lease } = await leaseFor(api);
    const seen: string[] = [];
    const holon = fakeHolon(() => ({ steps: work(4, 10), stop: null }));
    const result = await runEpisodeLoop(api, holon, workItem.id, lease, null, 1, {
      task,
      maxTokensPerEpisode: 25,
      onBudgetExhausted: 'CONVERGE',
      onEpisode: (r) => seen.push(`${r.episodeNumber}:${r.status}:${r.stop?.kind}`),
    });
    expect(result.outcome).toMatchObject({ kind: 'budget_exhausted', resource: 'tokens', episodesExecuted: 1 });
    expect(seen).toEqual(['1:COMPLETED:budget_exhausted']);
    expect(unwrap(await api.episode(must(result.episodes[0]).id)).outcome).toMatchObject({ kind: 'PARTIAL' });
  });

  it('stops with budget_exhausted{episodes} when the lease has no episodes left', async () => {
    const { workItem, lease } = await leaseFor(api, { episodes: 2 });
    const holon = fakeHolon(() => ({ steps: work(1) }));
    const result = await runEpisodeLoop(api, holon, workItem.id, lease, null, 1, { task, maxEpisodes: 10 });
    expect(result.outcome).toMatchObject({ kind: 'budget_exhausted', resource: 'episodes', episodesExecuted: 2 });
    expect(result.canContinue).toBe(true);
    // A later run under the same lease is refused at once, with the same outcome.
    const again = await runEpisodeLoop(api, holon, workItem.id, lease, null, result.nextEpisodeNumber, { task });
    expect(again.outcome).toMatchObject({ kind: 'budget_exhausted', resource: 'episodes', episodesExecuted: 0 });
  });

  it('stops at max episodes with canContinue true', async () => {
    const { workItem, lease } = await leaseFor(api);
    const holon = fakeHolon(() => ({ steps: work(1), tokens: 25 }));
    const result = await runEpisodeLoop(api, holon, workItem.id, lease, null, 1, { task, maxEpisodes: 3 });
    expect(result.outcome).toEqual({ kind: 'max_episodes', episodesExecuted: 3, tokensConsumed: 75 });
    expect(result).toMatchObject({ isSuccessful: false, canContinue: true });
    // Tokens the steps did not carry were journaled (one llm_call step each) and charged.
    expect(await leaseState(lease.id)).toMatchObject({ episodes: 3, tokens: 75, toolCalls: 3 });
    expect(result.episodes.every((e) => e.status === 'COMPLETED')).toBe(true);
    expect(unwrap(await api.episode(must(result.episodes[0]).id))).toMatchObject({ outcome: { kind: 'PARTIAL' }, stepCount: 2 });
  });

  it('keeps episode numbers monotonic across restarts: 0 clamps to 1, a restart continues, a stale number is refused', async () => {
    const { workItem, lease } = await leaseFor(api);
    const holon = fakeHolon(() => ({ steps: work(1) }));
    const first = await runEpisodeLoop(api, holon, workItem.id, lease, null, 0, { task, maxEpisodes: 2 });
    expect(first.episodes.map((e) => e.episodeNumber)).toEqual([1, 2]);
    const second = await runEpisodeLoop(api, holon, workItem.id, lease, null, first.nextEpisodeNumber, { task, maxEpisodes: 2 });
    expect(second.episodes.map((e) => e.episodeNumber)).toEqual([3, 4]);
    expect(await nextEpisodeNumber(api, workItem.id)).toBe(5);

    const before = holon.seen.length;
    const stale = await runEpisodeLoop(api, holon, workItem.id, lease, null, 2, { task }).catch((e) => e);
    expect(stale).toBeInstanceOf(EpisodicError);
    expect(stale).toMatchObject({
      kind: 'result',
      result: { __typename: 'InputLimitError', violations: [expect.objectContaining({ field: 'input.episodeNumber', limit: '> 4' })] },
    });
    expect(holon.seen.length).toBe(before);
  });

  it('ends with outcome blocked (canContinue) and escalated (cannot) when the holon reports them', async () => {
    const { workItem, lease } = await leaseFor(api);
    const blocked = await runEpisodeLoop(
      api,
      fakeHolon(() => ({ steps: work(1), stop: { kind: 'blocked', reason: 'needs approval' } })),
      workItem.id,
      lease,
      null,
      1,
      { task },
    );
    expect(blocked).toMatchObject({ outcome: { kind: 'blocked', reason: 'needs approval', episodesExecuted: 1 }, canContinue: true, isSuccessful: false });
    expect(unwrap(await api.episode(must(blocked.episodes[0]).id)).status).toBe('BLOCKED');

    const { workItem: w2, lease: l2 } = await leaseFor(api);
    const escalated = await runEpisodeLoop(
      api,
      fakeHolon(() => ({ steps: [], stop: { kind: 'escalated', reason: 'out of my depth' } })),
      w2.id,
      l2,
      null,
      1,
      { task },
    );
    expect(escalated).toMatchObject({ outcome: { kind: 'escalated' }, canContinue: false });
  });

  it('turns a throwing holon into outcome error and a failed episode; strict mode rethrows', async () => {
    const { workItem, lease } = await leaseFor(api);
    const boom = fakeHolon(() => {
      throw new Error('tool crashed');
    });
    const result = await runEpisodeLoop(api, boom, workItem.id, lease, null, 1, { task });
    expect(result.outcome).toMatchObject({ kind: 'error', recoverable: false, episodesExecuted: 1 });
    expect(result).toMatchObject({ isSuccessful: false, canContinue: false });
    expect(unwrap(await api.episode(must(result.episodes[0]).id))).toMatchObject({ status: 'FAILED' });
    // The server stopped the work item's loop with the same error: a rerun there starts nothing.
    const rerun = await runEpisodeLoop(api, boom, workItem.id, lease, null, result.nextEpisodeNumber, { task, strictBudgetEnforcement: true });
    expect(rerun.outcome).toMatchObject({ kind: 'error', error: 'holon failed: tool crashed', episodesExecuted: 0 });
    const fresh = await leaseFor(api);
    await expect(runEpisodeLoop(api, boom, fresh.workItem.id, fresh.lease, null, 1, { task, strictBudgetEnforcement: true })).rejects.toThrow('tool crashed');
  });

  it('refuses invalid ids and goal specs before starting anything (CTR-EP01, CTR-EP02)', async () => {
    const { workItem, lease } = await leaseFor(api);
    const holon = fakeHolon(() => ({ steps: [] }));
    await expect(runEpisodeLoop(api, holon, '', lease, null, 1, { task })).rejects.toMatchObject({ kind: 'input' });
    await expect(runEpisodeLoop(api, holon, workItem.id, 'has space', null, 1, { task })).rejects.toMatchObject({ kind: 'input' });
    await expect(runEpisodeLoop(api, holon, workItem.id, lease, 'nul\0byte', 1, { task })).rejects.toMatchObject({ kind: 'input' });
    await expect(runEpisodeLoop(api, holon, workItem.id, lease, 'x'.repeat(70_000), 1, { task })).rejects.toMatchObject({ kind: 'input' });
    expect(holon.seen).toHaveLength(0);
  });
});
