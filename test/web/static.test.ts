// Serving of the built page: content types, caching of hashed assets, revalidation, gzip, and a
// clear answer at / before the page is built.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { createStaticHandler } from '../../src/web/static.ts';

let root: string;
let server: Server;
let base: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'episodic-web-'));
  const serve = createStaticHandler(root);
  server = createServer((req, res) => serve(req, res) || res.writeHead(404).end('next handler'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.close();
  await rm(root, { recursive: true, force: true });
});

describe('static page serving', () => {
  it('answers 503 at / until the page is built, and passes other paths on', async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm run build:web');
    expect((await fetch(`${base}/graphql`)).status).toBe(404);
  });

  it('serves the page with revalidation and hashed assets as immutable, gzipped when asked', async () => {
    await mkdir(join(root, 'assets'));
    await writeFile(join(root, 'index.html'), '<!doctype html><script type="module" src="/assets/app-1a2b.js"></script>');
    await writeFile(join(root, 'assets', 'app-1a2b.js'), `console.log(${JSON.stringify('x'.repeat(2000))});`);

    const page = await fetch(`${base}/?from=link`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const again = await fetch(`${base}/`, { headers: { 'if-none-match': must(page.headers.get('etag')) } });
    expect(again.status).toBe(304);

    const js = await fetch(`${base}/assets/app-1a2b.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('content-encoding')).toBe('gzip');
    expect(await js.text()).toContain('xxxx'); // fetch decodes it

    expect((await fetch(`${base}/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${base}/`, { method: 'POST' })).status).toBe(404);
  });
});
