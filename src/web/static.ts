// Serves the built monitor page (web/dist, `npm run build:web`) at `/`. index.html is revalidated
// on every load (it names the current assets); the content-hashed files under /assets/ are cached
// for a year as immutable. Files are read once, gzipped when that helps, and served from memory;
// any other request falls through to the next handler.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { must } from '../core/must.ts';

const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

interface Asset {
  body: Buffer;
  gzip: Buffer | null;
  headers: Record<string, string>;
}

function load(root: string): Map<string, Asset> | null {
  if (!existsSync(join(root, 'index.html'))) return null;
  const assets = new Map<string, Asset>();
  for (const file of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const type = TYPES[extname(file.name)];
    if (!file.isFile() || !type) continue;
    const path = join(file.parentPath, file.name);
    const url = `/${path
      .slice(root.length + 1)
      .split(sep)
      .join('/')}`;
    const body = readFileSync(path);
    const gzip = gzipSync(body);
    const html = url === '/index.html';
    assets.set(html ? '/' : url, {
      body,
      gzip: gzip.length < body.length * 0.9 ? gzip : null,
      headers: {
        'content-type': type,
        'cache-control': url.startsWith('/assets/') ? IMMUTABLE : REVALIDATE,
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
        'x-content-type-options': 'nosniff',
        ...(html ? PAGE_HEADERS : {}),
      },
    });
  }
  return assets;
}

/** A handler that answers GET/HEAD for the page and its files and returns false for anything else. */
export function createStaticHandler(root = WEB_DIST): (req: IncomingMessage, res: ServerResponse) => boolean {
  let assets: Map<string, Asset> | null = null;
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = must((req.url ?? '/').split('?')[0]);
    assets ??= load(root); // until the page is built, look again on each request
    const asset = assets?.get(path);
    if (!asset) {
      if (path !== '/') return false;
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end('The monitor page is not built: run `npm run build:web`, then reload.\n');
      return true;
    }
    if (req.headers['if-none-match'] === asset.headers.etag) {
      res.writeHead(304, asset.headers).end();
      return true;
    }
    const gzip = asset.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = gzip ? must(asset.gzip) : asset.body;
    res.writeHead(200, { ...asset.headers, vary: 'accept-encoding', 'content-length': body.length, ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
