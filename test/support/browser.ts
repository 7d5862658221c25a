// The browser the web tests drive: Debian's Chromium, headless, with nothing fetched from the network.

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
