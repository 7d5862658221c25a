// The monitor under production settings (NODE_ENV=production: introspection off, as the Dockerfile
// runs): the episode page still shows the run's reward, reflection and the patterns learned from
// it, because its documents name those fields (generated from schema.graphql, web/src/generated)
// instead of finding them by introspection. Headless Chromium; fails (never skips) without it.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { corpus } from '../patterns/corpus.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { BROWSER_TEST_MS, CHROMIUM, FLAGS, SHOW_MS } from '../support/browser.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
let context: BrowserContext;
let page: Page;
let profile: string;

async function api<T = Json>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await t.gql<T>(query, variables);
  expect(res.errors).toBeUndefined();
  return must(res.data);
}

/** The pattern tests' small history (patterns need support and a lift), learned at once; the ids by run name. */
async function learnCorpus(): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const r of corpus()) {
    const started = await api('mutation($input: StartEpisodeInput!) { startEpisode(input: $input) { ... on StartEpisodePayload { episode { id } } } }', {
      input: { taskDescription: r.description, taskType: 'bugfix', context: r.context },
    });
    const id = started.startEpisode.episode.id as string;
    await api('mutation($id: ID!, $steps: [StepInput!]!) { logSteps(episodeId: $id, steps: $steps) { __typename } }', { id, steps: r.steps });
    const done = await api('mutation($id: ID!, $o: OutcomeInput!) { completeEpisode(episodeId: $id, outcome: $o, extractPatterns: SYNC) { __typename } }', {
      id,
      o: r.outcome,
    });
    expect(done.completeEpisode.__typename).toBe('FinishEpisodePayload');
    ids.set(r.name, id);
  }
  return ids;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: this browser test needs Debian's chromium (apt-get install -y chromium)`);
  t = await startTestApp({ NODE_ENV: 'production' });
  profile = await mkdtemp(join(tmpdir(), 'episodic-chromium-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1440, height: 960 } });
  page = context.pages()[0] ?? (await context.newPage());
}, BROWSER_TEST_MS);

afterAll(async () => {
  await context?.close();
  await t?.stop();
  if (profile) await rm(profile, { recursive: true, force: true });
});

describe('the monitor with introspection off', () => {
  it(
    'shows an episode with its reward, reflection and learned patterns',
    async () => {
      const introspection = await t.gql('{ __schema { queryType { name } } }');
      expect(introspection.errors?.length).toBeGreaterThan(0);

      const id = must((await learnCorpus()).get('cart-7'));
      const learned = await api(`{ patterns(first: 50, filter: { episodeId: "${id}" }) { edges { node { id } } } }`);
      const patternCount = learned.patterns.edges.length as number;
      expect(patternCount).toBeGreaterThan(0);

      await page.goto(new URL('/', t.url).href);
      await page.getByLabel('API key').fill(t.keys.read);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.goto(new URL(`/#/episodes/${id}`, t.url).href);
      const card = (title: string | RegExp) => page.locator('section.card', { has: page.locator('h3', { hasText: title }) });
      await card(/^Reward$/).waitFor({ timeout: SHOW_MS });
      const reward = await card(/^Reward$/).textContent();
      expect(reward).toMatch(/total/i);
      expect(await card(/^Reflection$/).textContent()).toMatch(/successes/i);
      expect(await card(`Patterns (${patternCount})`).locator('li').count()).toBe(patternCount);
    },
    BROWSER_TEST_MS,
  );
});
