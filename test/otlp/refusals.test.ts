// OTLP/HTTP refusals with the real OpenTelemetry SDK: spans recorded by its tracer, encoded by its
// serializers (the bytes its protobuf and JSON exporters send) and sent by its exporters. A span
// over a limit is refused alone in partialSuccess, before anything is written, while the request's
// other spans are stored (children whose root comes later included); a refused root leaves no
// episode and no ledger event; bad input never answers 500; deep nesting and a body without
// resourceSpans answer 400; the key's rate limit counts exports; waiting spans have a byte cap and
// an expiry.
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { type TenantKeys, type TestApp, useApp } from '../support/app.ts';
import { waitForRoomInTheMinute } from '../support/rate-window.ts';
import { deepProtobufRequest } from './deep-request.ts';
import { type Answer, agentRun, type Encoding, exportSpans, isRootSpan, postSpans, traceOf } from './support.ts';

let t: TestApp;
let base: string;
useApp(
  (app) => {
    t = app;
    base = app.url.replace(/\/graphql$/, '');
  },
  // An export counts one per span: the file's exports on its default key stay within 400.
  { RATE_LIMIT_PER_MINUTE: '400', OTLP_PENDING_MAX_BYTES: '300000' },
);

/** POSTs the spans as the SDK's exporter encodes them (the write key by default). */
const post = (spans: ReadableSpan[], encoding: Encoding, token = t.keys.write): Promise<Answer> => postSpans(base, spans, encoding, token);

async function episodeOf(traceId: string) {
  const { rows } = await t.services.db.pool.query('SELECT id, status, step_count FROM episodes WHERE tenant_id = $1 AND dedupe_key = $2', [
    t.keys.tenantId,
    `otlp:${traceId}`,
  ]);
  return rows[0] as { id: string; status: string; step_count: number } | undefined;
}

async function ledgerHead(tenantId = t.keys.tenantId): Promise<number> {
  const { rows } = await t.services.db.pool.query('SELECT count(*)::int AS n FROM ledger_events WHERE tenant_id = $1', [tenantId]);
  return rows[0].n;
}

const spanIdOf = (s: ReadableSpan) => s.spanContext().spanId;
const rootOf = (spans: ReadableSpan[]) => must(spans.find(isRootSpan));
const children = (spans: ReadableSpan[]) => spans.filter((s) => !isRootSpan(s));

describe.each(['protobuf', 'json'] as const)('OTLP refusals over %s', (encoding) => {
  it('refuses a child with a NUL alone, keeps the other children until their root, and stores them all then', async () => {
    const spans = agentRun(21, (span, i) => {
      if (i === 7) span.setAttribute('gen_ai.tool.call.result', 'before\u0000after');
    });
    const bad = must(children(spans)[7]);
    const first = await post(children(spans), encoding);
    expect(first.status).toBe(200);
    expect(first.rejected).toBe(1);
    expect(first.message).toContain(`span ${spanIdOf(bad)} of trace ${traceOf(bad)}: step.result.output contains a NUL character`);
    expect(await episodeOf(traceOf(bad))).toBeUndefined();
    expect(await post([rootOf(spans)], encoding)).toMatchObject({ status: 200, rejected: 0 });
    expect(await episodeOf(traceOf(bad))).toMatchObject({ status: 'completed', step_count: 20 });
  });

  it('refuses a lone surrogate, a tool name over its limit and a step dated after now, each alone, storing the rest', async () => {
    const spans = agentRun(5, (span, i) => {
      if (i === 1) span.setAttribute('gen_ai.tool.call.result', 'half \ud800 a pair');
      if (i === 2) span.setAttribute('gen_ai.tool.name', 'x'.repeat(300));
    });
    const answer = await post(spans, encoding);
    expect(answer.message).toMatch(/step\.tool is 300 characters; the limit is 200 characters/);
    const episode = must(await episodeOf(traceOf(rootOf(spans))));
    if (encoding === 'json') {
      // OTLP/JSON carries the lone surrogate as its escape: refused.
      expect(answer).toMatchObject({ status: 200, rejected: 2 });
      expect(answer.message).toContain(`span ${spanIdOf(must(children(spans)[1]))}`);
      expect(answer.message).toMatch(/step\.result\.output contains a lone UTF-16 surrogate/);
      expect(episode).toMatchObject({ status: 'completed', step_count: 3 });
    } else {
      // The SDK's protobuf encoder writes the lone surrogate as its three WTF-8 bytes, which are not
      // UTF-8: the decoder (protobufjs) reads each as U+FFFD, so no lone surrogate reaches a row.
      expect(answer).toMatchObject({ status: 200, rejected: 1 });
      expect(episode).toMatchObject({ status: 'completed', step_count: 4 });
      const { rows } = await t.services.db.pool.query(`SELECT result->>'output' AS output FROM steps WHERE episode_id = $1 AND step_number = 2`, [episode.id]);
      expect(rows[0].output).toBe('half \ufffd\ufffd\ufffd a pair');
    }
  });

  it('keeps a tool result over the inline limit whole as a blob, as the journal does, rather than refusing it', async () => {
    const long = 'r'.repeat(1024 * 1024 + 100);
    const spans = agentRun(1, (span, i) => i === 0 && span.setAttribute('gen_ai.tool.call.result', long));
    expect(await post(spans, encoding)).toMatchObject({ status: 200, rejected: 0 });
    const episode = must(await episodeOf(traceOf(rootOf(spans))));
    expect(episode).toMatchObject({ status: 'completed', step_count: 1 });
    const { rows } = await t.services.db.pool.query(`SELECT content_refs->'result.output' AS ref FROM steps WHERE episode_id = $1`, [episode.id]);
    expect(rows[0].ref).toMatchObject({ sizeBytes: long.length, stored: true });
  });

  it('refuses a root with metadata over its limit or dated a year ahead: no episode, no ledger event, its children wait', async () => {
    const long = agentRun(2, (span, i) => {
      if (i === 'root') span.setAttribute('gen_ai.conversation.id', 'c'.repeat(100_000));
    });
    const ahead = agentRun(2, () => undefined, Date.now() + 365 * 24 * 3600_000);
    const before = await ledgerHead();
    const answer = await post([...long, ...ahead], encoding);
    expect(answer).toMatchObject({ status: 200, rejected: 4 });
    expect(answer.message).toContain(`span ${spanIdOf(rootOf(long))}`);
    expect(answer.message).toMatch(/episode\.metadata is \d+ bytes; the limit is 65536 bytes/);
    expect(answer.message).toMatch(/episode\.startedAt \(.*\) is in the future/);
    expect(answer.message).toMatch(/step\.startedAt \(.*\) is in the future/);
    // The year-ahead children are refused as steps dated in the future; the long root's children wait.
    expect(await episodeOf(traceOf(rootOf(long)))).toBeUndefined();
    expect(await episodeOf(traceOf(rootOf(ahead)))).toBeUndefined();
    // No ledger event names either trace (other work of the tenant, e.g. a run closed after its idle gap, may append meanwhile).
    const { rows: named } = await t.services.db.pool.query(
      'SELECT count(*)::int AS n FROM ledger_events WHERE tenant_id = $1 AND seq > $2 AND (payload::text LIKE $3 OR payload::text LIKE $4)',
      [t.keys.tenantId, before, `%${traceOf(rootOf(long))}%`, `%${traceOf(rootOf(ahead))}%`],
    );
    expect(named[0].n).toBe(0);
    const { rows } = await t.services.db.pool.query('SELECT count(*)::int AS n FROM otlp_pending_spans WHERE trace_id = $1', [traceOf(rootOf(long))]);
    expect(rows[0].n).toBe(2);
  });
});

describe('OTLP request limits', () => {
  const postRaw = (body: string | Uint8Array<ArrayBuffer>, type: string) =>
    fetch(`${base}/v1/traces`, { method: 'POST', headers: { authorization: `Bearer ${t.keys.write}`, 'content-type': type }, body });

  it('answers 400 to attribute values nested past the limit (protobuf 50,000 deep, JSON 20,000 deep) and to a body without resourceSpans', async () => {
    const proto = await postRaw(deepProtobufRequest(50_000), 'application/x-protobuf');
    expect(proto.status).toBe(400);
    let value = '{"stringValue":"x"}';
    for (let i = 0; i < 20_000; i += 1) value = `{"arrayValue":{"values":[${value}]}}`;
    const span = `{"traceId":"${'1'.repeat(32)}","spanId":"${'2'.repeat(16)}","name":"x","attributes":[{"key":"a","value":${value}}]}`;
    const json = await postRaw(`{"resourceSpans":[{"scopeSpans":[{"spans":[${span}]}]}]}`, 'application/json');
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ code: 3, message: expect.stringContaining('deeper than 64 levels') });
    const empty = await postRaw('{}', 'application/json');
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ code: 3, message: expect.stringContaining('no resourceSpans') });
    // Within the limit, a nested value is read.
    expect((await postRaw(deepProtobufRequest(10), 'application/x-protobuf')).status).toBe(200);
  });

  it('counts exports against the key rate limit: 429 with Retry-After once GraphQL requests used it up', async () => {
    const keys = await t.addTenant('rate-limited');
    await waitForRoomInTheMinute();
    for (let i = 0; i < 400; i += 20) await Promise.all(Array.from({ length: 20 }, () => t.gql('{ __typename }', {}, keys.write)));
    const spans = agentRun(1);
    const answer = await post(spans, 'protobuf', keys.write);
    expect(answer.status).toBe(429);
    expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    // The SDK's exporter gets the 429 too (and gives up within its timeout); nothing was stored.
    const exporter = new OTLPTraceExporter({ url: `${base}/v1/traces`, headers: { Authorization: `Bearer ${keys.write}` }, timeoutMillis: 1_000 });
    expect((await exportSpans(exporter, spans)).code).toBe(1);
    const { rows } = await t.services.db.pool.query('SELECT count(*)::int AS n FROM episodes WHERE tenant_id = $1', [keys.tenantId]);
    expect(rows[0].n).toBe(0);
  });

  it('caps the bytes a tenant keeps waiting for their root, refusing the span over the cap in partialSuccess', async () => {
    const keys: TenantKeys = await t.addTenant('pending-cap');
    const big = (n: number) => children(agentRun(1, (span) => span.setAttribute('http.response.body', String(n).repeat(120_000))));
    expect(await post([...big(1), ...big(2)], 'json', keys.write)).toMatchObject({ status: 200, rejected: 0 });
    const over = big(3);
    const answer = await post(over, 'json', keys.write);
    expect(answer).toMatchObject({ status: 200, rejected: 1 });
    expect(answer.message).toContain(`span ${spanIdOf(must(over[0]))}`);
    expect(answer.message).toMatch(/the limit is 300000 bytes \(OTLP_PENDING_MAX_BYTES\)/);
    const { rows } = await t.services.db.pool.query('SELECT count(*)::int AS n FROM otlp_pending_spans WHERE tenant_id = $1', [keys.tenantId]);
    expect(rows[0].n).toBe(2);
  });

  it('drops spans that waited past the expiry, which frees their bytes', async () => {
    const keys: TenantKeys = await t.addTenant('pending-expiry');
    const big = (n: number) => children(agentRun(1, (span) => span.setAttribute('http.response.body', String(n).repeat(120_000))));
    expect(await post([...big(1), ...big(2)], 'json', keys.write)).toMatchObject({ status: 200, rejected: 0 });
    // A day later (OTLP_PENDING_EXPIRY_MS's default): the clock is the rows' received_at.
    await t.services.db.pool.query(`UPDATE otlp_pending_spans SET received_at = now() - interval '25 hours' WHERE tenant_id = $1`, [keys.tenantId]);
    expect(await post(big(3), 'json', keys.write)).toMatchObject({ status: 200, rejected: 0 });
    const { rows } = await t.services.db.pool.query('SELECT count(*)::int AS n FROM otlp_pending_spans WHERE tenant_id = $1', [keys.tenantId]);
    expect(rows[0].n).toBe(1);
  });
});
