// Debugging one run and watching the trend, end to end in headless Chromium (Debian's
// /usr/bin/chromium via playwright-core) against the real server: a failed step expands to its
// error, output, parameters and world state; the episode shows goal, approval, partial outcome,
// retrievals used, and its proof bundle downloads and verifies in the page; the dashboard's
// charts render what the API created and update when a run completes; patterns show lift and
// their episodes; at 360, 800 and 1440 px no text overlaps other text (element boxes) and nothing
// scrolls sideways; every control has an accessible name. Screenshots land in test-results/.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../patterns/corpus.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { BROWSER_TEST_MS, CHROMIUM, FLAGS } from '../support/browser.ts';
import type { Json } from '../support/json.ts';
import { findOverlaps, unnamedControls } from './layout.ts';

const LIVE = { timeout: 15_000, interval: 100 };
const WIDTHS = [360, 800, 1440];

let t: TestApp;
let context: BrowserContext;
let page: Page;
let profile: string;
const pageProblems: string[] = [];

async function api<T = Json>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await t.gql<T>(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data as T;
}

async function start(input: Record<string, unknown>): Promise<string> {
  const data = await api('mutation($input: StartEpisodeInput!) { startEpisode(input: $input) { ... on StartEpisodePayload { episode { id } } } }', { input });
  return data.startEpisode.episode.id;
}

async function log(id: string, steps: Array<Record<string, unknown>>) {
  const data = await api('mutation($id: ID!, $steps: [StepInput!]!) { logSteps(episodeId: $id, steps: $steps) { ... on LogStepsPayload { accepted } } }', {
    id,
    steps,
  });
  expect(data.logSteps.accepted).toBe(steps.length);
}

async function complete(id: string, outcome: Record<string, unknown>, usedRetrievals: string[] = []) {
  const data = await api(
    'mutation($id: ID!, $o: OutcomeInput!, $r: [ID!]) { completeEpisode(episodeId: $id, outcome: $o, usedRetrievals: $r, extractPatterns: SYNC) { __typename } }',
    { id, o: outcome, r: usedRetrievals },
  );
  expect(data.completeEpisode.__typename).toBe('FinishEpisodePayload');
}

/** A run as an agent would journal it: plan, a tool call or two, and an outcome. */
async function run(n: number, outcome: 'SUCCESS' | 'FAILURE' | 'PARTIAL', extra: Record<string, unknown> = {}): Promise<string> {
  const id = await start({
    taskDescription: `Upgrade dependency ${n}`,
    taskType: n % 2 ? 'upgrade' : 'bugfix',
    context: { domain: n % 3 ? 'acme/api' : 'acme/web' },
    ...extra,
  });
  await log(id, [
    { kind: 'llm_call', action: 'plan', latencyMs: 400 + n * 10, tokens: 300, cost: 0.003, result: { kind: 'SUCCESS', output: 'plan' } },
    {
      tool: 'shell',
      action: 'test',
      latencyMs: 900 + n * 40,
      tokens: 0,
      result: outcome === 'SUCCESS' ? { kind: 'SUCCESS', output: 'green' } : { kind: 'ERROR', message: 'red', errorClass: 'TestFailure' },
    },
  ]);
  await complete(
    id,
    outcome === 'SUCCESS'
      ? { kind: 'SUCCESS', verdict: 'done' }
      : outcome === 'PARTIAL'
        ? { kind: 'PARTIAL', verdict: 'some', completed: ['a'], failed: ['b'] }
        : { kind: 'FAILURE', reason: 'tests fail' },
  );
  return id;
}

const home = () => t.url.replace(/\/graphql$/, '/');
async function open(hash: string) {
  await page.goto(`${home()}${hash}`);
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: this browser test needs Debian's chromium (apt-get install -y chromium)`);
  t = await startTestApp({ CHECKPOINT_INTERVAL_MS: '200' }); // proof bundles need a signed checkpoint after the events
  profile = await mkdtemp(join(tmpdir(), 'episodic-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1440, height: 960 },
    acceptDownloads: true,
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (err) => pageProblems.push(err.message));
  page.on('console', (msg) => msg.type() === 'error' && pageProblems.push(msg.text()));
  await page.goto(home());
  await page.getByLabel('API key').fill(t.keys.read);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.link.live').waitFor({ timeout: LIVE.timeout });
});

afterAll(async () => {
  await context?.close();
  await t?.stop();
  if (profile) await rm(profile, { recursive: true, force: true });
});

describe('debugging one run', { timeout: BROWSER_TEST_MS }, () => {
  let debugged: string;

  it('expanding a failed step shows its error, output, parameters, observation and world state', async () => {
    for (let n = 1; n <= 3; n++) await run(n, 'SUCCESS'); // history to retrieve and learn from
    const served = await api('{ relevantEpisodes(task: { description: "Upgrade dependency" }) { ... on RelevantEpisodes { retrievalId } } }');
    debugged = await start({
      taskDescription: 'Migrate the billing schema',
      taskType: 'migration',
      goalSpec: 'Every invoice keeps its total after the migration',
      context: { domain: 'acme/billing' },
    });
    await log(debugged, [
      { kind: 'observation', observation: 'Found 3 migrations pending' },
      {
        tool: 'shell',
        action: 'migrate',
        latencyMs: 2100,
        tokens: 120,
        parameters: { cmd: 'npm run migrate', apiKey: 'sk-live-123' },
        worldBefore: { schemaVersion: 41 },
        worldAfter: { schemaVersion: 41, lock: 'held' },
        observation: 'the lock was never released',
        result: { kind: 'ERROR', message: 'relation "invoices_v2" already exists', errorClass: 'MigrationConflict' },
      },
    ]);
    await api(
      'mutation($id: ID!) { blockEpisode(episodeId: $id, reason: "drop a table", approvalRequest: { action: "DROP TABLE invoices_v2" }) { __typename } }',
      { id: debugged },
    );
    await api('mutation($id: ID!) { resumeEpisode(episodeId: $id, approved: true, decidedBy: "dba-on-call", comment: "backup verified") { __typename } }', {
      id: debugged,
    });
    await complete(debugged, { kind: 'PARTIAL', verdict: 'schema migrated, data pending', completed: ['schema'], failed: ['backfill invoices'] }, [
      served.relevantEpisodes.retrievalId,
    ]);

    await open(`#/episodes/${debugged}`);
    await page.getByRole('heading', { name: 'Migrate the billing schema' }).waitFor();
    const article = page.locator('article.episode');
    await expect.poll(() => page.locator('.timeline li').count(), LIVE).toBe(4); // observation, tool call, 2 approval steps
    expect(await page.locator('.timeline li').first().textContent()).toContain('Found 3 migrations pending'); // observation rows are not blank

    const failed = page.locator('.timeline li[data-step="2"] button.step-row');
    expect(await failed.getAttribute('aria-expanded')).toBe('false');
    await failed.focus();
    await page.keyboard.press('Enter'); // keyboard, not only the mouse
    const detail = page.locator('#step-2');
    await detail.locator('.step-error').waitFor();
    expect(await failed.getAttribute('aria-expanded')).toBe('true');
    expect(await detail.locator('.step-error').textContent()).toBe('MigrationConflict: relation "invoices_v2" already exists');
    const text = await detail.textContent();
    expect(text).toContain('the lock was never released');
    expect(text).toContain('npm run migrate');
    expect(text).not.toContain('sk-live-123'); // the redacted copy
    expect(text).toMatch(/args hash [0-9a-f]{16}/);
    expect(await detail.getByRole('group', { name: 'Error' }).count()).toBe(1);
    expect(await detail.locator('[aria-label="World after"]').textContent()).toContain('"lock": "held"');

    const ok = page.locator('.timeline li[data-step="1"] button.step-row');
    await ok.click();
    await page.locator('#step-1').getByText('Found 3 migrations pending').waitFor();

    expect(await article.locator('.goal').textContent()).toBe('Every invoice keeps its total after the migration');
    expect(await article.locator('.outcome').getAttribute('data-outcome')).toBe('PARTIAL');
    expect(await article.locator('.outcome').textContent()).toContain('partial success');
    expect(await article.locator('.checklist .not-done').textContent()).toContain('backfill invoices');
    await expect
      .poll(() => article.locator('[data-approval="approval_resolved"]').textContent(), LIVE)
      .toContain('Approved at step 4 by dba-on-call: backup verified');
    expect(await article.locator('[data-approval="approval_requested"]').textContent()).toContain('DROP TABLE invoices_v2');
    expect(await article.locator('.card', { hasText: 'Retrievals used' }).textContent()).toContain('outcome partial');
    expect(pageProblems).toEqual([]);
  });

  it('downloads the proof bundle in one click and verifies it in the page; a tampered event fails', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download proof bundle' }).click()]);
    expect(download.suggestedFilename()).toBe(`episode-${debugged}.proof.json`);
    const bundle = JSON.parse(await readFile((await download.path()) as string, 'utf8'));
    expect(bundle.events.length).toBeGreaterThan(3);
    const verdict = page.locator('.verdict');
    await expect.poll(() => verdict.getAttribute('data-verdict'), LIVE).toBe('verified');
    expect(await verdict.textContent()).toContain(`${bundle.events.length} of ${bundle.events.length} events`);

    await t.services.db.pool.query(
      `UPDATE ledger_events SET payload = jsonb_set(payload, '{taskType}', '"edited"') WHERE tenant_id = $1 AND episode_id = $2 AND type = 'episode.started'`,
      [t.keys.tenantId, debugged],
    );
    await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download proof bundle' }).click()]);
    await expect.poll(() => verdict.getAttribute('data-verdict'), LIVE).toBe('failed');
    expect(await verdict.textContent()).toContain('hash mismatch');
    await t.services.db.pool.query(
      `UPDATE ledger_events SET payload = jsonb_set(payload, '{taskType}', '"migration"') WHERE tenant_id = $1 AND episode_id = $2 AND type = 'episode.started'`,
      [t.keys.tenantId, debugged],
    );
  });
});

const tile = (name: string) => page.locator(`[data-tile="${name}"] .tile-value`);
/** Sum of the bars of one series in a chart. */
const barSum = (chart: string, series: string) =>
  page
    .locator(`[data-chart="${chart}"] rect[data-series="${series}"]`)
    .evaluateAll((els) => els.reduce((n, el) => n + Number(el.getAttribute('data-value')), 0));

describe('dashboard', { timeout: BROWSER_TEST_MS }, () => {
  it('renders charts from the runs created through the API and updates when a new run completes', async () => {
    await run(4, 'FAILURE');
    await run(5, 'PARTIAL');
    await open('#/dashboard');
    await expect.poll(() => tile('Runs').textContent(), LIVE).toBe('6');
    expect(await tile('Success rate').textContent()).toBe('50.0%'); // 3 of 6 ended
    expect(await barSum('Runs per hour by status', 'completed')).toBe(5);
    expect(await barSum('Runs per hour by status', 'failed')).toBe(1);
    expect(await page.locator('[data-chart="Tool error rates"] [data-tool="shell"] [role="meter"]').getAttribute('aria-valuenow')).toBe('50'); // 3 of 6 shell calls failed
    expect(await page.locator('[data-chart="Step latency"] circle').count()).toBeGreaterThan(0);
    expect(await page.locator('svg[role="img"]').count()).toBe(8);

    await run(6, 'SUCCESS'); // completes while the page is open: the ledger stream reloads it
    await expect.poll(() => tile('Runs').textContent(), LIVE).toBe('7');
    await expect.poll(() => barSum('Runs per hour by status', 'completed'), LIVE).toBe(6);
    expect(await tile('Success rate').textContent()).toBe('57.1%');

    await page.getByLabel('Task type').fill('migration');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => tile('Runs').textContent(), LIVE).toBe('1');
    expect(await tile('Retrievals').textContent()).toBe('1 served'); // receipts carry no task type: the tenant's
    expect(pageProblems).toEqual([]);
  });

  it('lists active patterns with their lift and the episodes behind them', async () => {
    // Patterns need support and a lift over comparable episodes: the pattern tests' small history.
    for (const r of corpus()) {
      const id = await start({ taskDescription: r.description, taskType: 'bugfix', context: r.context });
      await log(id, r.steps as Array<Record<string, unknown>>);
      await complete(id, r.outcome as Record<string, unknown>);
    }
    await open('#/patterns');
    const card = page.locator('li.pattern').first();
    await card.waitFor(LIVE);
    expect(await card.locator('[data-lift]').textContent()).toMatch(/^[+-]\d+(\.\d+)?$/);
    await card.getByRole('button', { name: /Episodes behind it/ }).click();
    await expect.poll(() => card.locator('.backing li').count(), LIVE).toBeGreaterThan(1);
    expect(await card.locator('.backing').textContent()).toContain('order');
  });

  it('shows a receipt with what it served and its credit, and scores a retrieval run in the page', async () => {
    await open('#/retrievals');
    const receipt = page.locator('li.receipt').first();
    await receipt.waitFor(LIVE);
    await receipt.locator('summary').click();
    expect(await receipt.textContent()).toContain('Migrate the billing schema ended partial');
    await page.getByLabel('Task description').fill('Upgrade dependency');
    await page.getByRole('button', { name: 'Retrieve' }).click();
    const scores = page.locator('table.scores').first();
    await scores.waitFor(LIVE);
    expect(await scores.locator('thead').textContent()).toContain('contextMatch');
    expect(await scores.locator('tbody tr').count()).toBeGreaterThan(0);
  });
});

describe('layout', { timeout: BROWSER_TEST_MS }, () => {
  it('at 360, 800 and 1440 px no text overlaps, nothing scrolls sideways, and every control has a name', async () => {
    const views = [
      '#/',
      `#/episodes/${(await api('{ episodes(filter: { taskType: "migration" }) { edges { node { id } } } }')).episodes.edges[0].node.id}`,
      '#/dashboard',
      '#/patterns',
      '#/retrievals',
    ];
    // The check itself finds text laid over text.
    await open('#/');
    // (set through the CSSOM: the page's CSP refuses inline style attributes)
    await page.evaluate(`for (const [text, at] of [['overlap one', 0], ['overlap two', 4]]) {
      const span = document.createElement('span');
      span.textContent = text;
      Object.assign(span.style, { position: 'fixed', top: at + 'px', left: at + 'px' });
      span.className = 'probe';
      document.body.append(span);
    }`);
    expect(await page.evaluate(findOverlaps)).toContain('overlap one / overlap two');
    await page.evaluate(`document.querySelectorAll('.probe').forEach((el) => el.remove())`);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      for (const view of views) {
        await open(view);
        await page.locator('.view > *').first().waitFor();
        await page.waitForLoadState('networkidle');
        if (view.startsWith('#/episodes/')) {
          await page.locator('.timeline li[data-step="2"] button.step-row').click();
          await page.locator('#step-2 .step-error').waitFor();
        }
        if (view === '#/dashboard') await page.locator('.charts').waitFor();
        const problems = await page.evaluate(findOverlaps);
        expect(problems, `${view} at ${width} px`).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth), `${view} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
        expect(await page.evaluate(unnamedControls), `${view} at ${width} px`).toEqual([]);
      }
    }
    expect(pageProblems).toEqual([]);
  });

  it('takes the screenshots of the README', async () => {
    // For the picture only: more runs through the API, then moved back over the day in the
    // database (the API has no historical start time), and the rollup rebuilt.
    const kinds = ['SUCCESS', 'SUCCESS', 'FAILURE', 'SUCCESS', 'PARTIAL', 'SUCCESS'] as const;
    for (let n = 0; n < 36; n++) {
      const id = await run(10 + n, kinds[n % kinds.length] ?? 'SUCCESS');
      const shift = `${1 + ((n * 7) % 22)} hours`;
      await t.services.db.pool.query(`UPDATE episodes SET started_at = started_at - $2::interval, ended_at = ended_at - $2::interval WHERE id = $1`, [
        id,
        shift,
      ]);
      await t.services.db.pool.query(`UPDATE steps SET created_at = created_at - $2::interval WHERE episode_id = $1`, [id, shift]);
    }
    await t.services.db.pool.query('DELETE FROM monitor_rollup_states');
    await mkdir('test-results', { recursive: true });
    await page.setViewportSize({ width: 1440, height: 900 });
    await open('#/dashboard');
    await page.locator('.charts').waitFor();
    await page.screenshot({ path: 'test-results/dashboard.png', fullPage: true });
    await open(`#/episodes/${(await api('{ episodes(filter: { taskType: "migration" }) { edges { node { id } } } }')).episodes.edges[0].node.id}`);
    await page.locator('.timeline li[data-step="2"] button.step-row').click();
    await page.locator('#step-2 .step-error').waitFor();
    await page.screenshot({ path: 'test-results/episode.png', fullPage: true });
    expect(existsSync('test-results/episode.png')).toBe(true);
  });
});
