// Tenant isolation, operation by operation: for every query, mutation and subscription of
// schema.graphql, a key of tenant B, handed tenant A's ids (episodes, steps' side-effect keys, work
// items, leases, API keys, patterns, retrievals, ledger seqs), sees nothing of A and changes nothing
// of A: each answer is NotFound or empty (or B's own), and a snapshot of every row A owns (every
// table with a tenant_id, the ledger and its head included) is the same before and after.
// The case table is keyed by field name and must cover the printed schema exactly, so a new
// operation without a case fails here. (test/ledger-live/auth.test.ts covers live streams while A
// keeps writing; test/security/tenant-scope.test.ts the data-layer guard itself.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { type Watch, waitUntil, watch } from '../ledger-live/support.ts';
import { type GraphQLResponse, startTestApp, type TenantKeys, type TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { operationsOf, type Root, Snapshotter } from './support.ts';

let t: TestApp;
let A: TenantKeys;
let B: TenantKeys;
let snapshots: Snapshotter;

/** Tenant A's rows, by kind: the ids B will try. */
const a = {
  workItem: '',
  lease: '',
  childLease: '',
  running: '',
  blocked: '',
  completed: [] as string[],
  episodes: [] as string[],
  sideEffectKey: 'a-side-effect-1',
  dedupeKey: 'a-dedupe',
  task: 'Migrate the billing database of tenant A to the new schema',
  patterns: [] as string[],
  retrieval: '',
  apiKeys: [] as string[],
  headSeq: 0,
  headHash: '',
  hashes: new Set<string>(),
  rootOfOne: '',
  blobHash: '',
  experiment: '',
};
/** Tenant B's own rows, for calls that need something of B's to point at A's. */
const b = { workItem: '', running: '' };

async function as(token: string, query: string, variables: Record<string, unknown> = {}): Promise<GraphQLResponse> {
  return t.gql(query, variables, token);
}

/** The data of an answer that must have no errors. */
async function ok(token: string, query: string, variables: Record<string, unknown> = {}): Promise<Json> {
  const res = await as(token, query, variables);
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  return res.data;
}

const START =
  'mutation($input: StartEpisodeInput!) { startEpisode(input: $input) { __typename ... on Error { message } ... on StartEpisodePayload { deduplicated episode { id } } } }';
const LOG =
  'mutation($id: ID!, $steps: [StepInput!]!) { logSteps(episodeId: $id, steps: $steps) { __typename ... on LogStepsPayload { accepted duplicates } } }';
const COMPLETE =
  'mutation($id: ID!, $outcome: OutcomeInput!, $used: [ID!], $mode: ExtractPatternsMode) { completeEpisode(episodeId: $id, outcome: $outcome, usedRetrievals: $used, extractPatterns: $mode) { __typename ... on NotFoundError { entity id } } }';

async function startA(input: Record<string, unknown>): Promise<string> {
  const data = await ok(A.write, START, {
    input: { taskDescription: a.task, taskType: 'migration', context: { language: 'sql', domain: 'billing', tags: ['tenant-a'] }, ...input },
  });
  expect(data.startEpisode.__typename).toBe('StartEpisodePayload');
  return data.startEpisode.episode.id;
}

const STEPS = [
  { tool: 'psql', action: 'dump', sideEffectKey: 'a-side-effect-1', tokens: 10, parameters: { table: 'invoices' } },
  { tool: 'psql', action: 'migrate', tokens: 20 },
  { tool: 'pytest', action: 'run', tokens: 5, result: { kind: 'SUCCESS', output: 'ok' } },
];

beforeAll(async () => {
  // No timed checkpoint: a background publication for A would be a change B did not cause.
  t = await startTestApp({ CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' });
  A = t.keys;
  B = await t.addTenant('tenant-b');

  // Tenant A: a work item with a lease and a child lease, running, blocked and completed episodes
  // with steps, a checkpoint, a pack miss, patterns, a retrieval receipt.
  a.workItem = (
    await ok(A.write, 'mutation { createWorkItem(title: "A billing migration") { ... on WorkItemPayload { workItem { id } } } }')
  ).createWorkItem.workItem.id;
  const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
  const issue =
    'mutation($w: ID!, $p: ID, $e: DateTime!, $n: Int!) { issueLease(workItemId: $w, parentLeaseId: $p, issuer: "ops", holder: "agent-a", expiresAt: $e, budget: { episodes: $n }) { ... on LeasePayload { lease { id } } } }';
  a.lease = (await ok(A.write, issue, { w: a.workItem, e: expiresAt, n: 20 })).issueLease.lease.id;
  // The child reserves its episodes on the parent: it leaves the parent some to start with.
  a.childLease = (await ok(A.write, issue, { w: a.workItem, p: a.lease, e: expiresAt, n: 5 })).issueLease.lease.id;
  a.running = await startA({ leaseId: a.lease, dedupeKey: a.dedupeKey });
  expect((await ok(A.write, LOG, { id: a.running, steps: STEPS })).logSteps.accepted).toBe(3);
  await ok(A.write, 'mutation($id: ID!) { saveCheckpoint(episodeId: $id, label: "a", state: { at: 3 }) { __typename } }', { id: a.running });
  await ok(A.write, 'mutation($id: ID!) { recordPackMiss(episodeId: $id, stableId: "a-doc", reason: "missing") { __typename } }', { id: a.running });
  // A blob of A's: an observation over the inline limit kept whole (content-addressed).
  const big = 'A billing log line\n'.repeat(1_000);
  const blobbed = await ok(
    A.write,
    'mutation($id: ID!, $steps: [StepInput!]!) { logSteps(episodeId: $id, steps: $steps, options: { largeContent: BLOB }) { ... on LogStepsPayload { accepted } } }',
    { id: a.running, steps: [{ tool: 'cat', observation: big }] },
  );
  expect(blobbed.logSteps.accepted).toBe(1);
  a.blobHash = (await t.services.db.pool.query('SELECT hash FROM blobs WHERE tenant_id = $1', [A.tenantId])).rows[0].hash;
  a.blocked = await startA({});
  await ok(A.write, 'mutation($id: ID!) { blockEpisode(episodeId: $id, reason: "needs approval", approvalRequest: { what: "drop table" }) { __typename } }', {
    id: a.blocked,
  });
  for (let i = 0; i < 2; i++) {
    const id = await startA({});
    await ok(A.write, LOG, { id, steps: STEPS.map((s) => ({ ...s, sideEffectKey: undefined })) });
    const outcome = { kind: 'SUCCESS', verdict: 'migrated', artifacts: ['billing/migrate.sql'] };
    expect((await ok(A.write, COMPLETE, { id, outcome, mode: 'SYNC' })).completeEpisode.__typename).toBe('FinishEpisodePayload');
    a.completed.push(id);
  }
  a.episodes = [a.running, a.blocked, ...a.completed];
  const patterns = await ok(A.read, '{ patterns(first: 100, filter: { status: [CANDIDATE, ACTIVE, SUPERSEDED] }) { edges { node { id } } } }');
  a.patterns = patterns.patterns.edges.map((e: Json) => e.node.id);
  expect(a.patterns.length).toBeGreaterThan(0);
  const retrieval = await ok(
    A.write,
    'query($d: String!) { relevantEpisodes(task: { description: $d }, includeFailures: true) { ... on RelevantEpisodes { retrievalId episodes { episode { id } } } } }',
    { d: a.task },
  );
  a.retrieval = retrieval.relevantEpisodes.retrievalId;
  expect(retrieval.relevantEpisodes.episodes.length).toBeGreaterThan(0);
  a.apiKeys = (await ok(A.admin, '{ apiKeys { id } }')).apiKeys.map((k: Json) => k.id);
  await ok(A.admin, 'mutation { setRetention(runDays: 45) { __typename } }'); // B's retention must not read or change it
  a.experiment = (await ok(A.write, 'mutation { startExperiment(input: { name: "billing holdout" }) { ... on Experiment { id } } }')).startExperiment.id;
  const proof = await ok(A.read, '{ consistencyProof(fromSize: 1, toSize: 1) { ... on ConsistencyProof { fromRoot } } }');
  a.rootOfOne = proof.consistencyProof.fromRoot;
  const { rows } = await t.services.db.pool.query('SELECT seq, hash FROM ledger_events WHERE tenant_id = $1 ORDER BY seq', [A.tenantId]);
  a.hashes = new Set(rows.map((r) => r.hash));
  a.headSeq = rows.length;
  a.headHash = must(rows.at(-1)).hash;
  await t.services.checkpoints.publish(A.tenantId);

  // Tenant B: a work item and a running episode of its own, and a shorter ledger than A's.
  b.workItem = (await ok(B.write, 'mutation { createWorkItem(title: "B work") { ... on WorkItemPayload { workItem { id } } } }')).createWorkItem.workItem.id;
  b.running = (await ok(B.write, START, { input: { taskDescription: 'B task', taskType: 'other' } })).startEpisode.episode.id;
  await ok(B.write, LOG, { id: b.running, steps: [{ tool: 'sh' }] });
  await t.services.checkpoints.publish(B.tenantId); // proofs are served against signed checkpoints only

  // Spans of A's the OTLP door refused (src/otlp/refusal-counts.ts).
  await t.services.db.pool.query(
    `INSERT INTO otlp_refusal_counts (tenant_id, kind, count, last_trace_id, last_span_id, last_reason) VALUES ($1, 'late', 3, 'trace-of-tenant-a', 'span-of-a', 'billing run of A')`,
    [A.tenantId],
  );
  snapshots = await Snapshotter.create(t.services.db.pool);
}, 120_000);
afterAll(() => t.stop());

// ---- what B may get back ----

function notFound(res: GraphQLResponse, field: string, entity: string, id?: string) {
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  expect(res.data?.[field], JSON.stringify(res.data)).toMatchObject({ __typename: 'NotFoundError', entity, ...(id ? { id } : {}) });
}

/** Nothing of A anywhere in an answer: none of its ids, hashes, task text or tenant id. */
function noneOfA(value: unknown) {
  const text = JSON.stringify(value);
  for (const id of [A.tenantId, a.workItem, a.lease, a.childLease, a.retrieval, a.experiment, ...a.episodes, ...a.patterns, ...a.apiKeys])
    expect(text).not.toContain(id);
  for (const hash of a.hashes) expect(text).not.toContain(hash);
  expect(text).not.toContain('billing');
}

const NF = '__typename ... on NotFoundError { entity id }';

/** One case per operation: B's calls, with A's ids, and what B must see. */
const CASES: Record<Root, Record<string, () => Promise<void>>> = {
  Query: {
    experiments: async () => {
      const data = await ok(B.read, '{ experiments { id name } }');
      expect(data.experiments).toEqual([]);
      noneOfA(data);
    },
    memoryImpact: async () => {
      notFound(
        await as(B.read, `query($id: ID!) { memoryImpact(experimentId: $id) { ${NF} } }`, { id: a.experiment }),
        'memoryImpact',
        'Experiment',
        a.experiment,
      );
    },
    apiKeys: async () => {
      const data = await ok(B.admin, '{ apiKeys { id name } }');
      const { rows } = await t.services.db.pool.query('SELECT id FROM api_keys WHERE tenant_id = $1', [B.tenantId]);
      expect(data.apiKeys.map((k: Json) => k.id).sort()).toEqual(rows.map((r) => r.id).sort());
      noneOfA(data);
    },
    blob: async () => {
      notFound(await as(B.read, `query($h: String!) { blob(hash: $h) { ${NF} } }`, { h: a.blobHash }), 'blob', 'Blob');
    },
    retention: async () => {
      const data = await ok(B.read, '{ retention { stepDays runDays } }');
      expect(data.retention).toEqual({ stepDays: null, runDays: null });
    },
    consistencyProof: async () => {
      const beyond = await as(B.read, 'query($to: BigInt) { consistencyProof(fromSize: 1, toSize: $to) { __typename } }', { to: String(a.headSeq) });
      expect(beyond.data?.consistencyProof.__typename).toBe('InputLimitError');
      const one = await ok(B.read, '{ consistencyProof(fromSize: 1, toSize: 1) { ... on ConsistencyProof { fromRoot } } }');
      expect(one.consistencyProof.fromRoot).not.toBe(a.rootOfOne);
    },
    dashboard: async () => {
      const q = 'query($f: DashboardFilter!) { dashboard(filter: $f) { ... on Dashboard { totals { runs } usageByModel { model calls tokens } } } }';
      const f = { from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString() };
      const data = await ok(B.read, q, { f });
      expect(data.dashboard.totals.runs).toBe(1); // B's one episode; A's four never count
      noneOfA(data);
    },
    episode: async () => {
      for (const id of a.episodes) notFound(await as(B.admin, `query($id: ID!) { episode(id: $id) { ${NF} } }`, { id }), 'episode', 'Episode', id);
      // Upper case names the same row in PostgreSQL: still not B's.
      notFound(await as(B.admin, `query($id: ID!) { episode(id: $id) { ${NF} } }`, { id: a.running.toUpperCase() }), 'episode', 'Episode');
    },
    episodeStep: async () => {
      notFound(await as(B.read, `query($id: ID!) { episodeStep(episodeId: $id, stepNumber: 1) { ${NF} } }`, { id: a.running }), 'episodeStep', 'Step');
    },
    episodeProofBundle: async () => {
      for (const id of a.completed)
        notFound(await as(B.read, `query($id: ID!) { episodeProofBundle(episodeId: $id) { ${NF} } }`, { id }), 'episodeProofBundle', 'Episode', id);
    },
    episodes: async () => {
      const q =
        'query($f: EpisodeFilter) { episodes(first: 100, filter: $f) { edges { node { id taskDescription workItem { id } lease { id } parentEpisode { id } } } } }';
      const all = await ok(B.read, q);
      expect(all.episodes.edges.map((e: Json) => e.node.id)).toEqual([b.running]);
      for (const filter of [{ workItemId: a.workItem }, { text: 'billing' }, { domain: 'billing' }, { tags: ['tenant-a'] }]) {
        expect((await ok(B.read, q, { f: filter })).episodes.edges).toEqual([]);
      }
    },
    inclusionProof: async () => {
      notFound(await as(B.read, `query($s: BigInt!) { inclusionProof(seq: $s) { ${NF} } }`, { s: String(a.headSeq) }), 'inclusionProof', 'LedgerEvent');
      const first = await ok(B.read, '{ inclusionProof(seq: 1) { ... on InclusionProof { leafHash checkpoint { tenantId } } } }');
      expect(first.inclusionProof.checkpoint.tenantId).toBe(B.tenantId);
      noneOfA(first);
    },
    lease: async () => {
      for (const id of [a.lease, a.childLease]) notFound(await as(B.read, `query($id: ID!) { lease(id: $id) { ${NF} } }`, { id }), 'lease', 'Lease', id);
    },
    ledgerEvents: async () => {
      const q =
        'query($f: LedgerEventFilter) { ledgerEvents(first: 500, filter: $f) { ... on LedgerEventConnection { edges { node { seq tenantId hash episodeId } } } } }';
      const all = await ok(B.read, q);
      expect(all.ledgerEvents.edges.length).toBeGreaterThan(0);
      expect(all.ledgerEvents.edges.every((e: Json) => e.node.tenantId === B.tenantId)).toBe(true);
      noneOfA(all);
      for (const filter of [{ episodeId: a.running }, { workItemId: a.workItem }, { episodeId: a.completed[0] }]) {
        expect((await ok(B.read, q, { f: filter })).ledgerEvents.edges).toEqual([]);
      }
    },
    ledgerHead: async () => {
      const head = await ok(B.read, '{ ledgerHead { seq hash latestCheckpoint { tenantId } } }');
      const { rows } = await t.services.db.pool.query('SELECT seq::text, hash FROM ledger_heads WHERE tenant_id = $1', [B.tenantId]);
      expect(head.ledgerHead.seq).toBe(rows[0].seq);
      expect(head.ledgerHead.hash).toBe(rows[0].hash);
      expect(head.ledgerHead.hash).not.toBe(a.headHash);
      expect([null, B.tenantId]).toContain(head.ledgerHead.latestCheckpoint?.tenantId ?? null);
    },
    ledgerCheckpoints: async () => {
      const page = await ok(B.read, '{ ledgerCheckpoints { ... on SignedTreeHeadPage { checkpoints { tenantId rootHash headHash } } } }');
      expect(page.ledgerCheckpoints.checkpoints.length).toBeGreaterThan(0);
      expect(page.ledgerCheckpoints.checkpoints.every((c: Json) => c.tenantId === B.tenantId)).toBe(true);
      noneOfA(page);
    },
    ledgerPublicKey: async () => {
      // The signing key is the server's, not a tenant's: it names no tenant and reveals no data.
      const data = await ok(B.read, '{ ledgerPublicKey { algorithm keyId publicKey } }');
      expect(data.ledgerPublicKey.publicKey).toMatch(/^[0-9a-f]{64}$/);
      noneOfA(data);
    },
    pattern: async () => {
      for (const id of a.patterns) notFound(await as(B.read, `query($id: ID!) { pattern(id: $id) { ${NF} } }`, { id }), 'pattern', 'Pattern', id);
    },
    patterns: async () => {
      const q = 'query($f: PatternFilter) { patterns(first: 100, filter: $f) { edges { node { id } } } }';
      expect((await ok(B.read, q, { f: { status: ['CANDIDATE', 'ACTIVE', 'SUPERSEDED'] } })).patterns.edges).toEqual([]);
      expect((await ok(B.read, q, { f: { episodeId: a.completed[0], status: ['CANDIDATE', 'ACTIVE', 'SUPERSEDED'] } })).patterns.edges).toEqual([]);
    },
    relevantEpisodes: async () => {
      // With a write key, so that a receipt is recorded (read keys record none).
      const data = await ok(
        B.write,
        'query($d: String!) { relevantEpisodes(task: { description: $d, context: { language: "sql", domain: "billing", tags: ["tenant-a"] } }, includeFailures: true) { ... on RelevantEpisodes { retrievalId episodes { episode { id } } warnings { episode { id } } } } }',
        { d: a.task },
      );
      expect(data.relevantEpisodes.episodes).toEqual([]);
      expect(data.relevantEpisodes.warnings).toEqual([]);
      const { rows } = await t.services.db.pool.query('SELECT tenant_id FROM retrievals WHERE id = $1', [data.relevantEpisodes.retrievalId]);
      expect(rows[0].tenant_id).toBe(B.tenantId);
    },
    relevantFiles: async () => {
      // Tenant A's runs changed billing/migrate.sql (A is answered it); B, asking A's own task with a write key, gets none of it and its receipt is B's.
      const query =
        'query($d: String!) { relevantFiles(task: { description: $d, context: { language: "sql", domain: "billing", tags: ["tenant-a"] } }) { ... on RelevantFiles { retrievalId files { path evidence { id } } } } }';
      expect((await ok(A.read, query, { d: a.task })).relevantFiles.files.map((f: Json) => f.path)).toEqual(['billing/migrate.sql']);
      const data = await ok(B.write, query, { d: a.task });
      expect(data.relevantFiles.files).toEqual([]);
      const { rows } = await t.services.db.pool.query('SELECT tenant_id FROM retrievals WHERE id = $1', [data.relevantFiles.retrievalId]);
      expect(rows[0].tenant_id).toBe(B.tenantId);
    },
    relevantPatterns: async () => {
      const data = await ok(
        B.read,
        '{ relevantPatterns(context: { language: "sql", domain: "billing", tags: ["tenant-a"] }, limit: 50) { ... on RelevantPatterns { patterns { pattern { id } } } } }',
      );
      expect(data.relevantPatterns.patterns).toEqual([]);
    },
    retrievalReceipt: async () => {
      notFound(await as(B.read, `query($id: ID!) { retrievalReceipt(id: $id) { ${NF} } }`, { id: a.retrieval }), 'retrievalReceipt', 'Retrieval', a.retrieval);
    },
    otlpRefusals: async () => {
      // A's refused spans (counted in beforeAll, as the OTLP door counts them) never show in B's.
      const data = await ok(B.read, '{ otlpRefusals { kind count lastTraceId lastReason } }');
      expect(data.otlpRefusals).toEqual([]);
      noneOfA(data);
    },
    retrievalReceipts: async () => {
      const data = await ok(B.read, '{ retrievalReceipts(first: 100) { ... on QueryRetrievalReceiptsSuccess { data { id } } } }');
      const { rows } = await t.services.db.pool.query('SELECT id FROM retrievals WHERE tenant_id = $1', [B.tenantId]);
      expect(data.retrievalReceipts.data.map((r: { id: string }) => r.id).sort()).toEqual(rows.map((r) => r.id).sort());
      noneOfA(data);
    },
    verifyLedger: async () => {
      const data = await ok(B.read, 'query($to: BigInt) { verifyLedger(fromSeq: 1, toSeq: $to) { __typename ... on LedgerVerification { ok checked } } }', {
        to: String(a.headSeq),
      });
      const { rows } = await t.services.db.pool.query('SELECT seq FROM ledger_heads WHERE tenant_id = $1', [B.tenantId]);
      expect(data.verifyLedger).toEqual({ __typename: 'LedgerVerification', ok: true, checked: Number(rows[0].seq) });
    },
    viewer: async () => {
      expect((await ok(B.read, '{ viewer { id name } }')).viewer).toEqual({ id: B.tenantId, name: 'tenant-b' });
    },
    viewerKey: async () => {
      const key = (await ok(B.read, '{ viewerKey { id scopes } }')).viewerKey;
      expect(key.scopes).toEqual(['read']);
      expect(a.apiKeys).not.toContain(key.id);
    },
    hashedRows: async () => {
      const refs = [...a.completed.map((id) => ({ kind: 'episode.outcome', id })), { kind: 'retrieval.results', id: a.retrieval }].filter((r) => r.id);
      expect(refs.length).toBeGreaterThan(0);
      const data = await ok(B.read, 'query($r: [HashedRowRef!]!) { hashedRows(refs: $r) { __typename ... on HashedRowList { rows { kind id } } } }', {
        r: refs,
      });
      expect(data.hashedRows).toEqual({ __typename: 'HashedRowList', rows: [] });
    },
    workItem: async () => {
      notFound(await as(B.read, `query($id: ID!) { workItem(id: $id) { ${NF} } }`, { id: a.workItem }), 'workItem', 'WorkItem', a.workItem);
    },
  },

  Mutation: {
    startExperiment: async () => {
      const data = await ok(B.write, 'mutation { startExperiment(input: { name: "B holdout" }) { ... on Experiment { id name } } }');
      noneOfA(data);
      const { rows } = await t.services.db.pool.query('SELECT tenant_id FROM experiments WHERE id = $1', [data.startExperiment.id]);
      expect(rows).toEqual([{ tenant_id: B.tenantId }]);
    },
    pauseExperiment: async () => {
      notFound(
        await as(B.write, `mutation($id: ID!) { pauseExperiment(id: $id) { ${NF} } }`, { id: a.experiment }),
        'pauseExperiment',
        'Experiment',
        a.experiment,
      );
    },
    resumeExperiment: async () => {
      notFound(
        await as(B.write, `mutation($id: ID!) { resumeExperiment(id: $id) { ${NF} } }`, { id: a.experiment }),
        'resumeExperiment',
        'Experiment',
        a.experiment,
      );
    },
    blockEpisode: async () => {
      notFound(
        await as(B.write, `mutation($id: ID!) { blockEpisode(episodeId: $id, reason: "mine now", approvalRequest: {}) { ${NF} } }`, { id: a.running }),
        'blockEpisode',
        'Episode',
        a.running,
      );
    },
    cancelEpisode: async () => {
      for (const id of [a.running, a.blocked])
        notFound(await as(B.write, `mutation($id: ID!) { cancelEpisode(episodeId: $id) { ${NF} } }`, { id }), 'cancelEpisode', 'Episode', id);
    },
    completeEpisode: async () => {
      notFound(await as(B.write, COMPLETE, { id: a.running, outcome: { kind: 'SUCCESS', verdict: 'stolen' } }), 'completeEpisode', 'Episode', a.running);
      // B's own episode, crediting A's retrieval: refused, and B's episode is not ended either.
      notFound(
        await as(B.write, COMPLETE, { id: b.running, outcome: { kind: 'SUCCESS', verdict: 'ok' }, used: [a.retrieval] }),
        'completeEpisode',
        'Retrieval',
        a.retrieval,
      );
      expect((await ok(B.read, 'query($id: ID!) { episode(id: $id) { ... on Episode { status } } }', { id: b.running })).episode.status).toBe('RUNNING');
    },
    createApiKey: async () => {
      const data = await ok(B.admin, 'mutation { createApiKey(name: "b-made", scopes: ["read"]) { ... on CreatedApiKey { token key { id } } } }');
      const { rows } = await t.services.db.pool.query('SELECT tenant_id FROM api_keys WHERE id = $1', [data.createApiKey.key.id]);
      expect(rows[0].tenant_id).toBe(B.tenantId);
      expect((await ok(data.createApiKey.token, '{ viewer { id } }')).viewer.id).toBe(B.tenantId);
    },
    createWorkItem: async () => {
      const data = await ok(B.write, 'mutation { createWorkItem(title: "B item") { ... on WorkItemPayload { workItem { id } } } }');
      const { rows } = await t.services.db.pool.query('SELECT tenant_id FROM work_items WHERE id = $1', [data.createWorkItem.workItem.id]);
      expect(rows[0].tenant_id).toBe(B.tenantId);
    },
    escalateEpisode: async () => {
      notFound(
        await as(B.write, `mutation($id: ID!) { escalateEpisode(episodeId: $id, reason: "x") { ${NF} } }`, { id: a.running }),
        'escalateEpisode',
        'Episode',
        a.running,
      );
    },
    extractEpisodePatterns: async () => {
      for (const id of a.completed)
        notFound(await as(B.write, `mutation($id: ID!) { extractEpisodePatterns(episodeId: $id) { ${NF} } }`, { id }), 'extractEpisodePatterns', 'Episode', id);
    },
    failEpisode: async () => {
      notFound(
        await as(B.write, `mutation($id: ID!) { failEpisode(episodeId: $id, reason: "x") { ${NF} } }`, { id: a.running }),
        'failEpisode',
        'Episode',
        a.running,
      );
    },
    issueLease: async () => {
      const q = `mutation($w: ID!, $p: ID) { issueLease(workItemId: $w, parentLeaseId: $p, issuer: "b", holder: "b", expiresAt: "2099-01-01T00:00:00Z") { ${NF} } }`;
      notFound(await as(B.write, q, { w: a.workItem }), 'issueLease', 'WorkItem', a.workItem);
      notFound(await as(B.write, q, { w: b.workItem, p: a.lease }), 'issueLease', 'Lease', a.lease);
    },
    logStep: async () => {
      notFound(
        await as(B.write, `mutation($id: ID!) { logStep(episodeId: $id, step: { tool: "sh", sideEffectKey: "a-side-effect-1" }) { ${NF} } }`, {
          id: a.running,
        }),
        'logStep',
        'Episode',
        a.running,
      );
    },
    logSteps: async () => {
      // A's side-effect key must not come back as a DUPLICATE pointing at A's step.
      const res = await as(B.write, `mutation($id: ID!, $s: [StepInput!]!) { logSteps(episodeId: $id, steps: $s) { ${NF} } }`, {
        id: a.running,
        s: [{ tool: 'sh', sideEffectKey: a.sideEffectKey }],
      });
      notFound(res, 'logSteps', 'Episode', a.running);
      // B's own episode, with A's key: a new step of B's, not a duplicate of A's.
      const own = await ok(
        B.write,
        'mutation($id: ID!, $s: [StepInput!]!) { logSteps(episodeId: $id, steps: $s) { ... on LogStepsPayload { accepted duplicates results { step { id } } } } }',
        { id: b.running, s: [{ tool: 'sh', sideEffectKey: a.sideEffectKey }] },
      );
      expect(own.logSteps).toMatchObject({ accepted: 1, duplicates: 0 });
      const { rows } = await t.services.db.pool.query('SELECT tenant_id, episode_id FROM steps WHERE id = $1', [own.logSteps.results[0].step.id]);
      expect(rows[0]).toEqual({ tenant_id: B.tenantId, episode_id: b.running });
    },
    recordCritique: async () => {
      notFound(
        await as(B.write, `mutation($id: ID!) { recordCritique(episodeId: $id, verdict: "bad", score: 0) { ${NF} } }`, { id: a.completed[0] }),
        'recordCritique',
        'Episode',
        a.completed[0],
      );
    },
    recordPackMiss: async () => {
      notFound(
        await as(B.write, `mutation($id: ID!) { recordPackMiss(episodeId: $id, stableId: "a-doc", reason: "x") { ${NF} } }`, { id: a.running }),
        'recordPackMiss',
        'Episode',
        a.running,
      );
    },
    resumeEpisode: async () => {
      notFound(
        await as(B.write, `mutation($id: ID!) { resumeEpisode(episodeId: $id, approved: true, decidedBy: "b") { ${NF} } }`, { id: a.blocked }),
        'resumeEpisode',
        'Episode',
        a.blocked,
      );
    },
    resumeWorkItem: async () => {
      notFound(
        await as(B.write, `mutation($id: ID!) { resumeWorkItem(id: $id, maxEpisodes: 5) { ${NF} } }`, { id: a.workItem }),
        'resumeWorkItem',
        'WorkItem',
        a.workItem,
      );
    },
    revokeApiKey: async () => {
      for (const id of a.apiKeys) notFound(await as(B.admin, `mutation($id: ID!) { revokeApiKey(id: $id) { ${NF} } }`, { id }), 'revokeApiKey', 'ApiKey', id);
    },
    setRetention: async () => {
      const before = (await t.services.db.pool.query('SELECT run_retention_days, step_retention_days FROM tenants WHERE id = $1', [A.tenantId])).rows[0];
      const data = await ok(B.admin, 'mutation { setRetention(stepDays: 7) { ... on TenantRetention { stepDays runDays } } }');
      expect(data.setRetention).toEqual({ stepDays: 7, runDays: null });
      const after = (await t.services.db.pool.query('SELECT run_retention_days, step_retention_days FROM tenants WHERE id = $1', [A.tenantId])).rows[0];
      expect(after).toEqual(before);
      const events = await t.services.db.pool.query(`SELECT tenant_id FROM ledger_events WHERE type = 'tenant.retention_set' AND payload->>'stepDays' = '7'`);
      expect(events.rows.map((r) => r.tenant_id)).toEqual([B.tenantId]);
    },
    forgetSteps: async () => {
      notFound(
        await as(B.admin, `mutation($id: ID!) { forgetSteps(episodeId: $id, reason: "deletion request") { ${NF} } }`, { id: a.running }),
        'forgetSteps',
        'Episode',
        a.running,
      );
    },
    forgetEpisode: async () => {
      notFound(
        await as(B.admin, `mutation($id: ID!) { forgetEpisode(episodeId: $id, reason: "deletion request") { ${NF} } }`, { id: a.running }),
        'forgetEpisode',
        'Episode',
        a.running,
      );
    },
    revokeLease: async () => {
      for (const id of [a.lease, a.childLease])
        notFound(await as(B.write, `mutation($id: ID!) { revokeLease(id: $id) { ${NF} } }`, { id }), 'revokeLease', 'Lease', id);
    },
    saveCheckpoint: async () => {
      notFound(
        await as(B.write, `mutation($id: ID!) { saveCheckpoint(episodeId: $id, state: {}) { ${NF} } }`, { id: a.running }),
        'saveCheckpoint',
        'Episode',
        a.running,
      );
    },
    importRun: async () => {
      const run = (input: object) => ({
        input: { taskDescription: 'B run', taskType: 'other', importSource: { format: 'jsonl', sourceHash: 'cd'.repeat(32), name: 'b.jsonl' }, ...input },
        steps: [{ tool: 'bash', action: 'ls' }],
        outcome: { kind: 'SUCCESS', verdict: 'ok' },
      });
      const IMPORT = `mutation($input: StartEpisodeInput!, $steps: [StepInput!]!, $outcome: OutcomeInput!) { importRun(input: $input, steps: $steps, outcome: $outcome) { ${NF} } }`;
      for (const [field, id, entity] of [
        ['parentEpisodeId', a.completed[0], 'Episode'],
        ['workItemId', a.workItem, 'WorkItem'],
        ['leaseId', a.lease, 'Lease'],
      ] as const)
        notFound(await as(B.write, IMPORT, run({ [field]: id })), 'importRun', entity, id);
      // (A's dedupe key across tenants is startEpisode's case below: importRun starts through the same store.)
    },
    startEpisode: async () => {
      for (const [field, id, entity] of [
        ['parentEpisodeId', a.completed[0], 'Episode'],
        ['workItemId', a.workItem, 'WorkItem'],
        ['leaseId', a.lease, 'Lease'],
      ] as const) {
        const res = await as(B.write, `mutation($input: StartEpisodeInput!) { startEpisode(input: $input) { ${NF} } }`, {
          input: { taskDescription: 'B task', taskType: 'other', [field]: id },
        });
        notFound(res, 'startEpisode', entity, id);
      }
      // A's dedupe key, with A's very input: a new episode of B's, not A's.
      const same = await ok(B.write, START, {
        input: { taskDescription: a.task, taskType: 'migration', context: { language: 'sql', domain: 'billing', tags: ['tenant-a'] }, dedupeKey: a.dedupeKey },
      });
      expect(same.startEpisode.deduplicated).toBe(false);
      expect(a.episodes).not.toContain(same.startEpisode.episode.id);
    },
  },

  Subscription: {
    episodeUpdated: async () => {
      const w = watch(t.wsClient(B.read), 'subscription($id: ID!) { episodeUpdated(id: $id) { id } }', { id: a.running });
      await refused(w, 'Episode', a.running);
    },
    ledgerEvents: async () => {
      const client = t.wsClient(B.read);
      const all = watch(client, 'subscription { ledgerEvents(afterSeq: 0) { seq tenantId hash } }');
      const filtered = watch(client, 'subscription($f: LedgerEventFilter) { ledgerEvents(afterSeq: 0, filter: $f) { seq } }', { f: { episodeId: a.running } });
      const { rows } = await t.services.db.pool.query('SELECT seq FROM ledger_heads WHERE tenant_id = $1', [B.tenantId]);
      await waitUntil(() => all.values.length === Number(rows[0].seq), "B's whole ledger");
      await new Promise((r) => setTimeout(r, 300));
      expect(all.values.every((e) => e.tenantId === B.tenantId)).toBe(true);
      noneOfA(all.values);
      expect(filtered.values).toEqual([]);
      all.stop();
      filtered.stop();
    },
    stepsLogged: async () => {
      const w = watch(t.wsClient(B.read), 'subscription($id: ID!) { stepsLogged(episodeId: $id, afterSeq: 0) { seq steps { id } } }', { id: a.running });
      await refused(w, 'Episode', a.running);
    },
  },
};

async function refused(w: Watch, entity: string, id: string) {
  await waitUntil(() => w.done, 'the refusal');
  expect(w.values).toEqual([]);
  expect(w.results[0]?.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', entity, id });
}

describe('tenant isolation, for every operation', () => {
  it('has a case for every query, mutation and subscription of schema.graphql', () => {
    for (const root of ['Query', 'Mutation', 'Subscription'] as const) expect(Object.keys(CASES[root]).sort(), root).toEqual(operationsOf(root));
  });

  for (const root of ['Query', 'Mutation', 'Subscription'] as const) {
    for (const [name, run] of Object.entries(CASES[root])) {
      it(`${root}.${name}: B sees and changes nothing of A's`, async () => {
        const before = await snapshots.take(A.tenantId);
        await run();
        expect(await snapshots.take(A.tenantId)).toEqual(before);
      });
    }
  }

  it("leaves A's ledger verifiable and A's rows byte-for-byte as they were after everything B did", async () => {
    const data = await ok(A.read, '{ verifyLedger { ... on LedgerVerification { ok checked stepsChecked } } ledgerHead { seq hash } }');
    expect(data.verifyLedger).toMatchObject({ ok: true, checked: a.headSeq });
    expect(data.ledgerHead).toEqual({ seq: String(a.headSeq), hash: a.headHash });
  });
});
