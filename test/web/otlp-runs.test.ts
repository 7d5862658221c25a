// The monitor on runs that came in over OTLP, end to end in headless Chromium: a tool-calling agent
// on the real openai SDK, instrumented by the real OpenInference package, against a fake
// OpenAI-compatible model on 127.0.0.1, its spans sent by the real protobuf exporter; two runs in
// one session (session.id on the user's agent span) and one in another. Checked: the session's
// runs listed by the session filter (and the run page's session link), each shown with its outcome
// unknown (never a success); a run's span tree (the agent span, its model and tool calls under it
// on a waterfall) with each model call's transcript; tokens and cost per model on the run and the
// dashboard; a span the door refused shown on the dashboard; and every one of these views at 360,
// 800 and 1440 px without text over text or sideways scrolling.
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import type OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delay } from '../../src/core/delay.ts';
import { FIXTURE_ENV } from '../otlp/agents/cases.ts';
import { type FakeModel, RESPONSE_MODEL, startFakeModel } from '../otlp/agents/fake-model.ts';
import { freshOpenAI, runOpenAIAgent } from '../otlp/agents/openai-agent.ts';
import { setUpTelemetry, type Telemetry } from '../otlp/agents/telemetry.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { BROWSER_TEST_MS, openSignedIn, type SignedInMonitor } from '../support/browser.ts';
import { findOverlaps, unnamedControls } from './layout.ts';

const LIVE = { timeout: 30_000 };
const WIDTHS = [360, 800, 1440];
const SESSION = 'chat-invoices-7';
const OTHER_SESSION = 'chat-other-2';
const TASKS = [
  'Find the rounding bug in the invoice totals (monitor run 1)',
  'Find the rounding bug in the invoice totals again, for the credit notes (monitor run 2)',
  'Explain the tax lines of an invoice (monitor run 3, another session)',
];

let t: TestApp;
let model: FakeModel;
let telemetry: Telemetry;
let instrumentation: OpenAIInstrumentation;
let monitor: SignedInMonitor | undefined;
let page: Page;
let pageProblems: string[] = [];
const episodeIds = new Map<string, string>();

const home = () => t.url.replace(/\/graphql$/, '/');
const base = () => t.url.replace(/\/graphql$/, '');

async function completedEpisodeOf(task: string): Promise<string> {
  for (let i = 0; i < 150; i += 1) {
    const { rows } = await t.services.db.pool.query('SELECT id, status FROM episodes WHERE tenant_id = $1 AND task_description = $2', [t.keys.tenantId, task]);
    if (rows.length === 1 && rows[0].status === 'completed') return rows[0].id as string;
    await delay(200);
  }
  throw new Error(`no completed episode for "${task}"`);
}

beforeAll(async () => {
  t = await startTestApp(FIXTURE_ENV);
  model = await startFakeModel();
  telemetry = setUpTelemetry('invoice-agent-monitor');
  instrumentation = new OpenAIInstrumentation();
  instrumentation.setTracerProvider(telemetry.tracerProvider);
  const openai = freshOpenAI();
  instrumentation.manuallyInstrument(openai as unknown as typeof OpenAI);
  for (const [i, task] of TASKS.entries()) {
    await runOpenAIAgent(openai.OpenAI as typeof OpenAI, model.baseURL, task, true, { 'session.id': i < 2 ? SESSION : OTHER_SESSION });
    const sent = await telemetry.flush(base(), t.keys.write, 'protobuf');
    expect(sent.spans.code, String(sent.spans.error)).toBe(0);
    episodeIds.set(task, await completedEpisodeOf(task));
  }
  // A span the door cannot read (its span id is no 8-byte hex): refused, and shown on the dashboard.
  const refused = await fetch(`${base()}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.keys.write}` },
    body: JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [
            { spans: [{ traceId: '5b8efff798038103d269b633813fc60c', spanId: 'not-hex', name: 'chat', startTimeUnixNano: '1', endTimeUnixNano: '2' }] },
          ],
        },
      ],
    }),
  });
  expect(((await refused.json()) as { partialSuccess?: { rejectedSpans?: string | number } }).partialSuccess?.rejectedSpans).toBeTruthy();

  monitor = await openSignedIn(home(), t.keys.read, LIVE.timeout);
  page = monitor.page;
  pageProblems = monitor.problems;
}, 300_000);

afterAll(async () => {
  instrumentation?.disable();
  await monitor?.close();
  await model?.close();
  await t?.stop();
});

describe('the monitor on runs sent over OTLP by the real SDK', { timeout: BROWSER_TEST_MS }, () => {
  it("lists a session's runs, each with its outcome unknown", async () => {
    await page.goto(`${home()}#/?session=${SESSION}`);
    const rows = page.locator('table.list tbody tr');
    await rows.nth(1).waitFor(LIVE);
    expect(await page.getByLabel('Session').inputValue()).toBe(SESSION);
    expect((await rows.locator('td.task a').allTextContents()).sort()).toEqual([TASKS[0], TASKS[1]].sort());
    expect(await rows.locator('.outcome-kind.UNKNOWN').count()).toBe(2);
  });

  it("shows a run's span tree with each model call's transcript, its outcome unknown and its cost per model", async () => {
    const id = episodeIds.get(TASKS[0] ?? '') ?? '';
    await page.goto(`${home()}#/episodes/${id}`);
    const spans = page.locator('.span-tree > li');
    await spans.nth(5).waitFor(LIVE);
    expect(await spans.evaluateAll((els) => els.map((el) => [el.getAttribute('data-span-kind'), el.getAttribute('data-span-depth')]))).toEqual([
      ['run', '0'],
      ['llm_call', '1'],
      ['tool_call', '1'],
      ['llm_call', '1'],
      ['tool_call', '1'],
      ['llm_call', '1'],
    ]);
    expect(await spans.nth(1).locator('.span-label').textContent()).toContain(`${RESPONSE_MODEL} → bash(ls src)`);
    expect(await spans.nth(2).locator('.span-label').textContent()).toContain('bash ls src');
    // The first model call's transcript: the task it was asked, and the tool call it chose.
    await spans.nth(1).locator('.transcript summary').click();
    const transcript = spans.nth(1).locator('.transcript');
    expect(await transcript.getByRole('region', { name: 'Asked' }).textContent()).toContain(TASKS[0]);
    expect(await transcript.getByRole('region', { name: 'Answered' }).locator('.tool-choice').textContent()).toMatch(/→ bash .*ls src/);
    // The waterfall: each bar inside its row's track, the run's bar across the whole track.
    const bars = await spans.locator('.span-bar').evaluateAll((els) =>
      els.map((el) => {
        const track = el.getBoundingClientRect();
        const bar = (el.firstElementChild as HTMLElement).getBoundingClientRect();
        return { inside: bar.left >= track.left - 0.5 && bar.right <= track.right + 0.5, share: bar.width / track.width };
      }),
    );
    expect(bars.every((b) => b.inside)).toBe(true);
    expect(bars[0]?.share).toBeGreaterThan(0.99);

    const outcome = page.locator('.outcome');
    expect(await outcome.getAttribute('data-outcome')).toBe('UNKNOWN');
    expect(await outcome.locator('.outcome-kind').textContent()).toBe('outcome unknown');
    expect(await page.locator('article.episode').textContent()).not.toMatch(/is successful|partial success/);
    const line = page.locator(`table.models tr[data-model="${RESPONSE_MODEL}"] td`);
    expect(await line.allTextContents()).toEqual([RESPONSE_MODEL, '3', '3,790', '103', '3,893', '$0.000630']);

    // The session link lists the session's runs.
    await page.getByRole('link', { name: SESSION }).click();
    await page.locator('table.list tbody tr').nth(1).waitFor(LIVE);
    expect(await page.locator('table.list tbody tr').count()).toBe(2);
  });

  it('shows tokens and cost per model and the refused span on the dashboard', async () => {
    await page.goto(`${home()}#/dashboard`);
    const line = page.locator(`table.models tr[data-model="${RESPONSE_MODEL}"] td`);
    await line.first().waitFor(LIVE);
    const cells = await line.allTextContents();
    // The same table as the episode page's: model, calls, input, output, tokens, cost, over 3 runs.
    expect(cells).toEqual([RESPONSE_MODEL, '9', '11,370', '309', '11,679', '$0.001891']);
    const refused = page.locator('.refusals li[data-kind="unreadable"]');
    await refused.waitFor(LIVE);
    expect(await refused.textContent()).toContain('spanId must be 8 bytes');
  });

  it('at 360, 800 and 1440 px: no text over text, nothing sideways, controls named', async () => {
    const id = episodeIds.get(TASKS[0] ?? '') ?? '';
    const views = [`#/?session=${SESSION}`, `#/episodes/${id}`, '#/dashboard'];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      for (const view of views) {
        await page.goto(`${home()}${view}`);
        await page.locator('.view > *').first().waitFor();
        if (view.startsWith('#/episodes/')) {
          await page.locator('.span-tree > li').nth(5).waitFor(LIVE);
          for (const summary of await page.locator('.transcript summary').all()) await summary.click();
        }
        if (view === '#/dashboard') await page.locator('table.models').waitFor(LIVE);
        if (view.startsWith('#/?')) await page.locator('table.list tbody tr').nth(1).waitFor(LIVE);
        await page.waitForLoadState('networkidle');
        expect(await page.evaluate(findOverlaps), `${view} at ${width} px`).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth), `${view} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
        expect(await page.evaluate(unnamedControls), `${view} at ${width} px`).toEqual([]);
      }
    }
    expect(pageProblems).toEqual([]);
  });
});
