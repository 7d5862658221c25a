// GraphiQL in headless Chromium (test/support/browser.ts, as test/web uses), as a newcomer uses
// it: the page comes from the installed packages (no request leaves the server, no external script
// or stylesheet), the Headers tab shows where the key goes, the admin key typed there runs a query,
// and the schema loads into the docs explorer.
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { KEY_PLACEHOLDER } from '../../src/http/graphiql.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { BROWSER_TEST_MS, CHROMIUM, FLAGS } from '../support/browser.ts';

/** Monaco draws spaces as no-break spaces. */
const plain = (text: string) => text.replace(/\u00a0/g, ' ');

let t: TestApp;
let browser: Browser;
beforeAll(async () => {
  t = await startTestApp();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe('GraphiQL', () => {
  it('is served whole from the installed packages: no external script, stylesheet or request', async () => {
    const html = await (await fetch(t.url, { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('<title>Episodic</title>');
    expect(html).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)=["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/unpkg\.com|jsdelivr|esm\.sh|cdnjs/);
  });

  it(
    'runs a query with the admin key typed into its Headers tab and loads the schema, offline',
    async () => {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      const origin = new URL(t.url).origin;
      const elsewhere: string[] = [];
      // Anything not from the server (or a blob/data URL the page makes itself) is refused: offline.
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(origin) || /^(data|blob):/.test(url)) return route.continue();
        elsewhere.push(url);
        return route.abort();
      });
      await page.goto(t.url);
      const headers = page.locator('.graphiql-editor-tool .monaco-editor').last();
      await expect.poll(() => headers.innerText().then(plain), { timeout: 30_000 }).toContain(KEY_PLACEHOLDER);
      expect(plain(await page.locator('.graphiql-query-editor').innerText())).toContain('cat .episodic/admin-key');
      // At 1440 px every line of the opening help fits the editor: none runs past its right edge.
      const cut = await page
        .locator('.graphiql-query-editor .view-line')
        .evaluateAll((lines) =>
          lines
            .filter((l) => (l.firstElementChild?.getBoundingClientRect().right ?? 0) > (l.closest('.monaco-editor')?.getBoundingClientRect().right ?? 0))
            .map((l) => l.textContent),
        );
      expect(cut).toEqual([]);

      await headers.click();
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText(JSON.stringify({ authorization: `Bearer ${t.keys.admin}` }));
      // The editor may have auto-closed a quote or brace after the inserted text: drop it.
      await page.keyboard.press('Shift+Control+End');
      await page.keyboard.press('Delete');
      await page.getByLabel('Execute query (Ctrl-Enter)').click();
      await expect.poll(() => page.locator('.graphiql-response').innerText().then(plain), { timeout: 15_000 }).toContain('"name": "tenant-a"');

      await page.getByLabel('Show Documentation Explorer').click();
      const docs = page.locator('.graphiql-doc-explorer');
      await expect.poll(() => docs.innerText(), { timeout: 15_000 }).toMatch(/query: Query[\s\S]*mutation: Mutation[\s\S]*subscription: Subscription/);
      expect(await docs.innerText()).toContain('Episode');
      expect(elsewhere).toEqual([]);
      await page.close();
    },
    BROWSER_TEST_MS,
  );

  it('comes with introspection (the schema it shows) wherever it is turned on, as in docker compose', () => {
    const compose = loadConfig({ NODE_ENV: 'production', GRAPHIQL: 'true' });
    expect([compose.graphiql, compose.introspection]).toEqual([true, true]);
    expect(loadConfig({ NODE_ENV: 'production', GRAPHIQL: 'true', INTROSPECTION: 'false' }).introspection).toBe(false);
  });
});
