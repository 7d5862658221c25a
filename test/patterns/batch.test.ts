// Extraction in batches (extractPatternBatch, what a queue draining a backlog calls) learns exactly
// what one-at-a-time extraction learns: the counts are summed per batch, the scope refreshed once.
import { describe, expect, it } from 'vitest';
import { extractPatternBatch } from '../../src/learning/extract.ts';
import { type Learner, learnerTenant } from '../learning/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { corpus, reordered } from './corpus.ts';

let t: TestApp;
// No queue room: every ASYNC completion leaves its extraction skipped, for the batches below.
useApp((app) => (t = app), { LEARNING_QUEUE_MAX_DEPTH: '0' });

async function active(l: Learner) {
  const page = await l.patterns({ status: ['ACTIVE'] }, 100);
  return page.edges.map((e: Json) => `${e.node.key} ${e.node.occurrences} ${e.node.successes} ${e.node.lift}`).sort();
}

describe('extractPatternBatch', () => {
  it('learns the same active set in batches as one episode at a time', async () => {
    const one = await learnerTenant(t, 'batch-one');
    const many = await learnerTenant(t, 'batch-many');
    for (const run of corpus()) await one.l.run({ description: run.description, context: run.context, steps: run.steps, outcome: run.outcome, mode: 'SYNC' });
    const ids: string[] = [];
    for (const run of reordered(corpus())) {
      const done = await many.l.run({ description: run.description, context: run.context, steps: run.steps, outcome: run.outcome, mode: 'ASYNC' });
      ids.push(done.episode.id);
    }
    expect(await active(many.l)).toEqual([]);
    const reports = [];
    for (let i = 0; i < ids.length; i += 7) {
      reports.push(...(await t.services.writer.run(many.keys.tenantId, (ctx) => extractPatternBatch(ctx, ids.slice(i, i + 7), 'async'))));
    }
    expect(reports.map((r) => r.episodeId)).toEqual(ids);
    expect(await active(many.l)).toEqual(await active(one.l));
    expect((await active(one.l)).length).toBeGreaterThan(0);
    for (const id of ids) expect((await many.l.episode(id)).learningState).toBe('DONE');
    // A second run of the same batch has nothing to do: nothing is counted twice.
    expect(await t.services.writer.run(many.keys.tenantId, (ctx) => extractPatternBatch(ctx, ids.slice(0, 7), 'async'))).toEqual([]);
  }, 300_000); // 86 runs through the API: seconds alone, minutes on a loaded machine
});
