// POST /v1/traces: OTLP/HTTP trace export (protobuf or JSON, optionally gzipped), with the API key
// as a bearer token of write scope. Answers as OTLP/HTTP does: 200 with an ExportTraceServiceResponse
// (partialSuccess counts and names the refused spans), 400 for a body that cannot be decoded,
// 401/403, 413, 415, and 429/503 with Retry-After when the server or the key is at its limit (the
// key's rate limit and the admission slots GraphQL requests take, and the step ingestor's backpressure).
// An export is charged by its spans, once they are decoded and before any is ingested: one unit of
// the key's rate limit per span, and one admission slot per span up to the key's share, so a key's
// 500-span exports run one after another instead of beside everyone else's requests.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { grantsScope, tokenFromHeader } from '../auth/keys.ts';
import type { RateLimiter } from '../auth/rate-limit.ts';
import type { Viewer } from '../auth/store.ts';
import { priceTable } from '../costs/prices.ts';
import { isPoolSaturated, isUnavailable } from '../db/errors.ts';
import type { Admission } from '../http/admission.ts';
import type { CountSpanRefusals } from '../http/metrics.ts';
import { requestScope } from '../log.ts';
import { countRefusals as countTenantRefusals } from '../monitor/refusal-counts.ts';
import type { Services } from '../services.ts';
import { OverloadedError } from '../steps/ingest.ts';
import { STEP_LIMITS } from '../steps/limits.ts';
import { type BodyFormat, CONTENT_TYPES, decodeRequest, encodeResponse, encodeStatus, formatOf, inflate, type PartialSuccess } from './codec.ts';
import { startHeldTraceSettlers } from './held.ts';
import { keepSpanEvents, spanEventsOf } from './logs.ts';
import { decodeLogsRequest, encodeLogsResponse } from './logs-codec.ts';
import { MalformedRequestError, spansOf, type UnreadableSpan } from './spans.ts';
import { type SpanRefusal, TraceIngest } from './traces.ts';

export const OTLP_TRACES_PATH = '/v1/traces';
export const OTLP_LOGS_PATH = '/v1/logs';

/** Refusals named one by one in partialSuccess.errorMessage; the count covers them all. */
const NAMED_REFUSALS = 10;

/** google.rpc.Code values OTLP/HTTP failure bodies carry. */
const RPC = { invalidArgument: 3, permissionDenied: 7, resourceExhausted: 8, internal: 13, unavailable: 14, unauthenticated: 16 } as const;

class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    readonly rpcCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const retryLater = (status: 429 | 503, message: string) =>
  new HttpRefusal(status, status === 429 ? RPC.resourceExhausted : RPC.unavailable, message, { 'retry-after': '1' });

/** Takes the key's rate allowance and admission slots for `units` of work (spans); throws the 429/503 refusal. */
type Charge = (units: number) => Promise<void>;

/** What an OTLP/HTTP endpoint does with a read body: decode it, charge its cost, and answer. */
type ExportHandler = (tenantId: string, body: Buffer, format: BodyFormat, charge: Charge) => Promise<Buffer>;

/**
 * The door's use case, one per server: its exports, its logs requests and its jobs settling held
 * traces share it (it chains a run's calls, and the settling of a held trace, in this process).
 */
export function createTraceIngest(services: Services, admission: Admission): TraceIngest {
  return new TraceIngest({
    db: services.db,
    writer: services.writer,
    jobs: services.jobs,
    ingest: services.ingest,
    redactKeys: services.redactKeys,
    blobCapBytes: services.config.blobTotalCapBytes,
    pending: services.config.otlpPending,
    runs: services.config.otlpRuns,
    lateSpanGraceMs: services.config.otlpLateSpanGraceMs,
    logEventsWaitMs: services.config.otlpLogEventsWaitMs,
    prices: priceTable(services.config.modelPrices),
    // The export's key, marked on the request scope when it was admitted.
    // One key's exports journal at most PACED_SPANS_PER_SECOND while another key is active (Admission.pacedSpans).
    turn: (spans) => admission.pacedSpans.turn(requestScope.getStore()?.keyId, spans),
  });
}

/** Refused spans counted in /metrics and in the tenant's counts (the monitor's "Refused spans"). */
async function recordRefusals(
  services: Services,
  countRefusals: CountSpanRefusals,
  tenantId: string,
  refused: SpanRefusal[],
  unreadable: UnreadableSpan[] = [],
) {
  if (unreadable.length) countRefusals('unreadable', unreadable.length);
  for (const r of refused) countRefusals(r.kind, 1);
  await countTenantRefusals(services.db.pool, tenantId, [
    ...unreadable.map((u) => ({ kind: 'unreadable' as const, traceId: '', spanId: '', reason: `span #${u.index} of the request: ${u.reason}` })),
    ...refused,
  ]);
}

/** The job settling traces held for their log events once the wait is over (held.ts); their refusals are counted, as no answer names them. */
export function startHeldTraceJobs(services: Services, traces: TraceIngest, countRefusals: CountSpanRefusals): Promise<void> {
  return startHeldTraceSettlers(services.jobs, services.db.pool, services.log, services.config.jobPollSeconds, async (tenantId, traceIds) => {
    const report = await traces.settleHeld(tenantId, traceIds, true);
    await recordRefusals(services, countRefusals, tenantId, report.refused);
  });
}

export function createOtlpHandler(
  services: Services,
  traces: TraceIngest,
  admission: Admission,
  limiter: RateLimiter | null,
  countRefusals: CountSpanRefusals,
) {
  return otlpEndpoint(services, admission, limiter, async (tenantId, body, format, charge) => {
    const { spans, unreadable } = spansOf(decodeRequest(body, format));
    await charge(spans.length + unreadable.length);
    // Shed early when not even one step batch would fit; each batch is checked again as it is submitted.
    services.ingest.assertRoom(Math.min(spans.length, STEP_LIMITS.stepsPerCall));
    const report = await traces.ingest(tenantId, spans);
    services.log.debug({ spans: spans.length, stored: report.stored, pending: report.pending, refused: report.refused.length }, 'OTLP traces exported');
    await recordRefusals(services, countRefusals, tenantId, report.refused, unreadable);
    return encodeResponse(format, partialSuccess(unreadable, report.refused));
  });
}

/**
 * POST /v1/logs: the GenAI log events of model calls are kept for their spans; other records are
 * accepted and dropped. A trace held for these events is settled now (its refusals counted: the
 * logs answer names log records, not spans).
 */
export function createOtlpLogsHandler(
  services: Services,
  traces: TraceIngest,
  admission: Admission,
  limiter: RateLimiter | null,
  countRefusals: CountSpanRefusals,
) {
  return otlpEndpoint(services, admission, limiter, async (tenantId, body, format, charge) => {
    const { events } = spanEventsOf(decodeLogsRequest(body, format));
    await charge(events.length);
    await keepSpanEvents(services.db.pool, tenantId, events);
    const settled = await traces.settleHeld(
      tenantId,
      events.map((e) => e.traceId),
      false,
    );
    await recordRefusals(services, countRefusals, tenantId, settled.refused);
    return encodeLogsResponse(format, null);
  });
}

function otlpEndpoint(services: Services, admission: Admission, limiter: RateLimiter | null, handle: ExportHandler) {
  return async function handleExport(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const format: BodyFormat = formatOf(req.headers['content-type']) ?? 'json';
    try {
      if (req.method !== 'POST') throw new HttpRefusal(405, RPC.invalidArgument, 'OTLP/HTTP exports are sent with POST', { allow: 'POST' });
      if (!formatOf(req.headers['content-type']))
        throw new HttpRefusal(415, RPC.invalidArgument, 'Content-Type must be application/x-protobuf or application/json');
      const viewer = await authorize(req);
      const body = inflate(await readBody(req, services.config.maxBodyBytes), req.headers['content-encoding'], services.config.maxBodyBytes);
      send(res, 200, format, await handle(viewer.tenantId, body, format, (units) => admit(viewer, res, units, body.length)));
    } catch (err) {
      const refusal = asRefusal(err, services);
      send(res, refusal.status, format, encodeStatus(format, refusal.rpcCode, refusal.message), refusal.headers);
    }
  };

  /** The caller of a write key; refuses otherwise. */
  async function authorize(req: IncomingMessage): Promise<Viewer> {
    const auth = await services.keys.authenticate(tokenFromHeader(req.headers.authorization));
    if ('failure' in auth) {
      throw new HttpRefusal(401, RPC.unauthenticated, `API key ${auth.failure}: send Authorization: Bearer <key>`, { 'www-authenticate': 'Bearer' });
    }
    if (!grantsScope(auth.viewer.scopes, 'write'))
      throw new HttpRefusal(403, RPC.permissionDenied, 'Exporting telemetry needs an API key with the write scope');
    return auth.viewer;
  }

  /** The key's rate limit (RATE_LIMIT_PER_MINUTE, one unit per span) and `units` admission slots, held until the answer is sent; `bytes`: the body held while waiting. */
  async function admit(viewer: Viewer, res: ServerResponse, units: number, bytes: number): Promise<void> {
    const cost = Math.max(1, units);
    const rate = limiter ? await limiter.take(viewer.keyId, Date.now(), cost) : { ok: true, retryAfterMs: 0 };
    if (limiter && !rate.ok) {
      const seconds = Math.ceil(rate.retryAfterMs / 1000);
      const why = `Rate limit exceeded for this API key: the limit is ${limiter.perMinute} requests a minute (RATE_LIMIT_PER_MINUTE), an export counting one per span (this one ${cost}); retry in ${seconds} s`;
      throw new HttpRefusal(429, RPC.resourceExhausted, why, { 'retry-after': String(seconds) });
    }
    await admission.takeFor(viewer, res, cost, bytes).catch((err: Error) => {
      throw retryLater(503, err.message);
    });
  }
}

function asRefusal(err: unknown, services: Services): HttpRefusal {
  if (err instanceof HttpRefusal) return err;
  if (err instanceof MalformedRequestError) return new HttpRefusal(400, RPC.invalidArgument, err.message);
  if (err instanceof OverloadedError) return retryLater(503, err.message);
  if (isPoolSaturated(err) || isUnavailable(err)) return retryLater(503, 'The database is busy or unavailable right now; retry shortly');
  services.log.error({ err }, 'OTLP trace export failed');
  return new HttpRefusal(500, RPC.internal, 'Internal error');
}

/** The body, refused past `limit` bytes (a declared length is checked before any byte is read). */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () => new HttpRefusal(413, RPC.invalidArgument, `Request body too large: at most ${limit} bytes`);
  if (Number(req.headers['content-length'] ?? 0) > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req) {
    bytes += (chunk as Buffer).length;
    if (bytes > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function partialSuccess(unreadable: UnreadableSpan[], refused: SpanRefusal[]): PartialSuccess | null {
  const reasons = [
    ...unreadable.map((u) => `span #${u.index} of the request: ${u.reason}`),
    ...refused.map((r) => `span ${r.spanId} of trace ${r.traceId}: ${r.reason}`),
  ];
  if (!reasons.length) return null;
  const more = reasons.length > NAMED_REFUSALS ? `; and ${reasons.length - NAMED_REFUSALS} more` : '';
  return { rejectedSpans: reasons.length, errorMessage: `${reasons.length} spans rejected: ${reasons.slice(0, NAMED_REFUSALS).join('; ')}${more}` };
}

function send(res: ServerResponse, status: number, format: BodyFormat, body: Buffer, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': CONTENT_TYPES[format], 'content-length': String(body.length), ...headers });
  res.end(body);
}
