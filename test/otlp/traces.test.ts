// OTLP/HTTP trace ingest against the running server, with the real OpenTelemetry SDK and its OTLP
// exporters (protobuf and JSON): runs become episodes with steps, tokens and outcomes; a trace may
// come in pieces, children before their root, retried after a 503; a batch of 10,000 spans; keys
// and malformed bodies refused as OTLP/HTTP says; the episodes found by relevantEpisodes.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { startTestApp, type TestApp, useApp } from '../support/app.ts';
import { type AgentRun, exporterFor, exportSpans, isRootSpan, recordRuns, traceOf } from './support.ts';

let t: TestApp;
let base: string;
useApp((app) => {
  t = app;
  base = app.url.replace(/\/graphql$/, '');
});

async function episodeOfTrace(traceId: string) {
  const { rows } = await t.services.db.pool.query(
    `SELECT id, status, outcome_kind, outcome, agent, task_description, used_tokens::int AS tokens, step_count, historical, domain, started_at, ended_at
       FROM episodes WHERE tenant_id = $1 AND dedupe_key = $2`,
    [t.keys.tenantId, `otlp:${traceId}`],
  );
  return rows[0] as Record<string, unknown> | undefined;
}

async function stepsOf(episodeId: string) {
  const { rows } = await t.services.db.pool.query(
    'SELECT step_number, kind, tool, result_kind, result, tokens, side_effect_key, started_at FROM steps WHERE episode_id = $1 ORDER BY step_number',
    [episodeId],
  );
  return rows as Array<Record<string, unknown>>;
}

const run = (task: string, extra: Partial<AgentRun> = {}): AgentRun => ({
  task,
  agent: 'coder',
  tools: [
    { name: 'read_file', args: { path: 'src/app.ts' }, result: 'export const app = 1;' },
    { name: 'run_tests', args: { cmd: 'npm test' }, result: '', error: 'exit code 1: 2 tests failed' },
  ],
  chats: 2,
  outcome: 'success',
  ...extra,
});

describe('OTLP/HTTP trace ingest', () => {
  it('turns an instrumented run (protobuf) into an episode with steps, tokens, times and outcome', async () => {
    const spans = recordRuns('billing-agent', [run('Fix the rounding bug in invoice totals')]);
    const result = await exportSpans(exporterFor(base, t.keys.write), spans);
    expect(result.code).toBe(0);
    const ep = must(await episodeOfTrace(traceOf(must(spans[0]))));
    expect(ep).toMatchObject({ status: 'completed', outcome_kind: 'success', agent: 'coder', domain: 'billing-agent', historical: true, step_count: 4 });
    expect(ep.task_description).toBe('Fix the rounding bug in invoice totals');
    expect(ep.tokens).toBe(240);
    const steps = await stepsOf(String(ep.id));
    expect(steps.map((s) => [s.kind, s.tool, s.result_kind])).toEqual([
      // A model is not a tool: the step names it in its metadata, not as its tool.
      ['llm_call', null, 'success'],
      ['llm_call', null, 'success'],
      ['tool_call', 'read_file', 'success'],
      ['tool_call', 'run_tests', 'error'],
    ]);
    expect(steps[3]?.result).toMatchObject({ message: 'exit code 1: 2 tests failed', errorClass: 'ToolError' });
    const root = must(spans.find(isRootSpan));
    expect(new Date(ep.started_at as string).getTime()).toBe(root.startTime[0] * 1000 + Math.floor(root.startTime[1] / 1e6));
  });

  it('keeps children that come before their root and attaches them when it arrives (JSON, two requests)', async () => {
    const spans = recordRuns('search-agent', [run('Add pagination to the search endpoint', { outcome: undefined })]);
    const exporter = exporterFor(base, t.keys.write, 'json');
    expect(
      (
        await exportSpans(
          exporter,
          spans.filter((s) => !isRootSpan(s)),
        )
      ).code,
    ).toBe(0);
    const traceId = traceOf(must(spans[0]));
    expect(await episodeOfTrace(traceId)).toBeUndefined();
    const { rows } = await t.services.db.pool.query('SELECT count(*)::int AS n FROM otlp_pending_spans WHERE trace_id = $1', [traceId]);
    expect(rows[0].n).toBe(4);
    expect((await exportSpans(exporter, spans.filter(isRootSpan))).code).toBe(0);
    const ep = must(await episodeOfTrace(traceId));
    // No outcome stated and status UNSET: unknown.
    expect(ep).toMatchObject({ status: 'completed', outcome_kind: 'unknown', step_count: 4 });
    const after = await t.services.db.pool.query('SELECT count(*)::int AS n FROM otlp_pending_spans WHERE trace_id = $1', [traceId]);
    expect(after.rows[0].n).toBe(0);
  });

  it('splits a trace across requests in any order and stores each span once when requests repeat', async () => {
    const spans = recordRuns('ops-agent', [run('Rotate the staging database password', { outcome: 'failure' })]);
    const [a, b, c] = [spans.slice(0, 2), spans.slice(2, 4), spans.slice(4)];
    const exporter = exporterFor(base, t.keys.write);
    for (const part of [b, a, b, c, a, c]) expect((await exportSpans(exporter, part)).code).toBe(0);
    const ep = must(await episodeOfTrace(traceOf(must(spans[0]))));
    expect(ep).toMatchObject({ status: 'failed', outcome_kind: 'failure', step_count: 4 });
    expect(ep.outcome).toMatchObject({ reason: 'tests still fail' });
    const keys = (await stepsOf(String(ep.id))).map((s) => s.side_effect_key);
    expect(new Set(keys).size).toBe(4);
  });

  it('ingests a batch of 10,000 spans in one request', async () => {
    const runs = Array.from({ length: 100 }, (_, i) =>
      run(`Batch task ${i}: tune the cache eviction policy`, {
        chats: 49,
        tools: Array.from({ length: 50 }, (_, k) => ({ name: 'grep', args: { q: `k${k}` }, result: 'ok' })),
      }),
    );
    const spans = recordRuns('batch-agent', runs);
    expect(spans).toHaveLength(10_000);
    expect((await exportSpans(exporterFor(base, t.keys.write), spans)).code).toBe(0);
    const { rows } = await t.services.db.pool.query(
      `SELECT count(*)::int AS episodes, sum(step_count)::int AS steps FROM episodes WHERE tenant_id = $1 AND agent = 'coder' AND status = 'completed' AND domain = 'batch-agent'`,
      [t.keys.tenantId],
    );
    expect(rows[0]).toEqual({ episodes: 100, steps: 9_900 });
  }, 240_000);

  describe('through a proxy that loses the first answer and says 503', () => {
    let proxy: Server;
    let proxied: string;
    let answers: number[] = [];
    beforeAll(async () => {
      let first = true;
      proxy = createServer((req, res) => {
        const upstream = new URL(base);
        const forward = httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
          const lose = first;
          first = false;
          answers.push(lose ? 503 : (up.statusCode ?? 0));
          if (lose) {
            up.resume();
            res.writeHead(503, { 'retry-after': '1' }).end();
          } else {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          }
        });
        req.pipe(forward);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      proxied = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      answers = [];
    });
    afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

    it('the exporter retries, and the run is stored once although the server saw it twice', async () => {
      const spans = recordRuns('retry-agent', [run('Upgrade the logging library')]);
      expect((await exportSpans(exporterFor(proxied, t.keys.write), spans)).code).toBe(0);
      expect(answers).toEqual([503, 200]);
      const ep = must(await episodeOfTrace(traceOf(must(spans[0]))));
      expect(ep).toMatchObject({ status: 'completed', step_count: 4 });
      expect(await stepsOf(String(ep.id))).toHaveLength(4);
    });
  });

  describe('on a server that takes one request at a time', () => {
    let small: TestApp;
    beforeAll(async () => {
      small = await startTestApp({ MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUED_PER_KEY: '0' });
    });
    afterAll(() => small.stop());

    it('answers 503 with Retry-After while its slot is taken, and takes the request again once it is free', async () => {
      const root = small.url.replace(/\/graphql$/, '');
      const body = JSON.stringify({ resourceSpans: [] });
      // A start held in the database by a table lock holds the server's one slot (a half-sent
      // request holds none: an export takes its slots once its body is read and its spans counted).
      const lock = await small.services.db.pool.connect();
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE ledger_events IN ACCESS EXCLUSIVE MODE');
      const held = small.gql('mutation { startEpisode(input: { taskDescription: "held", taskType: "t" }) { __typename } }');
      while ((await fetch(`${root}/readyz`)).status !== 503) await new Promise((resolve) => setTimeout(resolve, 10));
      const post = () =>
        fetch(`${root}/v1/traces`, {
          method: 'POST',
          headers: { authorization: `Bearer ${small.keys.write}`, 'content-type': 'application/json' },
          body,
        });
      const shed = await post();
      expect(shed.status).toBe(503);
      expect(shed.headers.get('retry-after')).toBe('1');
      expect(await shed.json()).toMatchObject({ code: 14, message: expect.stringContaining('retry shortly') });
      await lock.query('COMMIT');
      lock.release();
      expect((await held).errors).toBeUndefined();
      expect((await post()).status).toBe(200);
    });
  });

  it('refuses a wrong key (401) and a read key (403), storing nothing', async () => {
    const spans = recordRuns('denied-agent', [run('Should never be stored')]);
    const wrong = await exportSpans(exporterFor(base, 'epk_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), spans);
    expect(wrong.code).toBe(1);
    expect((wrong.error as { code?: number }).code).toBe(401);
    const read = await exportSpans(exporterFor(base, t.keys.read), spans);
    expect(read.code).toBe(1);
    expect((read.error as { code?: number }).code).toBe(403);
    expect(await episodeOfTrace(traceOf(must(spans[0])))).toBeUndefined();
  });

  it('answers 400 with a Status to a body that is not OTLP, and 415 to an unknown content type', async () => {
    const post = (body: BodyInit, type: string, extra: Record<string, string> = {}) =>
      fetch(`${base}/v1/traces`, { method: 'POST', headers: { authorization: `Bearer ${t.keys.write}`, 'content-type': type, ...extra }, body });
    const garbage = await post(new Uint8Array([0xff, 0xff, 0xff, 0x07, 0x01]), 'application/x-protobuf');
    expect(garbage.status).toBe(400);
    const json = await post('{"resourceSpans": 7', 'application/json');
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ code: 3, message: expect.stringContaining('not JSON') });
    const badGzip = await post('not gzip', 'application/json', { 'content-encoding': 'gzip' });
    expect(badGzip.status).toBe(400);
    expect((await post('{}', 'text/plain')).status).toBe(415);
  });

  it('reports refused spans in partialSuccess (gzipped JSON), storing the rest', async () => {
    const traceId = 'ab'.repeat(16);
    const span = (spanId: string, parent: string | null, extra: object = {}) => ({
      traceId,
      spanId,
      ...(parent ? { parentSpanId: parent } : {}),
      name: 'execute_tool bash',
      startTimeUnixNano: String(BigInt(Date.now() - 5_000) * 1_000_000n),
      endTimeUnixNano: String(BigInt(Date.now() - 4_000) * 1_000_000n),
      attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } }],
      ...extra,
    });
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'json-agent' } }] },
          scopeSpans: [
            {
              spans: [
                span('0000000000000001', null, {
                  name: 'invoke_agent',
                  attributes: [
                    { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
                    { key: 'episodic.outcome', value: { stringValue: 'success' } },
                  ],
                }),
                span('0000000000000002', '0000000000000001', {
                  attributes: [{ key: 'gen_ai.tool.name', value: { stringValue: 'bad\u0001name' } }],
                }),
                span('0000000000000003', '0000000000000001'),
                // A second parentless span: the invoke_agent one roots the episode, this one is a step.
                span('0000000000000005', null),
                { traceId: 'xyz', spanId: '0000000000000004' },
              ],
            },
          ],
        },
      ],
    };
    const res = await fetch(`${base}/v1/traces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.keys.write}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify(body)),
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { partialSuccess: { rejectedSpans: number; errorMessage: string } };
    expect(answer.partialSuccess.rejectedSpans).toBe(2);
    expect(answer.partialSuccess.errorMessage).toMatch(/span #4 of the request: traceId must be 16 bytes/);
    expect(answer.partialSuccess.errorMessage).toMatch(/span 0000000000000002 of trace abab.*tool/);
    const ep = must(await episodeOfTrace(traceId));
    expect(ep).toMatchObject({ status: 'completed', outcome_kind: 'success', step_count: 2 });
  });

  it('refuses a root span whose episode startEpisode would refuse, and stores no episode for it', async () => {
    const root = (traceId: string, startMs: number, attributes: object[]) => ({
      traceId,
      spanId: '0000000000000001',
      name: 'invoke_agent',
      startTimeUnixNano: String(BigInt(startMs) * 1_000_000n),
      endTimeUnixNano: String(BigInt(startMs + 1_000) * 1_000_000n),
      attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } }, ...attributes],
    });
    const longId = 'cd'.repeat(16);
    const ahead = 'ef'.repeat(16);
    const endsAhead = 'fa'.repeat(16);
    const year = 365 * 86_400_000;
    const spans = [
      root(longId, Date.now() - 5_000, [{ key: 'gen_ai.conversation.id', value: { stringValue: 'c'.repeat(100_000) } }]),
      root(ahead, Date.now() + year, []),
      { ...root(endsAhead, Date.now() - 5_000, []), endTimeUnixNano: String(BigInt(Date.now() + year) * 1_000_000n) },
    ];
    const res = await fetch(`${base}/v1/traces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.keys.write}`, 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }),
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { partialSuccess: { rejectedSpans: number; errorMessage: string } };
    expect(answer.partialSuccess.rejectedSpans).toBe(3);
    expect(answer.partialSuccess.errorMessage).toMatch(new RegExp(`trace ${longId}: episode\\.metadata is \\d+ bytes; the limit is 65536 bytes`));
    expect(answer.partialSuccess.errorMessage).toMatch(new RegExp(`trace ${ahead}: episode\\.startedAt \\(.*\\) is in the future`));
    expect(answer.partialSuccess.errorMessage).toMatch(new RegExp(`trace ${endsAhead}: episode\\.endedAt .*is in the future`));
    for (const traceId of [longId, ahead, endsAhead]) expect(await episodeOfTrace(traceId)).toBeUndefined();
  });

  it('finds a run that came in over OTLP with relevantEpisodes', async () => {
    const spans = recordRuns('memory-agent', [run('Migrate the payment webhooks to the new signature scheme')]);
    expect((await exportSpans(exporterFor(base, t.keys.write), spans)).code).toBe(0);
    const res = await t.gql(
      `query($task: RetrievalTaskInput!) { relevantEpisodes(task: $task, limit: 3) { ... on RelevantEpisodes { episodes { episode { id taskDescription reward { normalized } } } } } }`,
      { task: { description: 'payment webhooks signature migration' } },
      t.keys.read,
    );
    const found = res.data?.relevantEpisodes.episodes.map((e: { episode: { taskDescription: string } }) => e.episode.taskDescription);
    expect(found?.[0]).toBe('Migrate the payment webhooks to the new signature scheme');
    // Completed through the lifecycle: the run was scored like any other.
    expect(res.data?.relevantEpisodes.episodes[0].episode.reward.normalized).toBeGreaterThan(0);
  });
});
