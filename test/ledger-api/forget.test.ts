// Verifiable forgetting of step content (issue 52, docs/LEDGER.md §3.4), through the real server:
// an admin's forgetSteps deletes the content, its salt and its now unreferenced blob, in the
// transaction of a steps.forgotten event naming the steps, their logged hashes and the key that
// asked; afterwards the chain, the bundle and the export still verify, each verifier reports the
// steps as forgotten, and content removed without that event is still a step-mismatch.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stepRowFromColumns, stepRowHash } from '../../src/ledger/format/step-hash.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { cli, sqlOn } from '../support/ledger-cli.ts';

/** Budget from the work: up to eight CLI commands (exports and verifies), up to 10 s each on a loaded 2-core machine. */
const CLI_BUDGET_MS = 8 * 10_000;
const SECRET = 'sk-live-4242-do-not-keep';
let t: TestApp;
let key: string;
let dir: string;
let episodeId: string;
let blobHash: string;

const sql = sqlOn(() => t);
const VERIFY = '{ verifyLedger { ... on LedgerVerification { ok stepsChecked stepsForgotten firstBadSeq problem reason } } }';
const verifyLedger = async () => (await t.gql(VERIFY)).data.verifyLedger;
const FORGET = `mutation($e: ID!, $n: [Int!], $r: String!) { forgetSteps(episodeId: $e, stepNumbers: $n, reason: $r) {
  __typename ... on ForgetStepsPayload { episodeId forgotten blobsDeleted } ... on Error { message } } }`;
const loggedSeqOf = async (n: number) =>
  Number(
    (
      await sql(
        `SELECT seq FROM ledger_events WHERE episode_id = $1 AND type = 'steps.logged' AND payload->'steps' @> jsonb_build_array(jsonb_build_object('n', $2::int))`,
        [episodeId, n],
      )
    ).rows[0].seq,
  );

async function bundleFile(name: string): Promise<string> {
  const file = join(dir, `${name}.json`);
  const exported = await cli(['export', '--url', t.url, '--key', t.keys.read, '--episode', episodeId, '--output', file]);
  expect(exported.code, exported.err).toBe(0);
  return file;
}
const verifyOffline = (file: string) => cli(['verify', '--public-key', key, '--json', file]);

beforeAll(async () => {
  t = await startTestApp({ CHECKPOINT_EVERY_EVENTS: '1000000', CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' });
  dir = await mkdtemp(join(tmpdir(), 'episodic-forget-'));
  key = (await t.gql('{ ledgerPublicKey { publicKey } }')).data.ledgerPublicKey.publicKey;
  const started = await t.gql(
    'mutation { startEpisode(input: { taskDescription: "forget a pasted secret", taskType: "audit" }) { ... on StartEpisodePayload { episode { id } } } }',
  );
  episodeId = started.data.startEpisode.episode.id;
  const log = (steps: unknown[], options: unknown = {}) =>
    t.gql(
      'mutation($e: ID!, $s: [StepInput!]!, $o: LogStepsOptions) { logSteps(episodeId: $e, steps: $s, options: $o) { __typename ... on LogStepsPayload { results { status } } } }',
      {
        e: episodeId,
        s: steps,
        o: options,
      },
    );
  expect(
    (await log([{ kind: 'tool_call', tool: 'shell', action: 'cat .env', observation: `KEY=${SECRET}`, metadata: { note: SECRET } }])).data.logSteps.results,
  ).toEqual([{ status: 'ACCEPTED' }]);
  expect((await log([{ kind: 'tool_call', tool: 'shell', observation: `${SECRET}\n`.repeat(2_000) }], { largeContent: 'BLOB' })).data.logSteps.results).toEqual(
    [{ status: 'ACCEPTED' }],
  );
  expect((await log([{ kind: 'llm_call', tool: 'model', observation: 'kept', tokens: 7 }])).data.logSteps.results).toEqual([{ status: 'ACCEPTED' }]);
  blobHash = (await sql('SELECT hash FROM blobs WHERE tenant_id = $1', [t.keys.tenantId])).rows[0].hash;
  await t.services.checkpoints.publish(t.keys.tenantId);
  expect(await verifyLedger()).toMatchObject({ ok: true, stepsChecked: 3, stepsForgotten: 0 });
});
afterAll(() => t.stop());

describe('salted step hashes (§3.4)', () => {
  it('hash a salt with the content: without it, the logged hash does not confirm a correct guess of the content', async () => {
    const { rows } = await sql('SELECT * FROM steps WHERE episode_id = $1 ORDER BY step_number', [episodeId]);
    for (const row of rows) {
      expect(row.salt).toMatch(/^[0-9a-f]{32}$/);
      const step = stepRowFromColumns(row);
      expect(stepRowHash(step)).toBe(row.content_hash);
      const { salt: _salt, ...guessed } = step; // every other member guessed right
      expect(stepRowHash(guessed)).not.toBe(row.content_hash);
    }
    expect(new Set(rows.map((r) => r.salt)).size).toBe(3);
  });
});

describe('forgetSteps', () => {
  it('is refused to a key without the admin scope', async () => {
    const refused = await t.gql(FORGET, { e: episodeId, n: [1], r: 'deletion request' }, t.keys.write);
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await sql(`SELECT count(*)::int AS n FROM steps WHERE episode_id = $1 AND forgotten_at IS NOT NULL`, [episodeId])).rows[0].n).toBe(0);
  });

  it('names the field and limit of a reason too long', async () => {
    const refused = await t.gql(FORGET, { e: episodeId, n: [1], r: 'x'.repeat(501) });
    expect(refused.data.forgetSteps).toMatchObject({ __typename: 'InputLimitError' });
    expect(refused.data.forgetSteps.message).toMatch(/reason is 501 characters; the limit is 500 characters/);
    const nul = await t.gql(FORGET, { e: episodeId, n: [1], r: 'nul\u0000inside' });
    expect(nul.data.forgetSteps).toMatchObject({ __typename: 'InputLimitError' });
  });

  it('deletes the content, salt and blob, and records the steps, their hashes and who asked in the ledger', async () => {
    const hashes = (await sql('SELECT step_number, content_hash FROM steps WHERE episode_id = $1 ORDER BY step_number', [episodeId])).rows;
    const forgotten = await t.gql(FORGET, { e: episodeId, n: [1, 2], r: 'a secret pasted into a tool output' });
    expect(forgotten.data.forgetSteps).toEqual({ __typename: 'ForgetStepsPayload', episodeId, forgotten: [1, 2], blobsDeleted: 1 });
    // The secret is nowhere in the step rows or blobs any more; the counters and hashes stay.
    const { rows } = await sql('SELECT * FROM steps WHERE episode_id = $1 ORDER BY step_number', [episodeId]);
    for (const row of rows.slice(0, 2)) {
      expect(JSON.stringify(row)).not.toContain(SECRET);
      expect(row).toMatchObject({ tool: null, observation: null, metadata: null, salt: null, content_refs: null, kind: 'tool_call' });
      expect(row.forgotten_at).toBeInstanceOf(Date);
    }
    expect(rows.map((r) => r.content_hash)).toEqual(hashes.map((r) => r.content_hash));
    expect(rows[2]).toMatchObject({ observation: 'kept', forgotten_at: null });
    expect((await sql('SELECT count(*)::int AS n FROM blobs WHERE tenant_id = $1', [t.keys.tenantId])).rows[0].n).toBe(0);
    expect((await sql('SELECT bytes::int AS n FROM blob_usage WHERE tenant_id = $1', [t.keys.tenantId])).rows[0].n).toBe(0);
    const blob = await t.gql('query($h: String!) { blob(hash: $h) { __typename ... on Blob { content } } }', { h: blobHash });
    expect(blob.data.blob.__typename).toBe('NotFoundError');
    // The ledger says which steps, with which hashes, and which admin key asked.
    const [event] = (await sql(`SELECT payload FROM ledger_events WHERE episode_id = $1 AND type = 'steps.forgotten'`, [episodeId])).rows;
    const adminKeyId = (await t.gql('{ viewerKey { id } }')).data.viewerKey.id;
    expect(event.payload).toEqual({
      steps: hashes.slice(0, 2).map((r) => ({ n: r.step_number, hash: r.content_hash, keptHash: expect.stringMatching(/^[0-9a-f]{64}$/) })),
      reason: 'a secret pasted into a tool output',
      byKeyId: adminKeyId,
    });
    // The API serves the step without content; its hash stays, its hashed content is gone.
    const served = await t.gql(
      'query($e: ID!) { episode(id: $e) { ... on Episode { steps { edges { node { stepNumber tool observation contentHash hashedContent forgottenAt } } } } } }',
      { e: episodeId },
    );
    const steps = served.data.episode.steps.edges.map((e: { node: unknown }) => e.node);
    expect(steps[0]).toMatchObject({ stepNumber: 1, tool: null, observation: null, contentHash: hashes[0].content_hash, hashedContent: null });
    expect(steps[0].forgottenAt).not.toBeNull();
    expect(steps[2]).toMatchObject({ observation: 'kept', forgottenAt: null });
    // Forgetting again forgets nothing more and writes no event.
    expect((await t.gql(FORGET, { e: episodeId, n: null, r: 'again' })).data.forgetSteps).toMatchObject({ forgotten: [3], blobsDeleted: 0 });
    const events = (await sql(`SELECT count(*)::int AS n FROM ledger_events WHERE episode_id = $1 AND type = 'steps.forgotten'`, [episodeId])).rows[0].n;
    expect(events).toBe(2);
  });

  it('leaves a ledger every verifier accepts, reporting the steps as forgotten', { timeout: CLI_BUDGET_MS }, async () => {
    await t.services.checkpoints.publish(t.keys.tenantId);
    expect(await verifyLedger()).toMatchObject({ ok: true, stepsChecked: 3, stepsForgotten: 3 });
    const bundle = await verifyOffline(await bundleFile('forgotten'));
    expect(bundle.code, bundle.err).toBe(0);
    expect(JSON.parse(bundle.out)).toMatchObject({ ok: true, kind: 'bundle', signatureValid: true, stepsChecked: 0, stepsForgotten: 3 });
    const file = join(dir, 'ledger.jsonl');
    expect((await cli(['export', '--url', t.url, '--key', t.keys.read, '--output', file])).code).toBe(0);
    const exported = await verifyOffline(file);
    expect(exported.code, exported.err).toBe(0);
    expect(JSON.parse(exported.out)).toMatchObject({ ok: true, kind: 'export', stepsForgotten: 3 });
  });

  it('content written into a forgotten step (served, unverifiable) is a step-mismatch at its steps.logged event', async () => {
    const seq = await loggedSeqOf(1);
    await sql(`UPDATE steps SET observation = 'forged', forgotten_at = NULL WHERE episode_id = $1 AND step_number = 1`, [episodeId]);
    try {
      expect(await verifyLedger()).toMatchObject({ ok: false, problem: 'step-mismatch', firstBadSeq: String(seq) });
    } finally {
      await sql(`UPDATE steps SET observation = NULL, forgotten_at = now() WHERE episode_id = $1 AND step_number = 1`, [episodeId]);
    }
    expect(await verifyLedger()).toMatchObject({ ok: true, stepsForgotten: 3 });
  });

  it('what a forgotten step keeps (kind, tokens, cost, ...) stays covered by its keptHash: an edit is a step-mismatch for verifyLedger and episodic verify', {
    timeout: CLI_BUDGET_MS,
  }, async () => {
    const seq = await loggedSeqOf(3);
    const [event] = (await sql(`SELECT payload FROM ledger_events WHERE episode_id = $1 AND type = 'steps.forgotten' ORDER BY seq DESC LIMIT 1`, [episodeId]))
      .rows;
    expect(event.payload.steps).toEqual([{ n: 3, hash: expect.any(String), keptHash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    const bundle = JSON.parse(await readFile(await bundleFile('kept-members'), 'utf8'));
    expect(bundle.steps[2]).toEqual({
      stepNumber: 3,
      forgotten: true,
      kept: { episodeId, kind: 'llm_call', resultKind: null, latencyMs: null, tokens: 7, cost: 0, sideEffectKey: null },
    });
    await sql('UPDATE steps SET tokens = 70000 WHERE episode_id = $1 AND step_number = 3', [episodeId]);
    try {
      expect(await verifyLedger()).toMatchObject({ ok: false, problem: 'step-mismatch', firstBadSeq: String(seq) });
      expect((await verifyLedger()).reason).toMatch(/what it keeps .* differs from its steps.forgotten event's keptHash/);
      const offline = await verifyOffline(await bundleFile('kept-edited'));
      expect(offline.code).toBe(3);
      expect(JSON.parse(offline.out).problems).toEqual([expect.objectContaining({ seq, stepNumber: 3, problem: 'step-mismatch' })]);
    } finally {
      await sql('UPDATE steps SET tokens = 7 WHERE episode_id = $1 AND step_number = 3', [episodeId]);
    }
    expect(await verifyLedger()).toMatchObject({ ok: true, stepsForgotten: 3 });
  });

  it('content removed without a steps.forgotten event is still a step-mismatch, for verifyLedger and episodic verify', { timeout: CLI_BUDGET_MS }, async () => {
    const other = await t.gql(
      'mutation { startEpisode(input: { taskDescription: "kept", taskType: "audit" }) { ... on StartEpisodePayload { episode { id } } } }',
    );
    const keptId = other.data.startEpisode.episode.id;
    await t.gql('mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { __typename } }', {
      e: keptId,
      s: [{ kind: 'tool_call', tool: 'x' }],
    });
    await t.services.checkpoints.publish(t.keys.tenantId);
    const seq = Number((await sql(`SELECT seq FROM ledger_events WHERE episode_id = $1 AND type = 'steps.logged'`, [keptId])).rows[0].seq);
    await sql(`UPDATE steps SET tool = NULL, salt = NULL, forgotten_at = now() WHERE episode_id = $1`, [keptId]);
    try {
      expect(await verifyLedger()).toMatchObject({ ok: false, problem: 'step-mismatch', firstBadSeq: String(seq) });
    } finally {
      await sql(`UPDATE steps SET tool = 'x', forgotten_at = NULL WHERE episode_id = $1`, [keptId]);
    }
    // A bundle whose kept step is replaced by a forgotten row, with no steps.forgotten event for it.
    const saved = episodeId;
    episodeId = keptId;
    const file = await bundleFile('kept');
    episodeId = saved;
    const bundle = JSON.parse(await readFile(file, 'utf8'));
    bundle.steps = [{ stepNumber: 1, forgotten: true }];
    await writeFile(file, JSON.stringify(bundle));
    const offline = await verifyOffline(file);
    expect(offline.code).toBe(3);
    expect(JSON.parse(offline.out).problems).toEqual([expect.objectContaining({ seq, stepNumber: 1, problem: 'step-mismatch' })]);
    // The forgotten episode's step 1 logged hash still leads to the signed root (its inclusion proof).
    const proof = await t.gql('query($s: BigInt!) { inclusionProof(seq: $s) { __typename } }', { s: String(await loggedSeqOf(1)) });
    expect(proof.data.inclusionProof.__typename).toBe('InclusionProof');
  });
});
