// End to end in headless Chromium (Debian's package at /usr/bin/chromium, driven by playwright-core):
// the real server serves the built page; a read key signs in; episodes created through the API
// appear live; the ledger stream is verified in the browser, across a dropped WebSocket and from an
// anchor after a reload, and an event altered in the database is flagged; an episode shows its
// budget bars, step timeline, critique, checkpoint and outcome as they happen. Fails (never skips)
// without Chromium. The screenshot lands in test-results/monitor.png.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page, type WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { BROWSER_TEST_MS, CHROMIUM, FLAGS } from '../support/browser.ts';
import type { Json } from '../support/json.ts';

const SCREENSHOT = 'test-results/monitor.png';
const LIVE = { timeout: 15_000, interval: 100 };

let t: TestApp;
let context: BrowserContext;
let page: Page;
let profile: string;
const sockets: WebSocketRoute[] = [];
const pageProblems: string[] = [];

async function api<T = Json>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await t.gql<T>(query, variables);
  expect(res.errors).toBeUndefined();
  return must(res.data);
}

async function startEpisode(input: Record<string, unknown>): Promise<string> {
  const data = await api(
    'mutation($input: StartEpisodeInput!) { startEpisode(input: $input) { ... on StartEpisodePayload { episode { id } } ... on Error { message } } }',
    { input },
  );
  expect(data.startEpisode.episode?.id, data.startEpisode.message).toBeTruthy();
  return data.startEpisode.episode.id;
}

async function logSteps(id: string, steps: Array<Record<string, unknown>>) {
  const data = await api('mutation($id: ID!, $steps: [StepInput!]!) { logSteps(episodeId: $id, steps: $steps) { ... on LogStepsPayload { accepted } } }', {
    id,
    steps,
  });
  expect(data.logSteps.accepted).toBe(steps.length);
}

async function headSeq(): Promise<number> {
  return Number((await api('{ ledgerHead { seq } }')).ledgerHead.seq);
}

/** The seqs shown in the ledger panel and how many carry a verified badge. */
async function ledgerPanel() {
  const items = page.locator('.ledger li[data-seq]');
  const seqs = (await items.evaluateAll((els) => els.map((el) => el.getAttribute('data-seq')))).map(Number);
  const verified = await page.locator('.ledger [data-verdict="verified"]').count();
  return { seqs: [...seqs].sort((a, b) => a - b), verified, unique: new Set(seqs).size };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const rows = () => page.locator('table.list tbody tr');
const bar = (resource: string) => page.locator(`.budget[data-resource="${resource}"] [role="progressbar"]`).getAttribute('aria-valuenow');

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: this browser test needs Debian's chromium (apt-get install -y chromium; .ci/run installs it)`);
  }
  t = await startTestApp();
  profile = await mkdtemp(join(tmpdir(), 'episodic-chromium-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1440, height: 960 } });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (err) => pageProblems.push(err.message));
  page.on('console', (msg) => msg.type() === 'error' && pageProblems.push(msg.text()));
  // Pass the page's sockets through, keeping a handle to cut them.
  await page.routeWebSocket(/\/graphql$/, (ws) => {
    ws.connectToServer();
    sockets.push(ws);
  });
});

afterAll(async () => {
  await context?.close();
  await t?.stop();
  if (profile) await rm(profile, { recursive: true, force: true });
});

describe('monitor page in Chromium', { timeout: BROWSER_TEST_MS }, () => {
  let flaky: string;

  it('serves the page at /, refuses a bad key, and signs in with a read key kept in sessionStorage only', async () => {
    flaky = await startEpisode({
      taskDescription: 'Fix the flaky invoice test',
      taskType: 'bugfix',
      agent: 'coder-7',
      budget: { maxTokens: 1000, maxSteps: 10 },
      context: { domain: 'billing', language: 'typescript', complexity: 'MODERATE', tags: ['ci', 'flaky'] },
    });
    await logSteps(flaky, [
      { kind: 'llm_call', action: 'plan', latencyMs: 820, tokens: 250, result: { kind: 'SUCCESS', output: 'plan' } },
      {
        kind: 'tool_call',
        tool: 'shell',
        action: 'run',
        latencyMs: 1540,
        tokens: 0,
        parameters: { cmd: 'npm test' },
        result: { kind: 'ERROR', message: '1 failing', errorClass: 'TestFailure' },
      },
      { kind: 'llm_call', action: 'patch', latencyMs: 610, tokens: 150, result: { kind: 'SUCCESS', output: 'diff' } },
    ]);

    const res = await page.goto(t.url.replace(/\/graphql$/, '/'));
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-type']).toBe('text/html; charset=utf-8');
    await page.getByLabel('API key').fill('ek_not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That key was refused').waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(pageProblems).toEqual([expect.stringContaining('401 (Unauthorized)')]);
    pageProblems.length = 0; // from here on, nothing may go wrong in the page
    await page.getByLabel('API key').fill(t.keys.read);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('tenant tenant-a').waitFor();
    await expect.poll(() => page.locator('.link').textContent(), LIVE).toBe('ledger stream live');
    expect(await page.evaluate('sessionStorage.getItem("episodic.apiKey")')).toBe(t.keys.read);
    expect(await page.evaluate('localStorage.length + document.cookie.length')).toBe(0);
  });

  it('lists episodes, shows new ones live, filters and pages', async () => {
    await expect.poll(() => rows().count(), LIVE).toBe(1);
    await startEpisode({ taskDescription: 'Summarise the release notes', taskType: 'writing', context: { domain: 'docs', tags: ['release'] } });
    for (let i = 1; i <= 16; i++) await startEpisode({ taskDescription: `Bulk job ${i}`, taskType: 'bulk' });
    // Newest first, live: wait for the last one (the page is full from job 13 on, before 14-16 arrive).
    await expect.poll(() => rows().first().textContent(), LIVE).toContain('Bulk job 16');
    await expect.poll(() => rows().count(), LIVE).toBe(15); // a full first page, without a reload

    await page.fill('input[name=taskType]', 'bulk');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('button', { name: 'Older →' }).click();
    await expect.poll(() => rows().allTextContents(), LIVE).toEqual([expect.stringMatching(/Bulk job 1(?!\d)/)]); // 16 = 15 + 1
    expect(await page.getByRole('button', { name: 'Older →' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: '← Newer' }).click();
    await expect.poll(() => rows().count(), LIVE).toBe(15);

    await page.fill('input[name=taskType]', '');
    await page.fill('input[name=domain]', 'billing');
    await page.fill('input[name=tags]', 'ci, flaky');
    await page.fill('input[name=text]', 'INVOICE');
    await page.getByLabel('running').check();
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => rows().allTextContents(), LIVE).toEqual([expect.stringContaining('Fix the flaky invoice test')]);
  });

  it('streams the ledger with each event verified in the browser, resuming after a dropped socket', async () => {
    const before = await headSeq();
    await expect.poll(async () => (await ledgerPanel()).seqs, LIVE).toEqual(range(before));

    const socketsBefore = sockets.length;
    await must(sockets.at(-1)).close({ code: 1012, reason: 'test: connection dropped' });
    await startEpisode({ taskDescription: 'Written while the monitor was offline', taskType: 'writing' });
    const after = await headSeq();
    await expect.poll(async () => (await ledgerPanel()).seqs, LIVE).toEqual(range(after));
    expect(sockets.length).toBeGreaterThan(socketsBefore); // it did reconnect
    const panel = await ledgerPanel();
    expect(panel.unique).toBe(after); // no duplicate across the resume
    expect(panel.verified).toBe(after);
    expect(await page.locator('.ledger').textContent()).toContain('Chain checked in this browser from the genesis.');
  });

  it('opens an episode: budget bars, step timeline, critique, checkpoint and outcome, live', async () => {
    await page.getByRole('link', { name: 'Fix the flaky invoice test' }).click();
    await page.getByRole('heading', { name: 'Fix the flaky invoice test' }).waitFor();
    await expect.poll(() => page.locator('.timeline li').count(), LIVE).toBe(3);
    expect(await bar('tokens')).toBe('40');
    expect(await bar('steps')).toBe('30');
    expect(await page.locator('.timeline li').nth(1).textContent()).toContain('1.54 s');

    await logSteps(flaky, [
      { kind: 'tool_call', tool: 'shell', action: 'run', latencyMs: 2310, tokens: 100, result: { kind: 'SUCCESS', output: 'all green' } },
    ]);
    await expect.poll(() => page.locator('.timeline li').count(), LIVE).toBe(4);
    await expect.poll(() => bar('tokens'), LIVE).toBe('50');
    expect(await bar('steps')).toBe('40');

    await api('mutation($id: ID!) { saveCheckpoint(episodeId: $id, label: "tests green", state: { branch: "fix/invoice" }) { __typename } }', { id: flaky });
    await api(
      'mutation($id: ID!, $v: [VirtueScoreInput!]) { recordCritique(episodeId: $id, verdict: "pass", score: 0.82, feedback: "Minimal, well-tested fix.", virtueScores: $v) { __typename } }',
      {
        id: flaky,
        v: [
          { name: 'honesty', score: 0.9 },
          { name: 'care', score: 0.75 },
        ],
      },
    );
    await api(
      'mutation($id: ID!) { completeEpisode(episodeId: $id, outcome: { kind: SUCCESS, verdict: "flake fixed", artifacts: ["invoice.test.ts"] }) { __typename } }',
      { id: flaky },
    );
    const episode = page.locator('article.episode');
    await expect.poll(() => episode.locator('.meta .status').textContent(), LIVE).toBe('COMPLETED');
    await expect.poll(() => episode.textContent(), LIVE).toContain('flake fixed');
    expect(await episode.textContent()).toContain('Minimal, well-tested fix.');
    expect(await episode.textContent()).toContain('tests green');
    expect(await episode.locator('.card', { hasText: 'Critique' }).locator('[role="progressbar"]').count()).toBe(2); // one per virtue

    // Learning appends patterns.extracted after the completion: compare with the head as it is then.
    await expect.poll(async () => (await ledgerPanel()).verified === (await headSeq()), LIVE).toBe(true);
    expect(await page.locator('[data-verdict]:not([data-verdict="verified"])').count()).toBe(0);
    expect(await page.locator('.alert').count()).toBe(0);
    expect(pageProblems).toEqual([]);

    await mkdir('test-results', { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
  });

  it('after a reload, stays signed in for the tab and verifies the recent ledger from a checked anchor', async () => {
    for (let i = 1; i <= 40; i++) await startEpisode({ taskDescription: `Backlog ${i}`, taskType: 'bulk' });
    const head = await headSeq();
    await page.reload();
    await page.getByRole('heading', { name: 'Fix the flaky invoice test' }).waitFor();
    await expect.poll(async () => (await ledgerPanel()).seqs, LIVE).toEqual(range(50).map((i) => head - 50 + i));
    expect((await ledgerPanel()).verified).toBe(50);
    expect(await page.locator('.ledger').textContent()).toContain(`Chain checked in this browser from seq ${head - 50}.`);
    expect(pageProblems).toEqual([]);
  });

  it('marks an event altered in the database as a hash mismatch', async () => {
    const seq = (await headSeq()) - 5;
    await t.services.db.pool.query(`UPDATE ledger_events SET payload = jsonb_set(payload, '{taskType}', '"edited"') WHERE tenant_id = $1 AND seq = $2`, [
      t.keys.tenantId,
      seq,
    ]);
    await page.reload();
    const badge = page.locator(`.ledger li[data-seq="${seq}"] [data-verdict]`);
    await expect.poll(() => badge.getAttribute('data-verdict'), LIVE).toBe('hash-mismatch');
    expect(await badge.textContent()).toBe('✗ hash mismatch');
    expect((await ledgerPanel()).verified).toBe(49);
  });
});
