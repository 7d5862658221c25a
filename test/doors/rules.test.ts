// One set of rules at every door (issue 56): every rule of ARCHITECTURE.md's door table crossed
// with every door there, each door reached by its real client (fetch, graphql-ws, the `episodic`
// binary, the OpenTelemetry SDK's serializers, the MCP SDK client over Streamable HTTP and stdio).
// Each cell sends one bad input and asserts a typed refusal naming the field and the limit, and
// that nothing was written for it (the door's tenant's rows and ledger events before and after;
// OTLP: that span alone in partialSuccess, the request's other trace stored). A cell is either
// implemented or marked "not applicable, because ..."; a door or rule of the table without its
// cell fails the test, as does a door or rule here that the table does not list.
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnBinary } from '../client/cli-run.ts';
import { type Connected, call, connect } from '../mcp/support.ts';
import { deepProtobufRequest } from '../otlp/deep-request.ts';
import { agentRun, type Encoding, postSpans, traceOf } from '../otlp/support.ts';
import { startTestApp, type TenantKeys, type TestApp } from '../support/app.ts';
import { waitForRoomInTheMinute } from '../support/rate-window.ts';

/** What a cell saw: the whole answer as text (what it must name), and what the transport said. */
interface Seen {
  text: string;
  status?: number;
  retryAfter?: string | null;
}

/** A bad value for a step field of one kind; `field` is how the refusal names that field, `limit` what it says of the limit. */
interface TextRule {
  kind: 'label' | 'free text' | 'JSON';
  value: string;
  limit: RegExp;
}

const LONG_LABEL = 'x'.repeat(300);
const LONG_TEXT = 'y'.repeat(1024 * 1024 + 10);
const TEXT_RULES: Record<string, TextRule> = {
  'too long: label': { kind: 'label', value: LONG_LABEL, limit: /200/ },
  'too long: free text': { kind: 'free text', value: LONG_TEXT, limit: /1048576 bytes/ },
  // A label refuses every control character, NUL among them.
  'NUL: label': { kind: 'label', value: 'ba\u0000sh', limit: /NUL|control characters/ },
  'NUL: free text': { kind: 'free text', value: 'before\u0000after', limit: /NUL/ },
  'NUL: JSON': { kind: 'JSON', value: 'before\u0000after', limit: /NUL/ },
  'lone surrogate: label': { kind: 'label', value: 'ba\ud800sh', limit: /surrogate|control|letters/ },
  'lone surrogate: free text': { kind: 'free text', value: 'half \ud800 a pair', limit: /surrogate/ },
  'lone surrogate: JSON': { kind: 'JSON', value: 'half \ud800 a pair', limit: /surrogate/ },
};
const OTHER_RULES = [
  'metadata over its limit',
  'time out of range',
  'nesting past the depth limit',
  'malformed id or cursor',
  'key over its rate limit',
  'read key writing',
] as const;
const RULES = [...Object.keys(TEXT_RULES), ...OTHER_RULES];

/** The field a step field of each kind is named by in a refusal. */
const FIELD_OF_KIND: Record<TextRule['kind'], RegExp> = { label: /tool/, 'free text': /output/, JSON: /parameters/ };

/** A door's answer to a rule: a cell run against the door's own tenant, or why the rule does not apply to it. */
type Cell = (ctx: DoorContext) => Promise<Seen>;
type NotApplicable = { notApplicable: string };
type Door = Record<string, Cell | NotApplicable>;

/** What a door needs done with a key before its minute is used up (MCP stdio reads the key's scopes once, at its start). */
const BEFORE_RATE_LIMIT = new Map<string, (key: string) => Promise<unknown>>();

interface DoorContext {
  keys: TenantKeys;
  /** An episode of the tenant that takes steps (started before the cell's count). */
  episodeId: string;
  /** The whole answer must name these (field, limit), unless the cell checks itself. */
  expect: { field: RegExp; limit: RegExp };
}

let t: TestApp;
let base: string;
let dir: string;
// Low enough to use up quickly, high enough for a door's other cells (two requests each, an OTLP
// export counting one per span) on their own key.
const RATE = 300;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: String(RATE) }, { overSocket: true });
  base = t.url.replace(/\/graphql$/, '');
  dir = await mkdtemp(join(tmpdir(), 'door-rules-'));
});
afterAll(() => t?.stop());

// --- what a tenant holds: counted before and after a cell -------------------------------------

/**
 * The tenant's episodes, steps and ledger events. Pattern extraction runs as a job after an episode
 * an earlier cell stored completed (OTLP's good traces): its events are not counted.
 */
async function written(tenantId: string): Promise<string> {
  const { rows } = await t.services.db.pool.query(
    `SELECT (SELECT count(*) FROM episodes WHERE tenant_id = $1) AS episodes, (SELECT count(*) FROM steps s JOIN episodes e ON e.id = s.episode_id WHERE e.tenant_id = $1) AS steps,
            (SELECT count(*) FROM ledger_events WHERE tenant_id = $1 AND type NOT LIKE 'patterns.%') AS events`,
    [tenantId],
  );
  return JSON.stringify(rows[0]);
}

// --- GraphQL over HTTP and WebSocket, importRun -------------------------------------------------

const LOG =
  'mutation ($id: ID!, $steps: [StepInput!]!) { logSteps(episodeId: $id, steps: $steps) { __typename ... on InputLimitError { message violations { field limit message } } } }';
const START =
  'mutation ($input: StartEpisodeInput!) { startEpisode(input: $input) { __typename ... on InputLimitError { message violations { field limit message } } ... on StartEpisodePayload { episode { id } } } }';
const IMPORT = `mutation ($input: StartEpisodeInput!, $steps: [StepInput!]!) { importRun(input: $input, steps: $steps, outcome: {kind: SUCCESS, verdict: "ok"}) { __typename ... on Error { message } ... on InputLimitError { violations { field limit message } } } }`;
const CURSOR = (c: string) => `{ episodes(after: ${JSON.stringify(c)}) { edges { cursor } } }`;
const BAD_CURSOR = Buffer.from('GPC:S:not-a-uuid').toString('base64');

async function overHttp(query: string, variables: Record<string, unknown>, token: string): Promise<Seen> {
  const res = await fetch(t.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return { text: await res.text(), status: res.status, retryAfter: res.headers.get('retry-after') };
}

async function overSocket(query: string, variables: Record<string, unknown>, token: string): Promise<Seen> {
  const client = t.wsClient(token);
  try {
    const results: unknown[] = [];
    for await (const r of client.iterate({ query, variables })) results.push(r);
    return { text: JSON.stringify(results) };
  } catch (err) {
    return { text: JSON.stringify(err instanceof Error ? { message: err.message } : err) };
  }
}

const stepWith = (kind: TextRule['kind'], value: string) => ({
  kind: 'tool_call',
  tool: kind === 'label' ? value : 'bash',
  parameters: kind === 'JSON' ? { command: value } : { command: 'ls' },
  result: { kind: 'SUCCESS', output: kind === 'free text' ? value : 'ok' },
});

const deepJson = (depth: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = { n: value };
  return value;
};

// A JSON value's depth is checked where it arrives: a step's parameters, an MCP call's arguments, an OTLP attribute value.
const NESTING = { field: /parameters|arguments|attribute value/, limit: /deeper than 64 levels/ };
const METADATA = { field: /metadata/, limit: /65536 bytes/ };
const FUTURE = new Date(Date.now() + 365 * 24 * 3600_000).toISOString();
const TIME = { field: /startedAt/, limit: /future/ };
const RATE_LIMITED = { field: /RATE_LIMITED|rate limit/i, limit: new RegExp(`the limit is ${RATE} requests a minute \\(RATE_LIMIT_PER_MINUTE\\)`) };
const READ_KEY = { field: /write/, limit: /scope|FORBIDDEN/i };

function graphqlDoor(send: typeof overHttp): Door {
  const cells: Door = {};
  for (const [name, rule] of Object.entries(TEXT_RULES)) {
    cells[name] = (ctx) => send(LOG, { id: ctx.episodeId, steps: [stepWith(rule.kind, rule.value)] }, ctx.keys.write);
  }
  return {
    ...cells,
    'metadata over its limit': (ctx) => send(START, { input: { taskDescription: 't', taskType: 't', metadata: { c: 'c'.repeat(100_000) } } }, ctx.keys.write),
    'time out of range': (ctx) =>
      send(
        START,
        { input: { taskDescription: 't', taskType: 't', startedAt: FUTURE, importSource: { format: 'x', sourceHash: 'a'.repeat(64) } } },
        ctx.keys.write,
      ),
    'nesting past the depth limit': (ctx) =>
      send(LOG, { id: ctx.episodeId, steps: [{ kind: 'tool_call', tool: 'bash', parameters: deepJson(100) }] }, ctx.keys.write),
    'malformed id or cursor': (ctx) => send(CURSOR(BAD_CURSOR), {}, ctx.keys.read),
    'key over its rate limit': (ctx) => send(START, { input: { taskDescription: 't', taskType: 't' } }, ctx.keys.write),
    'read key writing': (ctx) => send(START, { input: { taskDescription: 't', taskType: 't' } }, ctx.keys.read),
  };
}

const SOURCE = { format: 'door-test', sourceHash: 'b'.repeat(64) };
const importInput = (extra: Record<string, unknown> = {}) => ({ taskDescription: 'imported', taskType: 't', importSource: SOURCE, ...extra });

function importRunDoor(): Door {
  const cells: Door = {};
  for (const [name, rule] of Object.entries(TEXT_RULES)) {
    cells[name] = (ctx) => overHttp(IMPORT, { input: importInput(), steps: [stepWith(rule.kind, rule.value)] }, ctx.keys.write);
  }
  return {
    ...cells,
    'metadata over its limit': (ctx) => overHttp(IMPORT, { input: importInput({ metadata: { c: 'c'.repeat(100_000) } }), steps: [] }, ctx.keys.write),
    'time out of range': (ctx) => overHttp(IMPORT, { input: importInput({ startedAt: FUTURE }), steps: [] }, ctx.keys.write),
    'nesting past the depth limit': (ctx) =>
      overHttp(IMPORT, { input: importInput(), steps: [{ kind: 'tool_call', parameters: deepJson(100) }] }, ctx.keys.write),
    'malformed id or cursor': (ctx) => overHttp(IMPORT, { input: importInput({ workItemId: 'not-a-uuid' }), steps: [] }, ctx.keys.write),
    'key over its rate limit': (ctx) => overHttp(IMPORT, { input: importInput(), steps: [] }, ctx.keys.write),
    'read key writing': (ctx) => overHttp(IMPORT, { input: importInput(), steps: [] }, ctx.keys.read),
  };
}

// --- `episodic import` in a child process -----------------------------------------------------

let files = 0;
/** Imports one generic JSON-lines run with the binary; its stdout, stderr and exit code as the answer. */
async function cliImport(token: string, run: Record<string, unknown>, steps: Array<Record<string, unknown>>): Promise<Seen> {
  files += 1;
  const file = join(dir, `run-${files}.jsonl`);
  const lines = [{ type: 'run', id: `door-run-${files}`, task: 'a run to import', startedAt: '2025-06-01T10:00:00Z', endedAt: '2025-06-01T10:05:00Z', ...run }];
  const stepLines = steps.map((s, i) => ({ type: 'step', command: 'ls', output: 'ok', startedAt: `2025-06-01T10:0${i + 1}:00Z`, ...s }));
  await writeFile(file, [...lines, ...stepLines].map((l) => JSON.stringify(l)).join('\n'));
  const done = await spawnBinary(['import', file, '--json'], { env: { EPISODIC_URL: t.url, EPISODIC_API_KEY: token, EPISODIC_DATA_DIR: join(dir, 'none') } })
    .exited;
  return { text: `${done.stdout}\n${done.stderr}`, status: done.code ?? -1 };
}

const CLI_TEXT_FIELD: Record<TextRule['kind'], string> = { label: 'tool', 'free text': 'output', JSON: 'command' };

function cliDoor(): Door {
  const cells: Door = {};
  for (const [name, rule] of Object.entries(TEXT_RULES)) {
    cells[name] = (ctx) => cliImport(ctx.keys.write, {}, [{}, { [CLI_TEXT_FIELD[rule.kind]]: rule.value }, {}]);
  }
  return {
    ...cells,
    'too long: free text': { notApplicable: 'the import sends large content as blobs (largeContent BLOB): a long output is kept whole, not refused' },
    'metadata over its limit': { notApplicable: 'a trajectory file names no metadata: the importer writes only the run’s format, instance and repository' },
    'time out of range': (ctx) => cliImport(ctx.keys.write, { startedAt: FUTURE, endedAt: FUTURE }, [{ startedAt: FUTURE }]),
    'nesting past the depth limit': { notApplicable: 'the formats carry a step’s parameters as one command string: no nested value reaches the API' },
    'malformed id or cursor': { notApplicable: 'an import names no id or cursor: the episode is found by the file’s hash' },
    'key over its rate limit': {
      notApplicable:
        'the CLI honours the 429’s Retry-After and sends the call again (test/import/busy.test.ts): the limit is the GraphQL door’s, which it calls',
    },
    'read key writing': (ctx) => cliImport(ctx.keys.read, {}, [{}]),
  };
}

// --- OTLP protobuf and JSON -------------------------------------------------------------------

const OTLP_ATTRIBUTE: Record<TextRule['kind'], string> = {
  label: 'gen_ai.tool.name',
  'free text': 'gen_ai.tool.call.result',
  JSON: 'gen_ai.tool.call.arguments',
};

async function episodeOfTrace(tenantId: string, traceId: string) {
  const { rows } = await t.services.db.pool.query('SELECT status, step_count FROM episodes WHERE tenant_id = $1 AND dedupe_key = $2', [
    tenantId,
    `otlp:${traceId}`,
  ]);
  return rows[0] as { status: string; step_count: number } | undefined;
}

/** A refused span alone in partialSuccess: the bad one named, its trace's other spans and the request's other trace stored. */
async function otlpRefusal(encoding: Encoding, ctx: DoorContext, bad: ReadableSpan[], refusedRoot: boolean, rejected = 1): Promise<Seen> {
  const good = agentRun(1);
  const answer = await postSpans(base, [...bad, ...good], encoding, ctx.keys.write);
  expect(answer, answer.message).toMatchObject({ status: 200, rejected });
  expect(await episodeOfTrace(ctx.keys.tenantId, traceOf(good[0] as ReadableSpan))).toMatchObject({ status: 'completed', step_count: 1 });
  const badEpisode = await episodeOfTrace(ctx.keys.tenantId, traceOf(bad[0] as ReadableSpan));
  if (refusedRoot) expect(badEpisode, 'a refused root leaves no episode').toBeUndefined();
  else expect(badEpisode).toMatchObject({ status: 'completed', step_count: bad.length - 2 });
  return { text: answer.message };
}

async function otlpRaw(encoding: Encoding, body: string | Uint8Array<ArrayBuffer>, token: string): Promise<Seen> {
  const res = await fetch(`${base}/v1/traces`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' },
    body,
  });
  return { text: Buffer.from(await res.arrayBuffer()).toString('latin1'), status: res.status, retryAfter: res.headers.get('retry-after') };
}

function otlpDoor(encoding: Encoding): Door {
  const cells: Door = {};
  for (const [name, rule] of Object.entries(TEXT_RULES)) {
    const value = rule.kind === 'JSON' ? JSON.stringify({ command: rule.value }) : rule.value;
    cells[name] = (ctx) =>
      otlpRefusal(
        encoding,
        ctx,
        agentRun(2, (span, i) => i === 1 && span.setAttribute(OTLP_ATTRIBUTE[rule.kind], value)),
        false,
      );
  }
  const nested = () => {
    if (encoding === 'protobuf') return deepProtobufRequest(100);
    let value = '{"stringValue":"x"}';
    for (let i = 0; i < 100; i += 1) value = `{"arrayValue":{"values":[${value}]}}`;
    const span = `{"traceId":"${'1'.repeat(32)}","spanId":"${'2'.repeat(16)}","name":"x","attributes":[{"key":"a","value":${value}}]}`;
    return `{"resourceSpans":[{"scopeSpans":[{"spans":[${span}]}]}]}`;
  };
  const malformed = () => {
    const span = (traceId: string) => `{"traceId":"${traceId}","spanId":"${'2'.repeat(16)}","name":"x","startTimeUnixNano":"1","endTimeUnixNano":"2"}`;
    return `{"resourceSpans":[{"scopeSpans":[{"spans":[${span('zz-not-hex')}]}]}]}`;
  };
  return {
    ...cells,
    'too long: free text': {
      notApplicable: 'a span’s long content is kept whole in the blob store (largeContent blob): a long tool result is stored, not refused',
    },
    'lone surrogate: label':
      encoding === 'protobuf'
        ? { notApplicable: 'the SDK’s protobuf encoder writes a lone surrogate as WTF-8, which the decoder reads as U+FFFD: none arrives' }
        : (cells['lone surrogate: label'] as Cell),
    'lone surrogate: free text':
      encoding === 'protobuf'
        ? { notApplicable: 'the SDK’s protobuf encoder writes a lone surrogate as WTF-8, which the decoder reads as U+FFFD: none arrives' }
        : (cells['lone surrogate: free text'] as Cell),
    'metadata over its limit': (ctx) =>
      otlpRefusal(
        encoding,
        ctx,
        agentRun(1, (span, i) => i === 'root' && span.setAttribute('gen_ai.conversation.id', 'c'.repeat(100_000))),
        true,
      ),
    'time out of range': (ctx) =>
      otlpRefusal(
        encoding,
        ctx,
        agentRun(1, () => undefined, Date.now() + 365 * 24 * 3600_000),
        true,
        2,
      ),
    'nesting past the depth limit': (ctx) => otlpRaw(encoding, nested(), ctx.keys.write),
    'malformed id or cursor':
      encoding === 'json'
        ? (ctx) => otlpRaw(encoding, malformed(), ctx.keys.write)
        : { notApplicable: 'protobuf ids are bytes the SDK writes from its span context: any byte string is read as its hex' },
    'key over its rate limit': (ctx) =>
      postSpans(base, agentRun(1), encoding, ctx.keys.write).then((a) => ({ text: a.message, status: a.status, retryAfter: a.retryAfter })),
    'read key writing': (ctx) =>
      postSpans(base, agentRun(1), encoding, ctx.keys.read).then((a) => ({ text: a.message, status: a.status, retryAfter: a.retryAfter })),
  };
}

// --- MCP over Streamable HTTP and stdio -------------------------------------------------------

function mcpDoor(transport: 'http' | 'stdio', name: string): Door {
  const clients = new Map<string, Connected>();
  const client = async (key: string) => {
    let c = clients.get(key);
    if (!c) clients.set(key, (c = await connect(t, transport, key)));
    return c.client;
  };
  BEFORE_RATE_LIMIT.set(name, client);
  const seen = async (p: Promise<{ text: string; isError: boolean }>): Promise<Seen> => {
    try {
      const r = await p;
      expect(r.isError, r.text).toBe(true);
      return { text: r.text };
    } catch (err) {
      return { text: err instanceof Error ? err.message : String(err) };
    }
  };
  const mcpStep = (kind: TextRule['kind'], value: string) => ({
    kind: 'tool_call',
    tool: kind === 'label' ? value : 'bash',
    parameters: kind === 'JSON' ? { command: value } : { command: 'ls' },
    output: kind === 'free text' ? value : 'ok',
  });
  const cells: Door = {};
  for (const [name, rule] of Object.entries(TEXT_RULES)) {
    cells[name] = async (ctx) => seen(call(await client(ctx.keys.write), 'log_steps', { episodeId: ctx.episodeId, steps: [mcpStep(rule.kind, rule.value)] }));
  }
  afterAll(() => Promise.all([...clients.values()].map((c) => c.close())));
  return {
    ...cells,
    'metadata over its limit': {
      notApplicable: 'the MCP tools take no metadata: start_episode’s arguments are the task and its context, each with its own limit',
    },
    'time out of range': { notApplicable: 'the MCP tools take no times: the server stamps each step and episode' },
    'nesting past the depth limit': async (ctx) =>
      seen(
        call(await client(ctx.keys.write), 'log_steps', { episodeId: ctx.episodeId, steps: [{ kind: 'tool_call', tool: 'bash', parameters: deepJson(100) }] }),
      ),
    'malformed id or cursor': async (ctx) =>
      seen(call(await client(ctx.keys.write), 'log_steps', { episodeId: 'not-a-uuid', steps: [{ kind: 'tool_call', tool: 'bash' }] })),
    'key over its rate limit': async (ctx) => seen(call(await client(ctx.keys.write), 'start_episode', { task: 'rate limited' })),
    'read key writing': async (ctx) => {
      // A read key's server has no write tool (server.ts: neither listed nor callable): the SDK's typed JSON-RPC error names the tool.
      ctx.expect = { field: /start_episode/, limit: /-32602.*not found/ };
      return seen(call(await client(ctx.keys.read), 'start_episode', { task: 'read key' }));
    },
  };
}

// --- the registry ----------------------------------------------------------------------------

const DOORS: Record<string, Door> = {
  'GraphQL over HTTP': graphqlDoor(overHttp),
  'GraphQL over WebSocket': graphqlDoor(overSocket),
  importRun: importRunDoor(),
  'episodic import': cliDoor(),
  'OTLP protobuf': otlpDoor('protobuf'),
  'OTLP JSON': otlpDoor('json'),
  'MCP HTTP': mcpDoor('http', 'MCP HTTP'),
  'MCP stdio': mcpDoor('stdio', 'MCP stdio'),
};

/** What each rule's refusal must name, where the cell does not check it itself. */
function expected(rule: string): { field: RegExp; limit: RegExp } {
  const text = TEXT_RULES[rule];
  if (text) return { field: FIELD_OF_KIND[text.kind], limit: text.limit };
  return (
    {
      'metadata over its limit': METADATA,
      'time out of range': TIME,
      'nesting past the depth limit': NESTING,
      'malformed id or cursor': { field: /after|id|traceId|workItemId/i, limit: /UUID|cursor|hex/i },
      'key over its rate limit': RATE_LIMITED,
      'read key writing': READ_KEY,
    } as Record<string, { field: RegExp; limit: RegExp }>
  )[rule] as { field: RegExp; limit: RegExp };
}

/** The door table of ARCHITECTURE.md: its doors (rows) and rules (columns). */
function documentedTable(): { doors: string[]; rules: string[] } {
  const doc = readFileSync(join(import.meta.dirname, '../../ARCHITECTURE.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Rules at every door'));
  const list = (heading: string) => [...(section.split(`### ${heading}`)[1]?.split('\n###')[0] ?? '').matchAll(/^- `([^`]+)`/gm)].map((m) => m[1] as string);
  return { doors: list('Doors'), rules: list('Rules') };
}

it('has a cell for every door and rule of the documented table, and nothing the table does not list', () => {
  const table = documentedTable();
  expect(Object.keys(DOORS).sort()).toEqual([...table.doors].sort());
  expect([...RULES].sort()).toEqual([...table.rules].sort());
  for (const [door, cells] of Object.entries(DOORS))
    for (const rule of RULES) expect(cells[rule], `${door} × ${rule}: neither a cell nor "not applicable"`).toBeDefined();
});

describe.each(Object.keys(DOORS))('%s', (doorName) => {
  const door = DOORS[doorName] as Door;
  let keys: TenantKeys;
  let rateKeys: TenantKeys;
  beforeAll(async () => {
    keys = await t.addTenant(`door ${doorName}`);
    rateKeys = await t.addTenant(`door ${doorName} rate`);
  });

  it.each(RULES.filter((r) => r !== 'key over its rate limit'))('%s', async (rule) => {
    const cell = door[rule];
    if (!cell || 'notApplicable' in cell) {
      expect(cell && 'notApplicable' in cell && cell.notApplicable.length > 20).toBe(true);
      return;
    }
    const started = await t.gql<{ startEpisode: { episode: { id: string } } }>(
      START,
      { input: { taskDescription: `cells of ${doorName}`, taskType: 't' } },
      keys.write,
    );
    const ctx: DoorContext = { keys, episodeId: started.data?.startEpisode.episode.id as string, expect: expected(rule) };
    const before = await written(keys.tenantId);
    const seen = await cell(ctx);
    expect(seen.status ?? 200, seen.text.slice(0, 500)).not.toBe(500);
    expect(seen.text.slice(0, 8000), 'names the field').toMatch(ctx.expect.field);
    expect(seen.text.slice(0, 8000), 'names the limit').toMatch(ctx.expect.limit);
    // OTLP cells check what was stored themselves (the request's good trace is stored).
    if (!doorName.startsWith('OTLP') || rule === 'nesting past the depth limit' || rule === 'read key writing' || rule === 'malformed id or cursor')
      expect(await written(keys.tenantId), 'nothing written').toBe(before);
  });

  it('key over its rate limit: 429 with Retry-After (or the door’s typed refusal naming it), nothing written', async () => {
    const cell = door['key over its rate limit'];
    if (!cell || 'notApplicable' in cell) return expect(cell && 'notApplicable' in cell).toBe(true);
    await waitForRoomInTheMinute();
    const ctx: DoorContext = { keys: rateKeys, episodeId: '', expect: RATE_LIMITED };
    await BEFORE_RATE_LIMIT.get(doorName)?.(rateKeys.write);
    for (let i = 0; i < RATE; i += 10) await Promise.all(Array.from({ length: 10 }, () => t.gql('{ __typename }', {}, rateKeys.write)));
    const before = await written(rateKeys.tenantId);
    const seen = await cell(ctx);
    if (seen.status !== undefined) {
      expect(seen.status).toBe(429);
      expect(Number(seen.retryAfter)).toBeGreaterThan(0);
    }
    expect(seen.text, 'names the limit').toMatch(RATE_LIMITED.limit);
    expect(await written(rateKeys.tenantId), 'nothing written').toBe(before);
  });
});
