// relevantFiles through the HTTP server: the files runs of similar tasks changed, with their support
// (runs, resolved, failed), the runs as evidence, the files the task names, a receipt, tenancy and
// bad input.
import { describe, expect, it } from 'vitest';
import { RETRIEVAL_LIMITS } from '../../src/retrieval/inputs.ts';
import { errorFields } from '../lifecycle/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { COMPLETE, FAILURE, learnerTenant } from './support.ts';

let t: TestApp;
useApp((app) => (t = app));

const FILES = `query($task: RetrievalTaskInput!, $limit: Int, $filter: RelevantEpisodeFilter) {
  relevantFiles(task: $task, limit: $limit, filter: $filter) {
    ${errorFields('InputLimitError')}
    ... on RelevantFiles { retrievalId files { path score runs resolved failed evidence { id taskDescription status } } }
  }
}`;

const CONTEXT = { domain: 'acme/shop', language: 'python' };
const success = (files: string[]) => ({ kind: 'SUCCESS', verdict: 'resolved', artifacts: files });
const failure = (files: string[]) => ({ ...FAILURE, artifacts: files });

async function files(token: string, task: Json, vars: Json = {}): Promise<Json> {
  const res = await t.gql(FILES, { task, ...vars }, token);
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  return (res.data as Json).relevantFiles;
}

describe('relevantFiles', () => {
  it('ranks the files similar runs changed by support and outcome, with the runs as evidence, best first', async () => {
    const { keys, l } = await learnerTenant(t, 'files-support');
    const a = await l.run({
      description: 'Checkout total ignores the discount coupon on sale items',
      context: CONTEXT,
      outcome: success(['shop/pricing.py', 'shop/cart.py']),
    });
    const b = await l.run({ description: 'Discount coupon applied twice to the checkout total', context: CONTEXT, outcome: success(['b/shop/pricing.py']) });
    const c = await l.run({
      description: 'Coupon discount lost at checkout after login',
      context: CONTEXT,
      outcome: failure(['shop/session.py', 'shop/pricing.py']),
    });
    await l.run({ description: 'Render the invoice PDF with the company logo', context: CONTEXT, outcome: success(['shop/invoice.py']) });
    const r = await files(keys.write, { description: 'checkout discount coupon total is wrong', context: CONTEXT });
    expect(r.__typename).toBe('RelevantFiles');
    expect(r.retrievalId).toMatch(/^[0-9a-f-]{36}$/);
    const byPath = new Map(r.files.map((f: Json) => [f.path, f]));
    const pricing = byPath.get('shop/pricing.py') as Json;
    expect(r.files[0].path).toBe('shop/pricing.py');
    expect([pricing.runs, pricing.resolved, pricing.failed]).toEqual([3, 2, 1]);
    expect(new Set(pricing.evidence.map((e: Json) => e.id))).toEqual(new Set([a.episode.id, b.episode.id, c.episode.id]));
    expect(pricing.evidence.at(-1).status).toBe('FAILED');
    const session = byPath.get('shop/session.py') as Json;
    expect([session.runs, session.resolved, session.failed]).toEqual([1, 0, 1]);
    // A file one failed run changed counts less than one a resolved run changed as the only file.
    expect(session.score).toBeLessThan(pricing.score);
    for (let i = 1; i < r.files.length; i += 1) expect(r.files[i].score).toBeLessThanOrEqual(r.files[i - 1].score);
    expect(byPath.has('shop/invoice.py')).toBe(false);
  });

  it('lifts a file the task names when a run changed it, and never answers a path no run changed', async () => {
    const { keys, l } = await learnerTenant(t, 'files-named');
    await l.run({
      description: 'Report totals rounding error in monthly export',
      context: CONTEXT,
      outcome: success(['shop/reports/export.py', 'shop/money.py']),
    });
    await l.run({ description: 'Render the invoice PDF with the company logo', context: CONTEXT, outcome: success(['shop/invoice.py']) });
    const task = { description: 'Rounding of report totals is off; see shop.money.round_half and shop/unknown.py', context: CONTEXT };
    const r = await files(keys.write, task);
    // One run changed both files, so their votes are equal: the task's naming of shop.money decides.
    expect(r.files.slice(0, 2).map((f: Json) => f.path)).toEqual(['shop/money.py', 'shop/reports/export.py']);
    expect(r.files[0].score).toBeGreaterThan(r.files[1].score);
    expect(r.files.slice(0, 2).map((f: Json) => f.runs)).toEqual([1, 1]);
    expect(r.files.map((f: Json) => f.path)).not.toContain('shop/unknown.py');
  });

  it('never offers a file runs only ever created (a scratch file), and offers one some run changed as an existing file', async () => {
    const { keys, l } = await learnerTenant(t, 'files-scratch');
    const diff = (files: Array<[string, 'new' | 'changed']>) =>
      files
        .map(([file, kind]) =>
          [
            `diff --git a/${file} b/${file}`,
            ...(kind === 'new' ? ['new file mode 100644', '--- /dev/null'] : [`--- a/${file}`]),
            `+++ b/${file}`,
            '@@ -0,0 +1 @@',
            '+x = 1',
          ].join('\n'),
        )
        .join('\n');
    const submit = (files: Array<[string, 'new' | 'changed']>) => ({
      kind: 'tool_call',
      tool: 'submit',
      action: 'submit',
      parameters: { command: 'git diff' },
      result: { kind: 'SUCCESS', output: diff(files) },
    });
    const run = (description: string, files: Array<[string, 'new' | 'changed']>) =>
      l.run({ description, context: CONTEXT, steps: [submit(files)], outcome: success(files.map(([f]) => f)) });
    await run('Coupon discount total wrong at checkout', [
      ['shop/pricing.py', 'changed'],
      ['reproduce_coupon.py', 'new'],
    ]);
    await run('Checkout coupon discount applied twice', [
      ['shop/pricing.py', 'changed'],
      ['reproduce_coupon.py', 'new'],
      ['shop/coupons.py', 'new'],
    ]);
    // Created by one run, changed as an existing file by another: a file of the repository.
    await run('Coupon codes are case sensitive at checkout', [['shop/coupons.py', 'changed']]);
    const r = await files(keys.write, { description: 'checkout coupon discount total', context: CONTEXT });
    const paths = r.files.map((f: Json) => f.path);
    expect(paths).toContain('shop/pricing.py');
    expect(paths).toContain('shop/coupons.py');
    expect(paths).not.toContain('reproduce_coupon.py');
  });

  it("answers only files of the task's repository when the task names it", async () => {
    const { keys, l } = await learnerTenant(t, 'files-foreign');
    await l.run({ description: 'Coupon discount total wrong at checkout', context: CONTEXT, outcome: success(['shop/pricing.py']) });
    await l.run({
      description: 'Coupon discount total wrong at checkout page',
      context: { domain: 'other/store', language: 'python' },
      outcome: success(['store/prices.py']),
    });
    const own = await files(keys.write, { description: 'checkout coupon discount total', context: CONTEXT });
    expect(own.files.map((f: Json) => f.path)).toEqual(['shop/pricing.py']);
    const any = await files(keys.write, { description: 'checkout coupon discount total' });
    expect(new Set(any.files.map((f: Json) => f.path))).toEqual(new Set(['shop/pricing.py', 'store/prices.py']));
  });

  it('records a receipt that credits the evidence runs, and a read key records nothing', async () => {
    const { keys, l } = await learnerTenant(t, 'files-receipt');
    const a = await l.run({ description: 'Search results ignore the category filter', context: CONTEXT, outcome: success(['shop/search.py']) });
    const read = await files(keys.read, { description: 'category filter ignored in search', context: CONTEXT });
    expect(read.retrievalId).toBeNull();
    expect(read.files.map((f: Json) => f.path)).toEqual(['shop/search.py']);
    const before = await t.database.db.pool.query('SELECT count(*)::int AS n FROM retrievals WHERE tenant_id = $1', [keys.tenantId]);
    expect(before.rows[0].n).toBe(0);
    const r = await files(keys.write, { description: 'category filter ignored in search', context: CONTEXT });
    const { rows } = await t.database.db.pool.query('SELECT kind, episode_ids FROM retrievals WHERE id = $1', [r.retrievalId]);
    expect(rows).toEqual([{ kind: 'files', episode_ids: [a.episode.id] }]);
    const started = await l.api.startOk({ taskDescription: 'category filter ignored in search', taskType: 'bugfix', context: CONTEXT });
    const done = await l.api.call(COMPLETE, { id: started.id, outcome: success(['shop/search.py']), mode: 'SYNC', used: [r.retrievalId] });
    expect(done.feedback).toMatchObject({ episodes: 1, confirmed: 1 });
  });

  it('answers from its own tenant only', async () => {
    const one = await learnerTenant(t, 'files-tenant-one');
    const two = await learnerTenant(t, 'files-tenant-two');
    await one.l.run({ description: 'Webhook retries never stop after a 410', context: CONTEXT, outcome: success(['shop/webhooks.py']) });
    const other = await files(two.keys.write, { description: 'webhook retries never stop after 410', context: CONTEXT });
    expect(other.files).toEqual([]);
    const own = await files(one.keys.write, { description: 'webhook retries never stop after 410', context: CONTEXT });
    expect(own.files.map((f: Json) => f.path)).toEqual(['shop/webhooks.py']);
  });

  it('refuses bad input with a typed error naming the field and the limit, and records nothing', async () => {
    const { keys } = await learnerTenant(t, 'files-bad-input');
    const tooMany = await files(keys.write, { description: 'anything' }, { limit: 51 });
    expect(tooMany.__typename).toBe('InputLimitError');
    expect(tooMany.violations[0]).toMatchObject({ field: 'limit', limit: '1..50' });
    const tooLong = await files(keys.write, { description: 'x'.repeat(RETRIEVAL_LIMITS.descriptionBytes + 1) });
    expect(tooLong.__typename).toBe('InputLimitError');
    expect(tooLong.violations[0]).toMatchObject({ field: 'task.description', limit: String(RETRIEVAL_LIMITS.descriptionBytes) });
    const { rows } = await t.database.db.pool.query('SELECT count(*)::int AS n FROM retrievals WHERE tenant_id = $1', [keys.tenantId]);
    expect(rows[0].n).toBe(0);
  });
});
