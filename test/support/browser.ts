// The browser the web tests drive: Debian's Chromium, headless, with nothing fetched from the network.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A real Chromium and server on a 2-core machine that other jobs share: a test's steps can take minutes. */
export const BROWSER_TEST_MS = 180_000;

/** How long a browser test waits for one thing to show (a page's first load on a loaded machine took over 30 s). */
export const SHOW_MS = 90_000;

/** A headless Chromium signed in to the monitor, with the page's errors collected; `close` removes its profile too. */
export interface SignedInMonitor {
  page: Page;
  problems: string[];
  close(): Promise<void>;
}

/** Opens the monitor at `home` in a fresh profile and signs in with `key`, waiting until its ledger link is live. */
export async function openSignedIn(home: string, key: string, liveMs = SHOW_MS): Promise<SignedInMonitor> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: this browser test needs Debian's chromium (apt-get install -y chromium)`);
  const profile = await mkdtemp(join(tmpdir(), 'episodic-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1440, height: 900 },
  });
  const close = async () => {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  };
  const problems: string[] = [];
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
    await page.goto(home);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.link.live').waitFor({ timeout: liveMs });
    return { page, problems, close };
  } catch (err) {
    await close();
    throw err;
  }
}
