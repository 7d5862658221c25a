// Property-based fuzzing of every mutation through the API, in process through the app's yoga
// (fast-check). Arguments are generated from the printed schema's input types: mostly plausible
// values (so writes happen and budgets are crossed),
// mixed with oversized, malformed and boundary ones (NUL bytes, lone surrogates, 1 MB strings, deep
// JSON, out-of-range numbers and dates, wrong types, other tenants' and malformed ids). For each call:
//  - no unmasked internal error: every GraphQL error carries a known code (INTERNAL_SERVER_ERROR
//    fails, with its request id, so the server log line can be found), or the answer is a typed
//    member of the mutation's result union;
//  - no partial write: after a call that answered with an error, everything the tenant owns is
//    unchanged (row counts, the rows themselves, the ledger head).
// After the run the database invariants hold: step numbers 1..N per episode, counters match the
// steps, the ledger verifies, and budgets are exceeded by at most the one crossing step.
//
// FUZZ_RUNS (default 30) sets the runs per mutation, FUZZ_SEED replays a run, FUZZ_SHRINK=1 shrinks
// a failure to a minimal input, FUZZ_LOG_LEVEL=error shows the server's log of a masked error.
import fc from 'fast-check';
import {
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { startTestApp, type TenantKeys, type TestApp } from '../support/app.ts';
import { binaryString } from '../support/code-points.ts';
import { type HttpAnswer, operationsOf, post, postRaw, printedSchema, Snapshotter, type TenantSnapshot } from './support.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const REACH_ROUNDS = 3;
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const SHRINK = process.env.FUZZ_SHRINK === '1';
const schema = printedSchema();

/** Codes a refused request may carry: the client's mistake, said clearly. INTERNAL_SERVER_ERROR is never acceptable. */
const KNOWN_CODES = new Set(['BAD_USER_INPUT', 'GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED', 'BAD_REQUEST']);

/** Every mutation, in the order they are fuzzed: starts first, so later ones find episodes to act on. */
const ORDER = [
  'startEpisode',
  'importRun',
  'createWorkItem',
  'issueLease',
  'resumeWorkItem',
  'logSteps',
  'logStep',
  'saveCheckpoint',
  'recordPackMiss',
  'recordCritique',
  'blockEpisode',
  'resumeEpisode',
  'createApiKey',
  'revokeApiKey',
  'revokeLease',
  'forgetSteps',
  'forgetEpisode',
  'setRetention',
  'completeEpisode',
  'extractEpisodePatterns',
  'failEpisode',
  'cancelEpisode',
  'escalateEpisode',
  'startExperiment',
  'pauseExperiment',
  'resumeExperiment',
];

// ---- ids: references resolved against the database at call time ----

type Pool = 'episode' | 'workItem' | 'lease' | 'apiKey' | 'retrieval' | 'experiment';

/** Which rows an ID argument names, by its path (mutation.arg[.field]). A new ID argument must be added here. */
const ID_POOLS: Record<string, Pool> = {
  'blockEpisode.episodeId': 'episode',
  'cancelEpisode.episodeId': 'episode',
  'completeEpisode.episodeId': 'episode',
  'completeEpisode.usedRetrievals': 'retrieval',
  'escalateEpisode.episodeId': 'episode',
  'extractEpisodePatterns.episodeId': 'episode',
  'importRun.input.parentEpisodeId': 'episode',
  'importRun.input.workItemId': 'workItem',
  'importRun.input.leaseId': 'lease',
  'failEpisode.episodeId': 'episode',
  'forgetSteps.episodeId': 'episode',
  'forgetEpisode.episodeId': 'episode',
  'issueLease.workItemId': 'workItem',
  'issueLease.parentLeaseId': 'lease',
  'logStep.episodeId': 'episode',
  'logSteps.episodeId': 'episode',
  'recordCritique.episodeId': 'episode',
  'recordPackMiss.episodeId': 'episode',
  'resumeEpisode.episodeId': 'episode',
  'resumeWorkItem.id': 'workItem',
  'revokeApiKey.id': 'apiKey',
  'revokeLease.id': 'lease',
  'saveCheckpoint.episodeId': 'episode',
  'startEpisode.input.parentEpisodeId': 'episode',
  'startEpisode.input.workItemId': 'workItem',
  'startEpisode.input.leaseId': 'lease',
  'startExperiment.input.scope.workItemId': 'workItem',
  'pauseExperiment.id': 'experiment',
  'resumeExperiment.id': 'experiment',
};

class IdRef {
  constructor(
    readonly pool: Pool,
    readonly n: number,
    readonly foreign: boolean,
    readonly upper: boolean,
  ) {}
}

type Pools = Record<Pool, string[]> & { liveEpisodes: string[] };

function pick(list: string[], n: number): string {
  return list.length ? must(list[n % list.length]) : '00000000-0000-4000-8000-000000000000';
}

function resolveRef(ref: IdRef, own: Pools, foreign: Pools): string {
  const pools = ref.foreign ? foreign : own;
  // Mostly live episodes: an episode that ended refuses almost everything.
  const list = ref.pool === 'episode' && ref.n % 5 !== 0 && pools.liveEpisodes.length ? pools.liveEpisodes : pools[ref.pool];
  const id = pick(list, ref.n);
  return ref.upper ? id.toUpperCase() : id;
}

function resolveIds(value: unknown, own: Pools, foreign: Pools): unknown {
  if (value instanceof IdRef) return resolveRef(value, own, foreign);
  if (Array.isArray(value)) return value.map((v) => resolveIds(v, own, foreign));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveIds(v, own, foreign)]));
  return value;
}

// ---- value arbitraries ----
// Three kinds of call: plausible (so writes happen and budgets are crossed), nasty (every value of
// the right GraphQL type, but at and past the limits), and chaos (wrong types, nulls, bad enums).

type Mode = 'plausible' | 'nasty' | 'chaos';

const LONE_SURROGATES = ['\ud800', 'x\udfffy', 'end\udbff'];
const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\t\n',
    '\u0000',
    'nul\u0000inside',
    ...LONE_SURROGATES,
    '\u202e\u200b',
    "'; DROP TABLE episodes; --",
    '\\',
    '%_',
    'null',
    '🙂'.repeat(50),
  ),
  binaryString({ maxLength: 30 }),
  fc.integer({ min: 1, max: 40 }).map((k) => 'é'.repeat(k * 1_000)),
  fc.constantFrom(100, 200, 201, 256, 257, 1024, 10 * 1024, 10 * 1024 + 1, 64 * 1024 + 1, 1024 * 1024 + 1).map((n) => 'a'.repeat(n)),
);
const plausibleString = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/);

const INT32 = { min: -2147483648, max: 2147483647 };
const intBoundaries = fc.constantFrom(0, -1, 1, 2, 100, 1000, 1001, INT32.max, INT32.min);

/** Nested arrays built as text: V8's JSON.stringify would overflow its stack on the client first. */
class RawJson {
  constructor(readonly text: string) {}
}

const nastyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: 60, max: 70 }).map((d) => JSON.parse('['.repeat(d) + ']'.repeat(d))),
  fc.integer({ min: 3_000, max: 20_000 }).map((d) => new RawJson('['.repeat(d) + ']'.repeat(d))),
  fc.constantFrom<unknown>({ 'k\u0000': 1 }, { k: 'v\u0000' }, ['\ud800'], { '\udfff': 'x' }, 'a\u0000', '\udc00', 1e308, -1e308, [], {}, 'text'),
  fc.integer({ min: 1, max: 20 }).map((k) => ({ blob: 'x'.repeat(k * 60_000) })),
  fc.jsonValue({ maxDepth: 4 }),
);

const ARBS: Record<Mode, Record<'String' | 'Int' | 'Float' | 'Boolean' | 'DateTime' | 'JSON' | 'BigInt', fc.Arbitrary<unknown>>> = {
  plausible: {
    String: fc.oneof({ weight: 9, arbitrary: plausibleString }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }),
    Int: fc.oneof({ weight: 9, arbitrary: fc.nat({ max: 120 }) }, { weight: 1, arbitrary: intBoundaries }),
    Float: fc.double({ min: 0, max: 1, noNaN: true }),
    Boolean: fc.boolean(),
    DateTime: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
    JSON: fc.jsonValue({ maxDepth: 2 }),
    BigInt: fc.bigInt({ min: 0n, max: 100n }).map(String),
  },
  nasty: {
    String: fc.oneof({ weight: 1, arbitrary: plausibleString }, { weight: 2, arbitrary: nastyString }),
    Int: fc.oneof(intBoundaries, fc.integer(INT32)),
    Float: fc.oneof(fc.constantFrom(0, -0, -1, 1.0000001, 1e308, -1e308, 5e-324, Number.MAX_VALUE), fc.double({ noNaN: true, noDefaultInfinity: true })),
    Boolean: fc.boolean(),
    DateTime: fc.oneof(
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.constantFrom('0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '1970-01-01T00:00:00Z', '2026-02-29T00:00:00Z'),
    ),
    JSON: nastyJson,
    BigInt: fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String), fc.constantFrom('1e3', '99999999999999999999', 'x')),
  },
  chaos: {
    String: fc.oneof(fc.integer(), fc.boolean(), fc.object({ maxDepth: 1 }), nastyString),
    Int: fc.constantFrom(INT32.max + 1, INT32.min - 1, 1e20, 1.5, '7', true, [1]),
    Float: fc.constantFrom('0.5', false, {}, 'NaN'),
    Boolean: fc.constantFrom('true', 0, 1, 'yes'),
    DateTime: fc.constantFrom(
      '',
      'yesterday',
      '2026-13-45T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '+275760-09-13T00:00:00.000Z',
      '-271821-04-20T00:00:00.000Z',
      '+010000-01-01T00:00:00.000Z',
      17,
    ),
    JSON: nastyJson,
    BigInt: fc.constantFrom(1.5, true, '', '0x10'),
  },
};

/** Wall-time budgets stay at an hour or more (or invalid): a deadline firing mid-run would be a write no call made. */
const wallMsArb: fc.Arbitrary<unknown> = fc.oneof(fc.integer({ min: 3_600_000, max: INT32.max }), fc.constantFrom(0, -1, INT32.min));

/** Values for particular paths; everything else is generated from its type. */
const OVERRIDES: Record<string, (mode: Mode) => fc.Arbitrary<unknown>> = {
  'startEpisode.input.budget.maxWallMs': () => wallMsArb,
  'issueLease.budget.wallMs': () => wallMsArb,
  // Mostly real scopes, so keys get made (and revoked).
  'createApiKey.scopes': (mode) =>
    mode === 'plausible'
      ? fc.subarray(['read', 'write', 'admin'], { minLength: 1 })
      : fc.array(fc.oneof(fc.constantFrom('read', 'write', 'admin'), ARBS[mode].String), { maxLength: 4 }),
  'startEpisode.input.contextPack.packHash': (mode) =>
    mode === 'plausible' ? fc.stringMatching(/^[0-9a-f]{64}$/) : fc.oneof(fc.stringMatching(/^[0-9A-F]{64}$/), ARBS[mode].String),
  'startEpisode.input.contextPack.manifestHash': (mode) => (mode === 'plausible' ? fc.stringMatching(/^[0-9a-f]{64}$/) : ARBS[mode].String),
  // Optional kind defaults to tool_call; an explicit one is mostly a real kind.
  'logSteps.steps.kind': (mode) => (mode === 'plausible' ? fc.constantFrom('tool_call', 'llm_call', 'observation') : ARBS[mode].String),
  'logStep.step.kind': (mode) => (mode === 'plausible' ? fc.constantFrom('tool_call', 'llm_call', 'observation') : ARBS[mode].String),
};

function idArb(pool: Pool, mode: Mode): fc.Arbitrary<unknown> {
  const own = fc.nat().map((n) => new IdRef(pool, n, false, false));
  if (mode === 'plausible') return own;
  return fc.oneof(
    { weight: 4, arbitrary: own },
    { weight: 2, arbitrary: fc.nat().map((n) => new IdRef(pool, n, true, false)) },
    { weight: 1, arbitrary: fc.nat().map((n) => new IdRef(pool, n, false, true)) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: mode === 'chaos' ? ARBS.chaos.String : nastyString },
  );
}

function scalarArb(name: string, path: string, mode: Mode): fc.Arbitrary<unknown> {
  if (name === 'ID') {
    const pool = ID_POOLS[path];
    if (!pool) throw new Error(`no id pool for ${path}: add it to ID_POOLS`);
    return idArb(pool, mode);
  }
  const arb = ARBS[mode][name as keyof (typeof ARBS)['plausible']];
  if (!arb) throw new Error(`no arbitrary for scalar ${name}`);
  return arb;
}

/** Repeats one generated item, keeping the request under a few MB. */
function longList(item: fc.Arbitrary<unknown>): fc.Arbitrary<unknown[]> {
  return fc.tuple(item, fc.integer({ min: 33, max: 1_001 })).map(([x, n]) => {
    const size = x instanceof RawJson ? x.text.length : (JSON.stringify(x) ?? 'null').length;
    return Array.from({ length: Math.max(1, Math.min(n, Math.floor(4_000_000 / Math.max(size, 1)))) }, () => x);
  });
}

/** A value for an argument or input field: NonNull ones are always given (but in chaos mode), nullable ones may be omitted or null. */
function inputArb(type: GraphQLInputType, path: string, mode: Mode): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) {
    const inner = valueArb(type.ofType, path, mode);
    return mode === 'chaos' ? fc.oneof({ weight: 4, arbitrary: inner }, { weight: 1, arbitrary: fc.constantFrom(null, undefined) }) : inner;
  }
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 5, arbitrary: valueArb(type, path, mode) },
  );
}

function valueArb(type: GraphQLInputType, path: string, mode: Mode): fc.Arbitrary<unknown> {
  const override = OVERRIDES[path]?.(mode);
  if (override) return override;
  if (isListType(type)) {
    const item = inputArb(type.ofType, path, mode);
    if (mode === 'plausible') return fc.array(item, { minLength: 1, maxLength: 4 });
    return fc.oneof(
      { weight: 4, arbitrary: fc.array(item, { maxLength: 4 }) },
      { weight: 1, arbitrary: longList(item) },
      ...(mode === 'chaos' ? [{ weight: 1, arbitrary: item }] : []),
    );
  }
  if (isEnumType(type)) {
    const valid = fc.constantFrom(...type.getValues().map((v) => v.name));
    return mode === 'chaos' ? fc.oneof(valid, fc.constantFrom('NOPE', 'live', '', 1)) : valid;
  }
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    for (const f of fields) record[f.name] = inputArb(f.type, `${path}.${f.name}`, mode);
    const object = fc.record(record);
    return mode === 'chaos' ? fc.oneof({ weight: 4, arbitrary: object }, { weight: 1, arbitrary: fc.constantFrom('not an object', 3, []) }) : object;
  }
  return scalarArb(getNamedType(type).name, path, mode);
}

function argsArb(field: GraphQLField<unknown, unknown>): fc.Arbitrary<Record<string, unknown>> {
  const record = (mode: Mode) => fc.record(Object.fromEntries(field.args.map((a) => [a.name, inputArb(a.type, `${field.name}.${a.name}`, mode)])));
  return fc.oneof({ weight: 4, arbitrary: record('plausible') }, { weight: 3, arbitrary: record('nasty') }, { weight: 1, arbitrary: record('chaos') });
}

// ---- documents ----

function leafOrObjectSelection(type: GraphQLOutputType, depth: number): string | null {
  const named = getNamedType(type);
  if (isLeafType(named)) return '';
  if (depth >= 2) return null;
  if (isObjectType(named)) return `{ __typename ${objectFields(named, depth + 1)} }`;
  if (isUnionType(named)) return unionSelection(named.getTypes(), depth + 1);
  return null;
}

function objectFields(type: GraphQLObjectType, depth: number, alias = (f: GraphQLField<unknown, unknown>) => f.name): string {
  return Object.values(type.getFields())
    .filter((f) => !f.args.some((a) => isNonNullType(a.type)))
    .flatMap((f) => {
      const sel = leafOrObjectSelection(f.type, depth);
      if (sel === null) return [];
      const name = alias(f);
      return [`${name === f.name ? '' : `${name}: `}${f.name} ${sel}`];
    })
    .join(' ');
}

/** Members of a union may share a field name with different types: such fields get an alias per member. */
function unionSelection(members: readonly GraphQLObjectType[], depth: number): string {
  const seen = new Map<string, string>();
  const conflicting = new Set<string>();
  for (const m of members) {
    for (const f of Object.values(m.getFields())) {
      const type = String(f.type);
      if (seen.has(f.name) && seen.get(f.name) !== type) conflicting.add(f.name);
      seen.set(f.name, type);
    }
  }
  const parts = members.map((m) => `... on ${m.name} { ${objectFields(m, depth, (f) => (conflicting.has(f.name) ? `${m.name}_${f.name}` : f.name))} }`);
  return `{ __typename ${parts.join(' ')} }`;
}

function mutationDocument(field: GraphQLField<unknown, unknown>): string {
  const vars = field.args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const args = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  return `mutation Fuzz${vars ? `(${vars})` : ''} { ${field.name}${args ? `(${args})` : ''} ${leafOrObjectSelection(field.type, 0)} }`;
}

/** Names of the typed error members of a mutation's result union. */
function errorTypes(field: GraphQLField<unknown, unknown>): Set<string> {
  const named = getNamedType(field.type);
  if (!isUnionType(named)) return new Set();
  return new Set(
    named
      .getTypes()
      .filter((m) => m.getInterfaces().some((i) => i.name === 'Error'))
      .map((m) => m.name),
  );
}

/** The request body; RawJson values are spliced in as text. */
function body(document: string, variables: Record<string, unknown>): string {
  const raws: string[] = [];
  const json = JSON.stringify({ query: document, variables }, (_k, v) => {
    if (v instanceof RawJson) {
      raws.push(v.text);
      return `\u0001RAW${raws.length - 1}\u0001`;
    }
    return v;
  });
  return json.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_m, i) => must(raws[Number(i)]));
}

// ---- the server and the tenants ----

let t: TestApp;
let foreignTenant: TenantKeys;
let snapshots: Snapshotter;
let foreignPools: Pools;
let adminKeyId: string;
const stats: Record<string, Record<string, number>> = {};

async function pools(tenantId: string, exceptKey = ''): Promise<Pools> {
  const { rows } = await t.services.db.pool.query<{ pool: Pool | 'live'; id: string }>(
    `SELECT 'episode' AS pool, id::text FROM episodes WHERE tenant_id = $1
     UNION ALL SELECT 'live', id::text FROM episodes WHERE tenant_id = $1 AND status IN ('running', 'blocked')
     UNION ALL SELECT 'workItem', id::text FROM work_items WHERE tenant_id = $1
     UNION ALL SELECT 'lease', id::text FROM leases WHERE tenant_id = $1
     UNION ALL SELECT 'apiKey', id::text FROM api_keys WHERE tenant_id = $1 AND id::text <> $2
     UNION ALL SELECT 'retrieval', id::text FROM retrievals WHERE tenant_id = $1
     UNION ALL SELECT 'experiment', id::text FROM experiments WHERE tenant_id = $1
     ORDER BY 1, 2`,
    [tenantId, exceptKey],
  );
  const p: Pools = { episode: [], workItem: [], lease: [], apiKey: [], retrieval: [], experiment: [], liveEpisodes: [] };
  for (const r of rows) (r.pool === 'live' ? p.liveEpisodes : p[r.pool]).push(r.id);
  return p;
}

async function seed(token: string, tag: string) {
  const gql = (q: string, v: Record<string, unknown> = {}) => post(t, q, v, token).then((r) => r.body);
  const wi = await gql('mutation { createWorkItem(title: "fuzz work") { ... on WorkItemPayload { workItem { id } } } }');
  const workItemId = wi.data.createWorkItem.workItem.id;
  await gql(
    'mutation($w: ID!, $e: DateTime!) { issueLease(workItemId: $w, issuer: "ops", holder: "agent", expiresAt: $e, budget: { episodes: 50, tokens: 100000 }) { __typename } }',
    {
      w: workItemId,
      e: new Date(Date.now() + 86_400_000).toISOString(),
    },
  );
  const budgets = [{ maxSteps: 3 }, { maxTokens: 100 }, { maxSteps: 5, maxTokens: 50 }, {}, { maxSteps: 2 }, { maxTokens: 10 }];
  for (const [i, budget] of budgets.entries()) {
    await gql('mutation($input: StartEpisodeInput!) { startEpisode(input: $input) { __typename } }', {
      input: {
        taskDescription: `${tag} seeded task ${i}`,
        taskType: 'fuzz',
        budget,
        onBudgetExhausted: i % 2 ? 'CONVERGE' : 'FAIL',
        context: { domain: 'fuzz', tags: ['seed'] },
      },
    });
  }
  await gql('query { relevantEpisodes(task: { description: "seeded task" }) { __typename } }');
}

beforeAll(async () => {
  t = await startTestApp({ LEARNING_WORKERS: '0', CHECKPOINT_INTERVAL_MS: '600000', LOG_LEVEL: process.env.FUZZ_LOG_LEVEL ?? 'silent' });
  foreignTenant = await t.addTenant('fuzz-foreign');
  await seed(t.keys.admin, 'own');
  await seed(foreignTenant.admin, 'foreign');
  const { rows } = await t.services.db.pool.query(`SELECT id FROM api_keys WHERE tenant_id = $1 AND name = 'admin'`, [t.keys.tenantId]);
  adminKeyId = rows[0].id;
  foreignPools = await pools(foreignTenant.tenantId);
  snapshots = await Snapshotter.create(t.services.db.pool, {
    // Published in the background; api_keys.last_used_at moves when the fuzzing key authenticates.
    skipTables: ['ledger_checkpoints'],
    skipColumns: { api_keys: ['last_used_at'] },
    countOnly: ['steps', 'checkpoints', 'ledger_events', 'pattern_episodes', 'pack_misses'],
  });
});

afterAll(async () => {
  if (process.env.FUZZ_STATS) console.log(JSON.stringify(stats, null, 1));
  await t?.stop();
});

function describeAnswer(field: string, res: HttpAnswer, variables: unknown): string {
  const shown = JSON.stringify(variables, (_k, v) =>
    typeof v === 'string' && v.length > 200 ? `${v.slice(0, 60)}…(${v.length} chars)` : v instanceof RawJson ? `<${v.text.length} chars of nesting>` : v,
  );
  return `${field}: HTTP ${res.status}, request id ${res.body?.errors?.[0]?.extensions?.requestId ?? res.requestId}\nanswer: ${JSON.stringify(res.body)?.slice(0, 1_000)}\nvariables: ${shown?.slice(0, 2_000)}`;
}

/** The tables whose rows differ between two snapshots, with their row counts. */
function changed(before: TenantSnapshot, after: TenantSnapshot): string[] {
  return Object.keys({ ...before, ...after })
    .filter((table) => JSON.stringify(before[table]) !== JSON.stringify(after[table]))
    .map((table) => `${table}: ${before[table]?.rows} -> ${after[table]?.rows} rows`);
}

/** The answer's verdict: ok, a typed error member, or GraphQL errors (each with a known code). */
function classify(field: string, res: HttpAnswer, errors: Set<string>, variables: unknown): 'ok' | 'typed-error' | 'refused' {
  const detail = () => describeAnswer(field, res, variables);
  if (res.status === 413) return 'refused';
  if (!res.body || typeof res.body !== 'object') throw new Error(`not a GraphQL answer\n${detail()}`);
  if (res.status >= 500) throw new Error(`server error\n${detail()}`);
  const gqlErrors: Array<{ extensions?: { code?: string } }> = res.body.errors ?? [];
  for (const e of gqlErrors) {
    const code = e.extensions?.code;
    if (code === 'INTERNAL_SERVER_ERROR') throw new Error(`unmasked internal error (find the request id in the server log)\n${detail()}`);
    if (!code || !KNOWN_CODES.has(code)) throw new Error(`error without a known code (${code})\n${detail()}`);
  }
  if (gqlErrors.length) return 'refused';
  const typename = res.body.data?.[field]?.__typename;
  if (!typename) throw new Error(`no answer\n${detail()}`);
  return errors.has(typename) ? 'typed-error' : 'ok';
}

/**
 * Each property's runs stop at this budget on a busy machine (the slowest property took 2-13 s
 * idle and 22 s at load 25-30); the runs made are checked as usual. Its tests' timeout (FUZZ_TEST_MS)
 * leaves room for the run in progress and the snapshots around it.
 */
const FUZZ_BUDGET_MS = 40_000;
const FUZZ_TEST_MS = 120_000;

/** fc.assert, reporting the failure's own message (it names the request id) and how to replay it, not the whole input. */
async function check<T>(property: fc.IAsyncProperty<T>, numRuns: number): Promise<void> {
  const details = await fc.check(property, {
    numRuns,
    seed: SEED,
    endOnFailure: !SHRINK,
    interruptAfterTimeLimit: FUZZ_BUDGET_MS,
    markInterruptAsFailure: false,
  });
  if (!details.failed) return;
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`${cause}\n(after ${details.numRuns} runs; replay with FUZZ_SEED=${details.seed}${SHRINK ? '' : ', FUZZ_SHRINK=1 to shrink'})`);
}

describe('fuzzing every mutation', { timeout: FUZZ_TEST_MS }, () => {
  it('covers every mutation of the schema, and every ID argument has a pool', () => {
    expect([...ORDER].sort()).toEqual(operationsOf('Mutation', schema));
    const idPaths: string[] = [];
    const walk = (type: GraphQLInputType, path: string) => {
      const named = getNamedType(type);
      if (isInputObjectType(named)) for (const f of Object.values(named.getFields())) walk(f.type, `${path}.${f.name}`);
      else if (named.name === 'ID') idPaths.push(path);
    };
    for (const f of Object.values(must(schema.getMutationType()).getFields())) for (const a of f.args) walk(a.type, `${f.name}.${a.name}`);
    expect(idPaths.sort()).toEqual(Object.keys(ID_POOLS).sort());
  });

  for (const name of ORDER) {
    it(`Mutation.${name}: typed errors or known codes, and an error writes nothing`, async () => {
      const field = must(must(schema.getMutationType()).getFields()[name]);
      const document = mutationDocument(field);
      const errors = errorTypes(field);
      const counts: Record<string, number> = (stats[name] = { ok: 0, 'typed-error': 0, refused: 0 });
      const property = fc.asyncProperty(argsArb(field), async (generated) => {
        // Work a previous call's commit started in the background (queueing pattern extraction) ends first.
        await t.services.learning.drain();
        const own = await pools(t.keys.tenantId, adminKeyId);
        const variables = resolveIds(generated, own, foreignPools) as Record<string, unknown>;
        const before = await snapshots.take(t.keys.tenantId);
        const foreignBefore = await snapshots.take(foreignTenant.tenantId);
        const res = await postRaw(t, body(document, variables), t.keys.admin);
        const verdict = classify(name, res, errors, variables);
        counts[verdict] = must(counts[verdict]) + 1;
        if (process.env.FUZZ_STATS && verdict === 'refused') {
          const key = `refused: ${String(res.body?.errors?.[0]?.message ?? res.status)
            .replace(/"[^"]*"/g, '"…"')
            .slice(0, 70)}`;
          counts[key] = (counts[key] ?? 0) + 1;
        }
        if (verdict !== 'ok') {
          const after = await snapshots.take(t.keys.tenantId);
          expect(changed(before, after), `an error changed something\n${describeAnswer(name, res, variables)}`).toEqual([]);
        }
        expect(changed(foreignBefore, await snapshots.take(foreignTenant.tenantId)), `another tenant changed\n${describeAnswer(name, res, variables)}`).toEqual(
          [],
        );
      });
      // Most generated inputs of a large input type (importRun's runs of steps) are refused by
      // GraphQL's own checks: a round in which none reached the resolver is run again, at most twice.
      for (let round = 0; round < REACH_ROUNDS && must(counts.ok) + must(counts['typed-error']) === 0; round++) await check(property, RUNS);
      // The generator must reach the resolver, not only GraphQL's own input checks.
      expect(must(counts.ok) + must(counts['typed-error']), JSON.stringify(counts)).toBeGreaterThan(0);
    });
  }

  // Random calls rarely land enough steps on one budgeted episode to cross its budget; this makes
  // sure budgets are crossed, by concurrent batches racing for the last step or token.
  it('crosses random budgets with concurrent step batches', async () => {
    const field = must(must(schema.getMutationType()).getFields().logSteps);
    const errors = errorTypes(field);
    const budgetArb = fc.record({
      maxSteps: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
      maxTokens: fc.option(fc.integer({ min: 1, max: 120 }), { nil: undefined }),
    });
    const batchArb = fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 4 });
    await check(
      fc.asyncProperty(budgetArb, fc.array(batchArb, { minLength: 2, maxLength: 6 }), fc.boolean(), async (budget, batches, converge) => {
        const started = await post(
          t,
          'mutation($input: StartEpisodeInput!) { startEpisode(input: $input) { ... on StartEpisodePayload { episode { id } } } }',
          {
            input: { taskDescription: 'fuzz budget race', taskType: 'fuzz', budget, onBudgetExhausted: converge ? 'CONVERGE' : 'FAIL' },
          },
          t.keys.admin,
        );
        const episodeId = started.body.data.startEpisode.episode.id;
        const answers = await Promise.all(
          batches.map((tokens) =>
            postRaw(
              t,
              body('mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { __typename } }', {
                e: episodeId,
                s: tokens.map((n, i) => ({ kind: 'tool_call', action: `step ${i}`, tokens: n })),
              }),
              t.keys.admin,
            ),
          ),
        );
        for (const res of answers) expect(classify('logSteps', res, errors, { episodeId }), describeAnswer('logSteps', res, { episodeId })).not.toBe('refused');
      }),
      RUNS,
    );
  });

  it('answers random bodies without a server error', async () => {
    const bodyArb = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc.record({ query: fc.string({ maxLength: 100 }), variables: fc.jsonValue({ maxDepth: 2 }) }).map((v) => JSON.stringify(v)),
      fc.constantFrom(
        '{"query": "mutation { startEpisode }"}',
        '{"query": 1}',
        '{"query": "{ viewer { id } }", "variables": "x"}',
        '{"query": "{ viewer { id } }", "operationName": {}}',
      ),
    );
    await check(
      fc.asyncProperty(bodyArb, async (raw) => {
        const res = await postRaw(t, raw, t.keys.admin);
        expect(res.status, describeAnswer('(raw body)', res, raw)).toBeLessThan(500);
        expect(JSON.stringify(res.body ?? null)).not.toContain('INTERNAL_SERVER_ERROR');
      }),
      RUNS * 4,
    );
  });
});

describe('after the run', () => {
  it("numbers every episode's steps 1..N, and the counters match the steps", async () => {
    const { rows } = await t.services.db.pool.query(
      `SELECT e.id, e.step_count, e.used_tokens::float8 AS used_tokens, count(s.id)::int AS steps, coalesce(min(s.step_number), 0) AS first,
              coalesce(max(s.step_number), 0) AS last, coalesce(sum(s.tokens), 0)::float8 AS tokens
         FROM episodes e LEFT JOIN steps s ON s.episode_id = e.id GROUP BY e.id`,
    );
    expect(rows.length).toBeGreaterThan(10);
    const steps = rows.reduce((n, r) => n + r.steps, 0);
    expect(steps, 'the run journaled steps').toBeGreaterThan(0);
    for (const r of rows) {
      expect({ id: r.id, first: r.first, last: r.last, steps: r.steps }).toEqual({ id: r.id, first: r.steps ? 1 : 0, last: r.steps, steps: r.steps });
      expect(r.step_count, r.id).toBe(r.steps);
      expect(r.used_tokens, r.id).toBe(r.tokens);
    }
  });

  it('verifies the ledger of both tenants, gapless', async () => {
    for (const keys of [t.keys, foreignTenant]) {
      const res = await post(
        t,
        '{ verifyLedger { __typename ... on LedgerVerification { ok checked stepsChecked problem reason firstBadSeq } } ledgerHead { seq } }',
        {},
        keys.admin,
      );
      const bad = res.body.data.verifyLedger.firstBadSeq;
      const event = bad
        ? (await t.services.db.pool.query('SELECT type, payload::text FROM ledger_events WHERE tenant_id = $1 AND seq = $2', [keys.tenantId, bad])).rows[0]
        : null;
      expect(res.body.data.verifyLedger, `${JSON.stringify(res.body)}\n${JSON.stringify(event)?.slice(0, 3_000)}`).toMatchObject({ ok: true });
      expect(res.body.data.verifyLedger.checked).toBe(Number(res.body.data.ledgerHead.seq));
      const { rows } = await t.services.db.pool.query('SELECT count(*)::int AS n, max(seq)::int AS max FROM ledger_events WHERE tenant_id = $1', [
        keys.tenantId,
      ]);
      expect(rows[0].n).toBe(rows[0].max);
    }
  });

  it('exceeds no budget beyond the one step that crossed it', async () => {
    const { rows } = await t.services.db.pool.query(
      `SELECT e.id, e.max_steps, e.max_tokens::float8 AS max_tokens, e.step_count, e.used_tokens::float8 AS used_tokens, e.status,
              (SELECT count(*)::int FROM steps s WHERE s.episode_id = e.id AND s.kind IN ('approval_requested', 'approval_resolved')) AS approvals,
              (SELECT s.tokens FROM steps s WHERE s.episode_id = e.id ORDER BY s.step_number DESC LIMIT 1) AS last_tokens
         FROM episodes e WHERE e.max_steps IS NOT NULL OR e.max_tokens IS NOT NULL`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      if (r.max_steps !== null) expect(r.step_count, JSON.stringify(r)).toBeLessThanOrEqual(r.max_steps + r.approvals);
      if (r.max_tokens !== null && r.step_count > 0) expect(r.used_tokens - r.last_tokens, JSON.stringify(r)).toBeLessThan(r.max_tokens);
    }
    // The budgets were reached, not only respected from afar.
    expect(
      rows.some((r) => r.max_steps !== null && r.step_count >= r.max_steps) || rows.some((r) => r.max_tokens !== null && r.used_tokens >= r.max_tokens),
    ).toBe(true);
  });
});
