// Pattern extraction: synchronous in the completing transaction or as a queued job; a pattern needs
// two occurrences and a success rate of 0.6, at most 10 are kept per episode, patterns found again
// are merged and contradicted ones superseded; every run leaves a patterns.extracted ledger event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, useApp, type TenantKeys, type TestApp } from '../support/app.ts';
import { eventually, FAILURE, learner, learnerTenant, ledger, ok, type Learner } from './support.ts';

let t: TestApp;
useApp((app) => (t = app));

const WEB = { domain: 'web', language: 'typescript' };
const DEPLOY = [ok('git'), ok('npm'), ok('shell')];


describe('synchronous extraction', () => {
  let keys: TenantKeys;
  let l: Learner;
  beforeAll(async () => ({ keys, l } = await learnerTenant(t, 'patterns-sync')));

  it('keeps nothing from the first episode and records why', async () => {
    const first = await l.run({ context: WEB, steps: DEPLOY });
    // 3 tool sequences (git→npm, npm→shell, git→npm→shell) + 2 context features × 3 tools
    expect(first.extraction).toMatchObject({ mode: 'sync', candidates: 9, kept: 0, rejected: { tooFewOccurrences: 9, lowSuccessRate: 0, overEpisodeLimit: 0, superseded: 0 } });
    expect(first.episode.learningState).toBe('DONE');
    const [event] = await ledger(t, keys.tenantId, 'patterns.extracted');
    expect(event).toMatchObject({ episodeId: first.episode.id, payload: { mode: 'sync', candidates: 9, kept: 0, rejected: { too_few_occurrences: 9 } } });
    expect((await l.patterns()).edges).toEqual([]);
    expect((await l.patterns({ status: ['CANDIDATE'] })).edges).toHaveLength(9);
  });

  it('creates the patterns once a second successful episode shows them again', async () => {
    const second = await l.run({ context: WEB, steps: DEPLOY });
    expect(second.extraction).toMatchObject({ candidates: 9, kept: 9, activated: 9, confirmed: 0 });
    expect(second.extraction.patterns).toHaveLength(9);
    const edges = (await l.patterns()).edges.map((e: any) => e.node);
    expect(edges).toHaveLength(9);
    for (const p of edges) expect(p).toMatchObject({ status: 'ACTIVE', occurrences: 2, successes: 2, successRate: 1 });
    const sequence = edges.find((p: any) => p.key === 'tool_sequence:["git","npm","shell"]');
    expect(sequence).toMatchObject({ kind: 'TOOL_SEQUENCE', signature: ['git', 'npm', 'shell'], description: 'git → npm → shell', context: { domain: 'web', language: 'typescript' } });
    const context = edges.find((p: any) => p.kind === 'CONTEXT_PATTERN' && p.signature[0] === 'domain' && p.signature[2] === 'git');
    expect(context).toMatchObject({ signature: ['domain', 'web', 'git'] });
    const events = await ledger(t, keys.tenantId, 'patterns.extracted');
    expect(events.at(-1)!.payload).toMatchObject({ candidates: 9, kept: 9, activated: 9, rejected: { too_few_occurrences: 0 } });
    // Patterns kept count towards the learning bonus: the event records the reward before and after.
    expect(events.at(-1)!.payload.reward.after).toBeGreaterThan(events.at(-1)!.payload.reward.before);
    expect(second.episode.reward.normalized).toBeCloseTo(events.at(-1)!.payload.reward.after, 10);
  });

  it('serves a pattern with the episodes it came from', async () => {
    const sequence = (await l.patterns({ kind: ['TOOL_SEQUENCE'] })).edges.map((e: any) => e.node).find((p: any) => p.signature.length === 3);
    const pattern = await l.pattern(sequence.id);
    expect(pattern.__typename).toBe('Pattern');
    expect(pattern.episodes.edges.map((e: any) => e.node)).toHaveLength(2);
    expect(pattern.episodes.edges.map((e: any) => e.node.kept)).toEqual([false, true]);
    expect((await l.pattern('00000000-0000-0000-0000-000000000000')).__typename).toBe('NotFoundError');
  });

  it('merges a pattern found again: occurrences, success rate, mean reward and effectiveness', async () => {
    const before = (await l.patterns()).edges.map((e: any) => e.node).find((p: any) => p.key === 'tool_sequence:["git","npm"]');
    const third = await l.run({ context: WEB, steps: DEPLOY });
    expect(third.extraction).toMatchObject({ kept: 9, confirmed: 9, activated: 0 });
    const after = (await l.pattern(before.id));
    expect(after).toMatchObject({ occurrences: 3, successes: 3, successRate: 1, status: 'ACTIVE' });
    expect(after.effectiveness).toBeGreaterThan(before.effectiveness); // more evidence, more confidence
    const { rows } = await t.services.db.pool.query('SELECT reward FROM pattern_episodes WHERE pattern_id = $1', [before.id]);
    expect(after.meanReward).toBeCloseTo(rows.reduce((s: number, r: any) => s + r.reward, 0) / 3, 10);
  });

  it('a run that finds nothing still leaves its ledger event', async () => {
    const nothing = await l.run({ steps: [ok('ls'), ok('ls')] });
    expect(nothing.extraction).toMatchObject({ candidates: 0, kept: 0, rejected: { tooFewOccurrences: 0, lowSuccessRate: 0, overEpisodeLimit: 0, superseded: 0 } });
    const events = await ledger(t, keys.tenantId, 'patterns.extracted');
    expect(events.at(-1)).toMatchObject({ episodeId: nothing.episode.id, payload: { candidates: 0, kept: 0 } });
  });

  it('keeps at most 10 patterns per episode, the most effective first', async () => {
    const { l: other } = await learnerTenant(t, 'patterns-limit');
    const steps = ['a', 'b', 'c', 'd', 'e', 'f'].map((tool) => ok(tool));
    const context = { domain: 'data', language: 'python', framework: 'pandas', tags: ['etl', 'nightly'] };
    await other.run({ context, steps });
    const second = await other.run({ context, steps });
    // 5 pairs + 4 triples + 5 features × 3 tools
    expect(second.extraction).toMatchObject({ candidates: 24, kept: 10, rejected: { overEpisodeLimit: 14 } });
    expect((await other.patterns()).edges).toHaveLength(10);
  });
});

describe('supersession', () => {
  it('supersedes a pattern when failures drive its success rate below 0.6, and revives it when it works again', async () => {
    const { keys, l } = await learnerTenant(t, 'patterns-supersede');
    const steps = [ok('make'), ok('ctest')];
    await l.run({ steps });
    await l.run({ steps });
    const key = 'tool_sequence:["make","ctest"]';
    const find = async (status = 'ACTIVE') => (await l.patterns({ status: [status] })).edges.map((e: any) => e.node).find((p: any) => p.key === key);
    expect(await find()).toMatchObject({ occurrences: 2, successRate: 1 });

    const third = await l.run({ steps, outcome: FAILURE }); // 2 of 3: still above the bar
    expect(third.extraction).toMatchObject({ kept: 1, confirmed: 1, superseded: 0 });
    const fourth = await l.run({ steps, outcome: FAILURE }); // 2 of 4 = 0.5: contradicted
    expect(fourth.extraction).toMatchObject({ kept: 0, superseded: 1, rejected: { lowSuccessRate: 1 } });
    expect(await find()).toBeUndefined();
    const superseded = await find('SUPERSEDED');
    expect(superseded).toMatchObject({ occurrences: 4, successes: 2, successRate: 0.5 });
    expect(superseded.supersededAt).not.toBeNull();
    expect((await l.relevantPatterns({})).patterns.map((p: any) => p.pattern.key)).not.toContain(key);
    expect((await ledger(t, keys.tenantId, 'patterns.extracted')).at(-1)!.payload).toMatchObject({ superseded: 1 });

    const fifth = await l.run({ steps }); // 3 of 5 = 0.6 meets the bar again, and the last five are 0.6
    expect(fifth.extraction).toMatchObject({ kept: 1, revived: 1 });
    expect(await find()).toMatchObject({ status: 'ACTIVE', supersededAt: null, occurrences: 5 });
  });

  it('supersedes an established pattern whose last five observations mostly failed', async () => {
    const { l } = await learnerTenant(t, 'patterns-window');
    const steps = [ok('terraform'), ok('kubectl')];
    for (let i = 0; i < 7; i += 1) await l.run({ steps });
    const first = await l.run({ steps, outcome: FAILURE }); // 7/8
    const second = await l.run({ steps, outcome: FAILURE }); // 7/9; last five: 3 of 5 = 0.6
    expect([first.extraction.superseded, second.extraction.superseded]).toEqual([0, 0]);
    const third = await l.run({ steps, outcome: FAILURE }); // 7/10 = 0.7 overall, but the last five: 2 of 5
    expect(third.extraction).toMatchObject({ superseded: 1, kept: 0, rejected: { superseded: 1 } });
    const [pattern] = (await l.patterns({ status: ['SUPERSEDED'] })).edges.map((e: any) => e.node);
    expect(pattern).toMatchObject({ key: 'tool_sequence:["terraform","kubectl"]', occurrences: 10, successes: 7 });
  });
});

describe('asynchronous extraction', () => {
  it('runs on the job queue and records the run in the ledger', async () => {
    const { keys, l } = await learnerTenant(t, 'patterns-async');
    const steps = [ok('docker'), ok('helm')];
    const first = await l.run({ steps, mode: 'ASYNC' });
    expect(first.extraction).toBeNull();
    expect(['PENDING', 'QUEUED', 'DONE']).toContain(first.episode.learningState);
    const second = await l.run({ steps, mode: 'ASYNC' });
    const done = async (id: string) => ((await l.episode(id)).learningState === 'DONE' ? true : null);
    await eventually(() => done(first.episode.id), 15_000, 'first extraction');
    await eventually(() => done(second.episode.id), 15_000, 'second extraction');
    const events = (await ledger(t, keys.tenantId, 'patterns.extracted')).map((e) => e.payload);
    expect(events).toHaveLength(2);
    expect(events.every((p) => p.mode === 'async')).toBe(true);
    expect(events.map((p) => p.kept).sort()).toEqual([0, 1]);
    const patterns = (await l.patterns()).edges.map((e: any) => e.node);
    expect(patterns).toMatchObject([{ key: 'tool_sequence:["docker","helm"]', occurrences: 2, status: 'ACTIVE' }]);
  });

  it('does not queue a job for an episode without candidates', async () => {
    const { keys, l } = await learnerTenant(t, 'patterns-none');
    const done = await l.run({ steps: [ok('ls')], mode: 'ASYNC' });
    expect(done.episode.learningState).toBe('NONE');
    expect((await ledger(t, keys.tenantId, 'episode.completed'))[0]!.payload.experience).toMatchObject({ patternCandidates: 0, extraction: 'none' });
  });
});

describe('bounded queue', () => {
  let full: TestApp;
  beforeAll(async () => {
    full = await startTestApp({ LEARNING_QUEUE_MAX_DEPTH: '0' });
  });
  afterAll(() => full.stop());

  it('skips extraction with a ledger-visible reason when the queue is full, and extracts on demand later', async () => {
    const l = learner(full);
    const done = await l.run({ steps: [ok('git'), ok('npm')], mode: 'ASYNC' });
    const skipped = await eventually(async () => (await ledger(full, full.keys.tenantId, 'patterns.extraction_skipped'))[0], 10_000, 'skip event');
    expect(skipped).toMatchObject({ episodeId: done.episode.id, payload: { reason: 'queue_full', queueDepth: 0, maxQueueDepth: 0 } });
    expect((await l.episode(done.episode.id)).learningState).toBe('SKIPPED');
    expect(await ledger(full, full.keys.tenantId, 'patterns.extracted')).toEqual([]);

    const extracted = await l.extract(done.episode.id);
    expect(extracted).toMatchObject({ __typename: 'ExtractEpisodePatternsPayload', episode: { learningState: 'DONE' }, extraction: { mode: 'sync', candidates: 1 } });
    expect((await l.extract(done.episode.id)).extraction).toBeNull(); // already done
    const running = await l.api.startOk();
    expect((await l.extract(running.id)).__typename).toBe('InputLimitError');
  });
});

describe('tenancy', () => {
  it('never shows one tenant the patterns of another', async () => {
    const a = await learnerTenant(t, 'patterns-tenant-a');
    const b = await learnerTenant(t, 'patterns-tenant-b');
    await a.l.run({ context: WEB, steps: DEPLOY });
    await a.l.run({ context: WEB, steps: DEPLOY });
    const mine = (await a.l.patterns()).edges.map((e: any) => e.node);
    expect(mine.length).toBeGreaterThan(0);
    expect((await b.l.patterns()).edges).toEqual([]);
    expect((await b.l.relevantPatterns(WEB)).patterns).toEqual([]);
    expect((await b.l.pattern(mine[0].id)).__typename).toBe('NotFoundError');
    // B's own identical history starts from zero: statistics are per tenant.
    const first = await b.l.run({ context: WEB, steps: DEPLOY });
    expect(first.extraction).toMatchObject({ kept: 0, rejected: { tooFewOccurrences: 9 } });
  });
});

describe('relevantPatterns and patterns(filter)', () => {
  it('ranks by effectiveness and fit, with the score breakdown', async () => {
    const { l } = await learnerTenant(t, 'patterns-rank');
    for (let i = 0; i < 2; i += 1) await l.run({ context: { domain: 'web' }, steps: [ok('git'), ok('npm')] });
    for (let i = 0; i < 2; i += 1) await l.run({ context: { domain: 'data' }, steps: [ok('dbt'), ok('airflow')] });
    const web = await l.relevantPatterns({ domain: 'web' });
    expect(web.retrievalId).toMatch(/^[0-9a-f-]{36}$/);
    const top = web.patterns.slice(0, 3).map((p: any) => p.pattern.signature.join(' '));
    expect(top).toEqual(expect.arrayContaining(['git npm', 'domain web git', 'domain web npm']));
    for (const p of web.patterns) {
      expect(p.score.total).toBeCloseTo(0.5 * p.score.effectiveness + 0.4 * p.score.fit + 0.1 * p.score.feedback, 10);
    }
    const data = await l.relevantPatterns({ domain: 'DATA ' }); // normalised like the signatures
    expect(data.patterns[0].pattern.signature).toContain('data');
    expect(data.patterns.find((p: any) => p.pattern.signature.join(' ') === 'domain web git').score.fit).toBe(0);
    expect((await l.relevantPatterns({}, 2)).patterns).toHaveLength(2);
  });

  it('pages patterns and filters them by kind and episode', async () => {
    const { l } = await learnerTenant(t, 'patterns-page');
    const steps = [ok('a'), ok('b'), ok('c')];
    await l.run({ context: { domain: 'x' }, steps });
    const second = await l.run({ context: { domain: 'x' }, steps });
    const first = await l.patterns(null, 2);
    expect(first.edges).toHaveLength(2);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const rest = await l.patterns(null, 50, first.pageInfo.endCursor);
    const all = [...first.edges, ...rest.edges].map((e: any) => e.node);
    expect(new Set(all.map((p: any) => p.id)).size).toBe(all.length);
    expect(all).toHaveLength(6); // a→b, b→c, a→b→c, domain=x × 3 tools
    const effectiveness = all.map((p: any) => p.effectiveness);
    expect(effectiveness).toEqual([...effectiveness].sort((x, y) => y - x));
    expect((await l.patterns({ kind: ['CONTEXT_PATTERN'] })).edges).toHaveLength(3);
    expect((await l.patterns({ episodeId: second.episode.id })).edges).toHaveLength(6);
    expect((await l.patterns({ episodeId: 'nope' })).edges).toHaveLength(0);
  });
});
