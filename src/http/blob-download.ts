// GET /blobs/<hash>: a blob of the key's tenant, streamed in slices read from PostgreSQL one
// statement each (src/steps/blob-text.ts), with byte ranges (Range / 206 / Content-Range), so content
// of any size never passes through a GraphQL response, the server holds one slice of it at a time
// and no database connection, however large the blob or slow the client.
// The key needs `read`; the request counts against the key's rate limit and takes an admission
// slot (process-wide and per key) like a GraphQL request; while another key is active, a key's
// slices are paced by their bytes (Admission.pacedBytes, one schedule with large GraphQL answers).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GraphQLError } from 'graphql';
import type pg from 'pg';
import parseRange from 'range-parser';
import { grantsScope, tokenFromHeader } from '../auth/keys.ts';
import type { RateLimiter } from '../auth/rate-limit.ts';
import type { Viewer } from '../auth/store.ts';
import type { BlobsRow } from '../db/rows.ts';
import { Params, queryRows } from '../db/sql.ts';
import { isHashHex } from '../ledger/format/hash.ts';
import type { Services } from '../services.ts';
import { blobBytes } from '../steps/blob-text.ts';
import type { Admission } from './admission.ts';
import { enforceRateLimit } from './hardening.ts';

export const BLOBS_PATH = '/blobs/';

// A slice's read is I/O already: a key alone is not held back a turn (Admission.pacedBytes, shared with large answers).
const noPause = async () => undefined;

interface DownloadParts {
  services: Services;
  limiter: RateLimiter | null;
  admission: Admission;
}

function sendError(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { code, message } }));
}

/** The blob's size in bytes; undefined when the tenant has no such blob. */
async function blobSize(pool: pg.Pool, tenantId: string, hash: string): Promise<number | undefined> {
  const p = new Params();
  const sql = `SELECT size_bytes FROM blobs WHERE tenant_id = ${p.add(tenantId)} AND hash = ${p.add(hash)}`;
  return (await queryRows<Pick<BlobsRow, 'size_bytes'>>(pool, sql, p))[0]?.size_bytes;
}

/** Who may download: a valid key with `read`, within its rate limit and its share of request slots; else the refusal is sent. */
async function admit(req: IncomingMessage, res: ServerResponse, { services, limiter, admission }: DownloadParts): Promise<Viewer | null> {
  const auth = await services.keys.authenticate(tokenFromHeader(req.headers.authorization));
  if (!('viewer' in auth)) {
    sendError(res, 401, 'UNAUTHENTICATED', `API key ${auth.failure}: send Authorization: Bearer <key>.`, { 'www-authenticate': 'Bearer' });
    return null;
  }
  if (!grantsScope(auth.viewer.scopes, 'read')) {
    sendError(res, 403, 'FORBIDDEN', 'This API key lacks the read scope.');
    return null;
  }
  try {
    await enforceRateLimit(limiter, auth.viewer.keyId);
  } catch (err) {
    if (!(err instanceof GraphQLError)) throw err;
    sendError(res, 429, 'RATE_LIMITED', err.message, { 'retry-after': String(Math.ceil(Number(err.extensions.retryAfterMs ?? 1000) / 1000)) });
    return null;
  }
  try {
    await admission.takeFor(auth.viewer, res);
  } catch (err) {
    if (!(err instanceof GraphQLError)) throw err;
    sendError(res, 503, 'OVERLOADED', err.message, { 'retry-after': '1' });
    return null;
  }
  return auth.viewer;
}

export async function serveBlob(req: IncomingMessage, res: ServerResponse, parts: DownloadParts): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, 'METHOD_NOT_ALLOWED', 'GET or HEAD only.', { allow: 'GET, HEAD' });
  const hash = (req.url ?? '').split('?')[0]?.slice(BLOBS_PATH.length) ?? '';
  const viewer = await admit(req, res, parts);
  if (!viewer) return;
  const { tenantId, keyId } = viewer;
  const pool = parts.services.db.pool;
  const size = isHashHex(hash) ? await blobSize(pool, tenantId, hash) : undefined;
  // The same answer for a malformed hash, another tenant's blob and one that does not exist.
  if (size === undefined) return sendError(res, 404, 'NOT_FOUND', `Blob ${hash} was not found.`);
  const headers: Record<string, string> = {
    'content-type': 'text/plain; charset=utf-8',
    'content-disposition': `attachment; filename="${hash}.txt"`,
    'x-content-type-options': 'nosniff',
    'accept-ranges': 'bytes',
    etag: `"${hash}"`,
    'cache-control': 'private, max-age=31536000, immutable',
  };
  let start = 0;
  let end = size - 1;
  let status = 200;
  const ranges = req.headers.range && size > 0 ? parseRange(size, req.headers.range, { combine: true }) : -2;
  if (ranges === -1) return sendError(res, 416, 'RANGE_NOT_SATISFIABLE', `The blob holds ${size} bytes.`, { 'content-range': `bytes */${size}` });
  // One range is served as 206; a malformed header or several ranges get the whole blob (RFC 9110 lets a server ignore Range).
  if (Array.isArray(ranges) && ranges.length === 1 && ranges[0]) {
    ({ start, end } = ranges[0]);
    status = 206;
    headers['content-range'] = `bytes ${start}-${end}/${size}`;
  }
  headers['content-length'] = String(Math.max(0, end - start + 1));
  res.writeHead(status, headers);
  if (req.method === 'HEAD' || size === 0) return void res.end();
  await pipeline(Readable.from(blobBytes(pool, tenantId, hash, start, end, (bytes) => parts.admission.pacedBytes.turn(keyId, bytes, noPause))), res).catch(
    (err: Error) => {
      // A client that goes away mid-download is not an error of ours.
      if ((err as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') parts.services.log.warn({ err, hash }, 'blob download failed');
      res.destroy();
    },
  );
}
