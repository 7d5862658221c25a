// relevantEpisodes: completed episodes ranked by context match, reward, description similarity,
// recency and feedback, in SQL over indexes, with the score breakdown, receipts, filters, tenancy,
// non-English text and failures as warnings.
import { beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { contentHash } from '../../src/ledger/format/hash.ts';
import { RELEVANCE_WEIGHTS } from '../../src/retrieval/score.ts';
import { startInput } from '../lifecycle/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { FAILURE, ids, type Learner, learnerTenant, ledger, RELEVANT_EPISODES, SUCCESS } from './support.ts';

let t: TestApp;
useApp((app) => (t = app));

const WEB = { domain: 'web', language: 'typescript', framework: 'express', tags: ['api'] };
const DATA = { domain: 'data', language: 'python', framework: 'pandas', tags: ['etl'] };

function expectBreakdown(s: Json) {
  expect(s.similarity).toBeCloseTo(Math.max(s.textRank, s.trigramSimilarity), 6);
  // Without a learned model the evidence is the fixed formula's; the priors scale it (evidence first).
  expect(s.learned).toBe(false);
  const evidence =
    (RELEVANCE_WEIGHTS.contextMatch * s.contextMatch + RELEVANCE_WEIGHTS.similarity * s.similarity) /
    (RELEVANCE_WEIGHTS.contextMatch + RELEVANCE_WEIGHTS.similarity);
  expect(s.evidence).toBeCloseTo(evidence, 10);
  const factor = 1 + RELEVANCE_WEIGHTS.reward * s.reward + RELEVANCE_WEIGHTS.recency * s.recency + RELEVANCE_WEIGHTS.feedback * s.feedback;
  expect(s.total).toBeCloseTo(evidence * factor, 10);
}

/**
 * Sends a request while another transaction holds the tenant's ledger head (which the receipt's
 * statement takes), checks that no answer came meanwhile, then lets the receipt commit; the answer.
 */
async function whileLedgerHeadHeld<T>(tenantId: string, send: () => Promise<T>): Promise<T> {
  const holder = await t.services.db.pool.connect();
  let answer: Promise<T>;
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM ledger_heads WHERE tenant_id = $1 FOR UPDATE', [tenantId]);
    let answered = false;
    answer = send().finally(() => {
      answered = true;
    });
    await new Promise((r) => setTimeout(r, 400));
    expect(answered).toBe(false);
  } finally {
    await holder.query('ROLLBACK');
    holder.release();
  }
  return answer;
}

describe('ranking', () => {
  it('puts a context match above a mismatch with the same description', async () => {
    const { l } = await learnerTenant(t, 'rank-context');
    const description = 'Add pagination to the orders endpoint';
    const data = await l.run({ description, context: DATA });
    const web = await l.run({ description, context: WEB });
    const r = await l.relevant({ description, taskType: 'bugfix', context: WEB });
    expect(ids(r.episodes)).toEqual([web.episode.id, data.episode.id]);
    expect(r.episodes[0].score.contextMatch).toBe(1);
    expect(r.episodes[1].score.contextMatch).toBeCloseTo(0.2, 10); // only the task type matches
    for (const e of r.episodes) expectBreakdown(e.score);
  });

  it('lets the reward break a tie', async () => {
    const { l } = await learnerTenant(t, 'rank-reward');
    const description = 'Rotate the TLS certificates of the gateway';
    const weak = await l.run({ description, context: WEB, outcome: { kind: 'PARTIAL', verdict: 'half', completed: ['a'], failed: ['b', 'c'] } });
    const strong = await l.run({ description, context: WEB, critique: { score: 1 } });
    const r = await l.relevant({ description, context: WEB });
    expect(ids(r.episodes)).toEqual([strong.episode.id, weak.episode.id]);
    expect(r.episodes[0].score.reward).toBeCloseTo(strong.episode.reward.normalized, 10);
    expect(r.episodes[1].score.reward).toBeCloseTo(weak.episode.reward.normalized, 10);
    expect(r.episodes[0].score.contextMatch).toBe(r.episodes[1].score.contextMatch);
  });

  it('ranks by description similarity when the context is the same', async () => {
    const { l } = await learnerTenant(t, 'rank-text');
    const unrelated = await l.run({ description: 'Write the quarterly marketing newsletter', context: WEB });
    const close = await l.run({ description: 'Fix the flaky login test in the auth service', context: WEB });
    const partly = await l.run({ description: 'Speed up the login page', context: WEB });
    const r = await l.relevant({ description: 'flaky login test fails in the auth service', context: WEB });
    expect(ids(r.episodes)).toEqual([close.episode.id, partly.episode.id, unrelated.episode.id]);
    expect(r.episodes[0].score.textRank).toBeGreaterThan(0);
    expect(r.episodes[0].score.similarity).toBeGreaterThan(r.episodes[1].score.similarity);
    for (const e of r.episodes) expectBreakdown(e.score);
  });

  it('finds nothing when nothing matches, and never scans: a query with no text or context returns nothing', async () => {
    const { l } = await learnerTenant(t, 'rank-empty');
    await l.run({ description: 'Migrate the billing database', context: DATA });
    expect((await l.relevant({ description: 'zzqx wvvk', context: { domain: 'mobile' } })).episodes).toEqual([]);
    expect((await l.relevant({ description: '' })).episodes).toEqual([]);
  });
});

describe('filters', () => {
  let l: Learner;
  const description = 'Upgrade the Postgres driver in the ingestion service';
  const ep: Record<string, string> = {};
  beforeAll(async () => {
    ({ l } = await learnerTenant(t, 'filters'));
    ep.good = (await l.run({ description, context: DATA, critique: { score: 1 } })).episode.id;
    ep.poor = (await l.run({ description, context: DATA, outcome: { kind: 'PARTIAL', verdict: 'barely', completed: [], failed: ['x', 'y'] } })).episode.id;
    ep.failed = (await l.run({ description, context: DATA, outcome: FAILURE })).episode.id;
    const running = await l.api.startOk(startInput({ taskDescription: description, context: DATA }));
    ep.running = running.id;
    const cancelled = await l.api.startOk(startInput({ taskDescription: description, context: DATA }));
    await l.api.cancel(cancelled.id);
    ep.cancelled = cancelled.id;
    const byAgent = await l.api.startOk(startInput({ taskDescription: description, context: DATA, agent: 'robot-7' }));
    await l.completeOk(byAgent.id, SUCCESS);
    ep.agent = byAgent.id;
  });

  it('returns only completed episodes; failures, when asked, ranked among them and as warnings', async () => {
    const plain = await l.relevant({ description, context: DATA });
    expect(ids(plain.episodes).sort()).toEqual([ep.good, ep.poor, ep.agent].sort());
    expect(plain.warnings).toEqual([]);
    const warned = await l.relevant({ description, context: DATA }, { includeFailures: true });
    expect(ids(warned.episodes).sort()).toEqual([ep.good, ep.poor, ep.agent, ep.failed].sort());
    expect(warned.episodes.filter((e: Json) => e.failed).map((e: Json) => e.episode.id)).toEqual([ep.failed]);
    // Served once: the failed run is among the runs, so it is no warning too.
    expect(warned.warnings).toEqual([]);
    const best = await l.relevant({ description, context: DATA }, { includeFailures: true, limit: 1 });
    expect(ids(best.episodes)).toEqual([ep.good]);
    expect(ids(best.warnings)).toEqual([ep.failed]);
    expect(best.warnings[0].episode.status).toBe('FAILED');
    expectBreakdown(best.warnings[0].score);
  });

  it('applies minReward, endedAfter, agent and limit', async () => {
    const good = await l.episode(must(ep.good));
    const poor = await l.episode(must(ep.poor));
    const floor = (good.reward.normalized + poor.reward.normalized) / 2;
    expect(ids((await l.relevant({ description }, { filter: { minReward: floor } })).episodes)).not.toContain(ep.poor);
    expect((await l.relevant({ description }, { filter: { endedAfter: new Date(Date.now() + 60_000).toISOString() } })).episodes).toEqual([]);
    expect(ids((await l.relevant({ description }, { filter: { agent: 'robot-7' } })).episodes)).toEqual([ep.agent]);
    expect((await l.relevant({ description }, { limit: 1 })).episodes).toHaveLength(1);
  });

  it('refuses bad input with InputLimitError', async () => {
    expect((await l.relevantRaw({ description }, { limit: 0 })).__typename).toBe('InputLimitError');
    expect((await l.relevantRaw({ description }, { limit: 51 })).__typename).toBe('InputLimitError');
    const long = await l.relevantRaw({ description: 'x'.repeat(256 * 1024 + 1) });
    expect(long).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: 'task.description' }] });
    const tags = await l.relevantRaw({ description, context: { tags: Array.from({ length: 33 }, (_, i) => `t${i}`) } });
    expect(tags).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: 'task.context.tags' }] });
  });
});

describe('non-English descriptions', () => {
  let l: Learner;
  const ep: Record<string, string> = {};
  beforeAll(async () => {
    ({ l } = await learnerTenant(t, 'i18n'));
    const ctx = { domain: 'backend' };
    ep.de = (await l.run({ description: 'Datenbankmigration für die Benutzertabelle reparieren', context: ctx })).episode.id;
    ep.de2 = (await l.run({ description: 'Rechnungen als PDF exportieren', context: ctx })).episode.id;
    ep.ru = (await l.run({ description: 'Исправить миграцию базы данных для таблицы пользователей', context: ctx })).episode.id;
    ep.ru2 = (await l.run({ description: 'Добавить экспорт счетов в PDF', context: ctx })).episode.id;
    ep.ja = (await l.run({ description: 'データベースの移行スクリプトを修正する', context: ctx })).episode.id;
    ep.ja2 = (await l.run({ description: '請求書をPDFで出力する', context: ctx })).episode.id;
  });

  it('matches German words through the simple configuration', async () => {
    const r = await l.relevant({ description: 'Benutzertabelle: Datenbankmigration reparieren', context: { domain: 'backend' } });
    expect(r.episodes[0].episode.id).toBe(must(ep.de));
    expect(r.episodes[0].score.textRank).toBeGreaterThan(0);
  });

  it('matches Russian words, and inflected forms by trigrams', async () => {
    const exact = await l.relevant({ description: 'миграцию базы данных исправить' });
    expect(exact.episodes[0].episode.id).toBe(must(ep.ru));
    expect(exact.episodes[0].score.textRank).toBeGreaterThan(0);
    const inflected = await l.relevant({ description: 'Исправить миграции базы данных таблицы пользователя' });
    expect(inflected.episodes[0].episode.id).toBe(must(ep.ru));
  });

  it('matches Japanese, written without spaces, by trigram similarity', async () => {
    const r = await l.relevant({ description: 'データベースの移行スクリプトを修正した' });
    expect(r.episodes[0].episode.id).toBe(must(ep.ja));
    expect(r.episodes[0].score.textRank).toBe(0);
    expect(r.episodes[0].score.trigramSimilarity).toBeGreaterThan(0.3);
    expectBreakdown(r.episodes[0].score);
  });
});

describe('tenancy and receipts', () => {
  it('never shows one tenant the episodes of another', async () => {
    const a = await learnerTenant(t, 'tenancy-a');
    const b = await learnerTenant(t, 'tenancy-b');
    const description = 'Shard the events table by month';
    const mine = await a.l.run({ description, context: DATA });
    const query = { description, context: DATA };
    expect(ids((await a.l.relevant(query, { includeFailures: true })).episodes)).toEqual([mine.episode.id]);
    expect(await b.l.relevant(query, { includeFailures: true })).toMatchObject({ episodes: [], warnings: [] });
    const theirs = await b.l.run({ description, context: DATA });
    expect(ids((await b.l.relevant(query)).episodes)).toEqual([theirs.episode.id]);
  });

  it('records each retrieval with a receipt and a retrieval.served event hashing the query and the results', async () => {
    const { keys, l } = await learnerTenant(t, 'receipts');
    const description = 'Cache the product catalogue in Redis';
    await l.run({ description, context: WEB });
    await l.run({ description, context: WEB, outcome: FAILURE });
    const task = { description, context: WEB };
    // limit 1: the failed run is a warning only when it is not among the runs served.
    const r = await l.relevant(task, { includeFailures: true, limit: 1 });
    const [event] = await ledger(t, keys.tenantId, 'retrieval.served');
    const { rows } = await t.services.db.pool.query('SELECT * FROM retrievals WHERE id = $1', [r.retrievalId]);
    const served = { episodes: ids(r.episodes), warnings: ids(r.warnings), patterns: [] };
    expect(rows[0]).toMatchObject({ tenant_id: keys.tenantId, kind: 'episodes', episode_ids: served.episodes, warning_ids: served.warnings });
    expect(must(event).payload).toEqual({
      retrievalId: r.retrievalId,
      kind: 'episodes',
      queryHash: rows[0].query_hash,
      resultsHash: contentHash(served),
      counts: { episodes: 1, warnings: 1, patterns: 0 },
    });
    const query = {
      task: { description, taskType: null, context: { domain: 'web', language: 'typescript', framework: 'express', tags: ['api'] } },
      limit: 1,
      includeFailures: true,
      filter: { minReward: null, endedAfter: null, agent: null },
    };
    expect(rows[0].query_hash).toBe(contentHash(query));
    const again = await l.relevant(task, { includeFailures: true, limit: 5 });
    expect(again.retrievalId).not.toBe(r.retrievalId);
  });
  it('answers only once the receipt has committed (it commits while the answer is read), over HTTP and graphql-ws', async () => {
    const { keys, l } = await learnerTenant(t, 'receipt-before-answer');
    const description = 'Retry the webhook delivery with backoff';
    await l.run({ description, context: WEB });
    const overHttp = () => t.gql(RELEVANT_EPISODES, { task: { description } }, keys.write);
    const overWs = () =>
      new Promise<Json>((resolve, reject) => {
        let result: Json;
        t.wsClient(keys.write).subscribe(
          { query: RELEVANT_EPISODES, variables: { task: { description } } },
          { next: (r) => (result = r), error: reject, complete: () => resolve(result) },
        );
      });
    const served: string[] = [];
    for (const send of [overHttp, overWs]) {
      const answer = (await whileLedgerHeadHeld(keys.tenantId, send)) as { data: { relevantEpisodes: { retrievalId: string } } };
      const { retrievalId } = answer.data.relevantEpisodes;
      const { rows } = await t.services.db.pool.query('SELECT kind FROM retrievals WHERE id = $1', [retrievalId]);
      expect(rows).toEqual([{ kind: 'episodes' }]);
      served.push(retrievalId);
    }
    expect((await ledger(t, keys.tenantId, 'retrieval.served')).map((e) => (e.payload as Json).retrievalId)).toEqual(served);
  });

  it('fails the answer, naming no retrieval, when its receipt cannot be stored', async () => {
    const { keys, l } = await learnerTenant(t, 'receipt-fails');
    const description = 'Compress the nightly backups';
    await l.run({ description, context: WEB });
    const constraint = `receipts_refused_${keys.tenantId.replaceAll('-', '')}`;
    await t.services.db.pool.query(`ALTER TABLE retrievals ADD CONSTRAINT ${constraint} CHECK (tenant_id <> '${keys.tenantId}') NOT VALID`);
    try {
      const r = await t.gql(RELEVANT_EPISODES, { task: { description } }, keys.write);
      expect(r.data).toBeNull();
      expect(r.errors).toHaveLength(1);
      expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', requestId: expect.any(String) });
      expect(JSON.stringify(r)).not.toContain(constraint);
      for (const patterns of [true, false]) {
        const other = patterns
          ? await t.gql(
              'query($d: String!) { relevantPatterns(task: { description: $d }) { __typename ... on RelevantPatterns { retrievalId } } }',
              { d: description },
              keys.write,
            )
          : await t.gql(
              'query($d: String!) { relevantFiles(task: { description: $d }) { __typename ... on RelevantFiles { retrievalId } } }',
              { d: description },
              keys.write,
            );
        expect(other.data).toBeNull();
        expect(other.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
      }
      // A read-scope key records nothing, so the same retrieval answers it meanwhile.
      const read = await t.gql(RELEVANT_EPISODES, { task: { description } }, keys.read);
      expect(read.errors).toBeUndefined();
      expect(read.data).toMatchObject({ relevantEpisodes: { retrievalId: null } });
    } finally {
      await t.services.db.pool.query(`ALTER TABLE retrievals DROP CONSTRAINT ${constraint}`);
    }
    expect(await ledger(t, keys.tenantId, 'retrieval.served')).toEqual([]);
  });
});
