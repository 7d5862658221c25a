// relevantEpisodes' two-field BM25 through the public GraphQL API on PostgreSQL: idf and length
// normalisation keep a long description from answering every query, the files and symbols an
// episode changed find it for a task that names them, and failed runs come back ranked and marked
// with what went wrong.
import { describe, expect, it } from 'vitest';
import { BM25 } from '../../src/retrieval/bm25.ts';
import { ids, learnerTenant, SUCCESS } from '../learning/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
useApp((app) => (t = app));

const CTX = { domain: 'shop/backend', language: 'python' };

const TOPICS = [
  'Scheduler cron parser ignores the timezone offset',
  'Invoice totals round half cents the wrong way',
  'Thumbnail worker leaks file handles on corrupt images',
  'Password reset emails are sent twice after retries',
  'Search autocomplete returns archived products',
  'Webhook signatures fail for payloads with unicode',
];

const patch = (file: string, symbol: string) =>
  [
    `diff --git a/${file} b/${file}`,
    `--- a/${file}`,
    `+++ b/${file}`,
    `@@ -10,6 +10,9 @@ class ${symbol}:`,
    '     def __eq__(self, other):',
    '+    def __hash__(self):',
    '+        return hash(self.value)',
  ].join('\n');

const submit = (file: string, symbol: string) => ({
  kind: 'tool_call',
  tool: 'submit',
  action: 'submit the change',
  parameters: { command: 'git diff --cached' },
  result: { kind: 'SUCCESS', output: patch(file, symbol) },
});

describe('two-field BM25 ranking', () => {
  it('does not let one long description answer every query (idf and length normalisation)', async () => {
    const { l } = await learnerTenant(t, 'rank-hubs');
    const topical = [];
    for (const topic of TOPICS) topical.push((await l.run({ description: `${topic}. Fix it and add a regression test.`, context: CTX })).episode.id);
    // Every word of every topic once, buried in a long report: it matches each query somewhat.
    const filler = Array.from({ length: 300 }, (_, i) => `the service logs line ${i} with some status and a value`).join('. ');
    const long = await l.run({ description: `${TOPICS.join('. ')}. ${filler}`, context: CTX });
    for (const [i, topic] of TOPICS.entries()) {
      const r = await l.relevant({ description: topic, context: CTX }, { limit: 3 });
      expect(ids(r.episodes)[0], topic).toBe(topical[i]);
      expect(r.episodes[0].score.textRank).toBe(1);
      const longOne = r.episodes.find((e: Json) => e.episode.id === long.episode.id);
      if (longOne) expect(longOne.score.taskText).toBeLessThan(r.episodes[0].score.taskText);
    }
  });

  it('weights a rare word above many common ones', async () => {
    const { l } = await learnerTenant(t, 'rank-idf');
    for (let i = 0; i < 8; i++) await l.run({ description: `Update the config of the service and the docs of the service ${'abcdefgh'[i]}`, context: CTX });
    const rare = await l.run({ description: 'Zanzibar gateway drops requests', context: CTX });
    const r = await l.relevant({ description: 'the service and the config of the zanzibar service', context: CTX });
    expect(ids(r.episodes)[0]).toBe(rare.episode.id);
  });

  it('finds the episode that changed the file and symbol a new task names, though its description says little', async () => {
    const { l } = await learnerTenant(t, 'rank-work');
    const vague = 'Fix a bug reported by a user in the forms';
    const other = await l.run({ description: vague, context: CTX, steps: [submit('shop/forms/widgets.py', 'SelectWidget')] });
    const right = await l.run({ description: vague, context: CTX, steps: [submit('shop/forms/models.py', 'ModelChoiceIteratorValue')] });
    const r = await l.relevant({ description: 'TypeError: unhashable type ModelChoiceIteratorValue in shop/forms/models.py', context: CTX });
    expect(ids(r.episodes)).toEqual([right.episode.id, other.episode.id]);
    const [first, second] = r.episodes;
    expect(first.score.work).toBeGreaterThan(second.score.work);
    expect(first.score.textRank).toBeCloseTo(1, 10);
    expect(first.score.change).toBeGreaterThan(second.score.change); // the changed file and symbol are its change field
    const sum = (s: Json) => s.taskText + s.work + s.change;
    expect(second.score.textRank).toBeCloseTo(sum(second.score) / sum(first.score), 10);
  });

  it('returns failed runs ranked among the results, marked, with what went wrong', async () => {
    const { l } = await learnerTenant(t, 'rank-failures');
    const description = 'Migrate the ledger exporter to the new storage client';
    const good = await l.run({ description: `${description} and keep retries`, context: CTX, outcome: SUCCESS });
    const bad = await l.run({
      description,
      context: CTX,
      steps: [
        {
          kind: 'tool_call',
          tool: 'test',
          action: 'run tests',
          result: { kind: 'ERROR', message: 'StorageTimeoutError: upload took 31 s', errorClass: 'StorageTimeoutError' },
        },
      ],
      outcome: { kind: 'FAILURE', reason: 'tests failing', details: 'StorageTimeoutError on upload' },
    });
    const plain = await l.relevant({ description, context: CTX });
    expect(ids(plain.episodes)).toEqual([good.episode.id]);
    const r = await l.relevant({ description: `${description}: StorageTimeoutError`, context: CTX }, { includeFailures: true });
    expect(ids(r.episodes)).toContain(bad.episode.id);
    const failed = r.episodes.find((e: Json) => e.episode.id === bad.episode.id);
    // What went wrong in the work (its last failing step), not the outcome's verdict.
    expect(failed).toMatchObject({ failed: true, whatWentWrong: 'test failed (step 1): StorageTimeoutError: upload took 31 s', episode: { status: 'FAILED' } });
    expect(failed.score.work).toBeGreaterThan(0); // its error class is in what it did
    expect(r.episodes.find((e: Json) => e.episode.id === good.episode.id)).toMatchObject({ failed: false, whatWentWrong: null });
    // Served once: a failed run among the runs is not a warning too.
    expect(ids(r.warnings)).toEqual([]);
    const one = await l.relevant({ description: `${description} and keep retries`, context: CTX }, { includeFailures: true, limit: 1 });
    expect(ids(one.episodes)).toEqual([good.episode.id]);
    expect(ids(one.warnings)).toEqual([bad.episode.id]);
    expect(one.warnings[0].whatWentWrong).toContain('StorageTimeoutError: upload took 31 s');
  });

  it('serves no warning below the relevance floor: a failed run that barely matches the task', async () => {
    const { l } = await learnerTenant(t, 'rank-warning-floor');
    const good = await l.run({ description: 'Thumbnail worker leaks file handles on corrupt images', context: CTX });
    // Shares one word with the task, and failed.
    await l.run({
      description: 'Release notes mention the worker pool size',
      context: CTX,
      outcome: { kind: 'FAILURE', reason: 'not resolved', details: 'exit' },
    });
    const r = await l.relevant(
      { description: 'Thumbnail worker leaks file handles on corrupt images again', context: CTX },
      { includeFailures: true, limit: 1 },
    );
    expect(ids(r.episodes)).toEqual([good.episode.id]);
    expect(r.warnings).toEqual([]);
  });

  it("keeps postings for an episode's best INDEXED_TERMS terms per field, counts all of them, and still finds it by a rare one", async () => {
    const { keys, l } = await learnerTenant(t, 'rank-pruning');
    for (const topic of TOPICS) await l.run({ description: `${topic}. Fix it.`, context: CTX });
    // 600 distinct words said once, and one rare identifier said three times.
    const words = Array.from({ length: 600 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
    const long = await l.run({ description: `${words.join(' ')} FrobnicatorCache FrobnicatorCache FrobnicatorCache`, context: CTX });
    const pool = t.services.db.pool;
    const { rows: postings } = await pool.query(
      'SELECT count(*)::int AS n, bool_or(term = $2) AS rare FROM episode_terms WHERE episode_id = $1 AND field = 0',
      [long.episode.id, 'frobnicatorcache'],
    );
    expect(postings[0]).toEqual({ n: BM25.INDEXED_TERMS, rare: true });
    const { rows: df } = await pool.query('SELECT count(*)::int AS n FROM episode_term_df WHERE tenant_id = $1 AND field = 0 AND term LIKE $2', [
      keys.tenantId,
      'word%',
    ]);
    expect(df[0].n).toBe(600);
    const found = await l.relevant({ description: 'the FrobnicatorCache is stale', context: CTX });
    expect(ids(found.episodes)[0]).toBe(long.episode.id);
  });

  it("goes with its tenant: a deleted tenant's postings, frequencies and totals are deleted, another tenant's stay", async () => {
    const gone = await learnerTenant(t, 'rank-deleted');
    const kept = await learnerTenant(t, 'rank-kept');
    for (const { l } of [gone, kept]) for (const topic of TOPICS.slice(0, 2)) await l.run({ description: `${topic}. Fix it.`, context: CTX });
    const pool = t.services.db.pool;
    const rowsOf = async (tenantId: string) =>
      (
        await pool.query(
          `SELECT (SELECT count(*) FROM episode_terms WHERE tenant_id = $1)::int AS postings,
                  (SELECT count(*) FROM episode_term_df WHERE tenant_id = $1)::int AS frequencies,
                  (SELECT count(*) FROM episode_term_totals WHERE tenant_id = $1)::int AS totals`,
          [tenantId],
        )
      ).rows[0];
    const before = await rowsOf(kept.keys.tenantId);
    expect(before.postings * before.frequencies * before.totals).toBeGreaterThan(0);
    await pool.query('DELETE FROM tenants WHERE id = $1', [gone.keys.tenantId]);
    expect(await rowsOf(gone.keys.tenantId)).toEqual({ postings: 0, frequencies: 0, totals: 0 });
    expect(await rowsOf(kept.keys.tenantId)).toEqual(before);
  });
});
