// Forgetting whole runs (issue 52, docs/LEDGER.md §3.4), through the real server: an admin's
// forgetEpisode, and RUN_RETENTION_DAYS for a tenant's runs past the period, delete a run's record
// texts, outcome, critique, reward, reflection, checkpoint states, step content, blobs, index
// entries and patterns, in the transaction of a steps.forgotten and an episode.forgotten event
// naming each value with its hash and who asked. Afterwards the chain, bundles and the export still
// verify and every verifier (verifyLedger, `episodic verify` on a bundle and on an export) reports
// the run as forgotten; retrieval and the monitor's lists no longer show it; a value written back
// into a forgotten run, or deleted without the event, is a row-mismatch naming the claiming event.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { cli, sqlOn } from '../support/ledger-cli.ts';

/** Budget from the work: up to ten CLI commands (exports and verifies), up to 10 s each on a loaded 2-core machine. */
const CLI_BUDGET_MS = 10 * 10_000;
const SECRET = 'zebracustomerquokka';
let t: TestApp;
let key: string;
let dir: string;

const sql = sqlOn(() => t);
const VERIFY = '{ verifyLedger { ... on LedgerVerification { ok checked stepsChecked stepsForgotten rowsChecked rowsForgotten firstBadSeq problem reason } } }';
const verifyLedger = async () => (await t.gql(VERIFY)).data.verifyLedger;
const FORGET = `mutation($e: ID!, $r: String!) { forgetEpisode(episodeId: $e, reason: $r) {
  __typename ... on ForgetEpisodePayload { episodeId forgotten stepsForgotten blobsDeleted rowsForgotten } ... on Error { message } } }`;
const verifyOffline = (file: string) => cli(['verify', '--public-key', key, '--json', file]);
const seqOf = async (episodeId: string, type: string) =>
  Number((await sql('SELECT max(seq) AS seq FROM ledger_events WHERE episode_id = $1 AND type = $2', [episodeId, type])).rows[0].seq);

/** A run that leaves every kind of value: record texts, a checkpoint, steps with a blob, an outcome, a critique, patterns. */
async function run(task: string, end = true): Promise<string> {
  const started = await t.gql(
    `mutation($d: String!, $m: JSON!, $g: JSON!) { startEpisode(input: { taskDescription: $d, taskType: "audit", metadata: $m, goalSpec: $g,
       context: { domain: "billing", language: "python", tags: ["refunds"] } }) { ... on StartEpisodePayload { episode { id } } ... on Error { message } } }`,
    { d: task, m: { customer: task }, g: { aim: task } },
  );
  const id = started.data.startEpisode.episode.id;
  const log = (steps: unknown[], options: unknown = {}) =>
    t.gql('mutation($e: ID!, $s: [StepInput!]!, $o: LogStepsOptions) { logSteps(episodeId: $e, steps: $s, options: $o) { __typename } }', {
      e: id,
      s: steps,
      o: options,
    });
  await log([{ kind: 'tool_call', tool: 'shell', action: `grep ${task}`, observation: `found: ${task}`, result: { kind: 'SUCCESS', output: 'ok' } }]);
  await log([{ kind: 'tool_call', tool: 'shell', observation: `${task}\n`.repeat(2_000) }], { largeContent: 'BLOB' });
  await t.gql('mutation($e: ID!, $s: JSON!) { saveCheckpoint(episodeId: $e, state: $s, label: "half") { __typename } }', { e: id, s: { note: task } });
  if (!end) return id;
  await t.gql('mutation($e: ID!, $d: String!) { recordCritique(episodeId: $e, verdict: "good", feedback: $d, score: 0.9) { __typename } }', { e: id, d: task });
  const done = await t.gql(
    'mutation($e: ID!, $d: String!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, verdict: $d }, extractPatterns: SYNC) { __typename } }',
    { e: id, d: task },
  );
  expect(done.data.completeEpisode.__typename).toBe('FinishEpisodePayload');
  return id;
}

const retrieved = async (task: string): Promise<string[]> => {
  const r = await t.gql(
    'query($d: String!) { relevantEpisodes(task: { description: $d }, limit: 20, includeFailures: true) { ... on RelevantEpisodes { episodes { episode { id } } warnings { episode { id } } } } }',
    { d: task },
  );
  const page = r.data.relevantEpisodes;
  return [...page.episodes, ...page.warnings].map((e: { episode: { id: string } }) => e.episode.id);
};
const listed = async (): Promise<string[]> =>
  (await t.gql('{ episodes(first: 100) { edges { node { id } } } }')).data.episodes.edges.map((e: { node: { id: string } }) => e.node.id);

async function exportFile(name: string, episodeId?: string): Promise<string> {
  const file = join(dir, `${name}.json${episodeId ? '' : 'l'}`);
  const args = ['export', '--url', t.url, '--key', t.keys.read, '--output', file, ...(episodeId ? ['--episode', episodeId] : [])];
  const exported = await cli(args);
  expect(exported.code, exported.err).toBe(0);
  return file;
}

let forgotten: string;
let kept: string;

beforeAll(async () => {
  t = await startTestApp({
    CHECKPOINT_EVERY_EVENTS: '1000000',
    CHECKPOINT_INTERVAL_MS: '3600000',
    LEARNING_WORKERS: '0',
    RUN_RETENTION_DAYS: '30',
    RETENTION_SWEEP_MS: '3600000',
  });
  dir = await mkdtemp(join(tmpdir(), 'episodic-forget-episode-'));
  key = (await t.gql('{ ledgerPublicKey { publicKey } }')).data.ledgerPublicKey.publicKey;
  forgotten = await run(`refund invoice for ${SECRET} account`);
  kept = await run('refund invoice for another account');
  await t.services.checkpoints.publish(t.keys.tenantId);
  expect(await verifyLedger()).toMatchObject({ ok: true, rowsForgotten: 0 });
  expect(await retrieved(`refund invoice ${SECRET}`)).toContain(forgotten);
  // What forgetting must remove is there: its observations of patterns, its words in the index.
  expect((await sql('SELECT count(*)::int AS n FROM pattern_episodes WHERE episode_id = $1', [forgotten])).rows[0].n).toBeGreaterThan(0);
  expect((await sql('SELECT count(*)::int AS n FROM episode_term_df WHERE tenant_id = $1 AND term = $2', [t.keys.tenantId, SECRET])).rows[0].n).toBeGreaterThan(
    0,
  );
  expect((await sql('SELECT count(*)::int AS n FROM blobs WHERE tenant_id = $1', [t.keys.tenantId])).rows[0].n).toBe(2);
});
afterAll(() => t.stop());

describe('forgetEpisode', () => {
  it('is refused to a key without the admin scope, and for a run still going', async () => {
    const refused = await t.gql(FORGET, { e: forgotten, r: 'deletion request' }, t.keys.write);
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const going = await run('still going', false);
    const running = await t.gql(FORGET, { e: going, r: 'deletion request' });
    expect(running.data.forgetEpisode).toMatchObject({ __typename: 'IllegalTransitionError' });
    expect(running.data.forgetEpisode.message).toMatch(/running: end it first/);
    await t.gql('mutation($e: ID!) { cancelEpisode(episodeId: $e) { __typename } }', { e: going });
    const long = await t.gql(FORGET, { e: forgotten, r: 'x'.repeat(501) });
    expect(long.data.forgetEpisode.message).toMatch(/reason is 501 characters; the limit is 500 characters/);
  });

  it("deletes the run's texts, values, checkpoints, steps, blob, index entries and patterns, and records each with who asked", async () => {
    const adminKeyId = (await t.gql('{ viewerKey { id } }')).data.viewerKey.id;
    const result = await t.gql(FORGET, { e: forgotten, r: 'customer deletion request' });
    expect(result.data.forgetEpisode).toEqual({
      __typename: 'ForgetEpisodePayload',
      episodeId: forgotten,
      forgotten: true,
      stepsForgotten: [1, 2],
      blobsDeleted: 1,
      rowsForgotten: 6, // record, outcome, critique, reward, reflection, one checkpoint state
    });
    // Nothing of the run's text is left in any table of the tenant.
    for (const table of ['episodes', 'steps', 'checkpoints', 'blobs', 'patterns', 'episode_terms', 'episode_term_df', 'episode_files']) {
      const { rows } = await sql(`SELECT to_jsonb(x)::text AS row FROM ${table} x WHERE tenant_id = $1`, [t.keys.tenantId]);
      expect(rows.filter((r) => r.row.includes(SECRET)).map((r) => `${table}: ${r.row.slice(0, 200)}`)).toEqual([]);
    }
    expect((await sql('SELECT count(*)::int AS n FROM pattern_episodes WHERE episode_id = $1', [forgotten])).rows[0].n).toBe(0);
    expect((await sql('SELECT count(*)::int AS n FROM checkpoints WHERE episode_id = $1', [forgotten])).rows[0].n).toBe(0);
    const [row] = (await sql('SELECT task_description, outcome, reward, forgotten_at, status FROM episodes WHERE id = $1', [forgotten])).rows;
    expect(row).toMatchObject({ task_description: '', outcome: null, reward: null, status: 'completed' });
    expect(row.forgotten_at).toBeInstanceOf(Date);
    // The ledger names every value deleted with its hash, why, and the admin key that asked.
    const [event] = (await sql(`SELECT payload FROM ledger_events WHERE episode_id = $1 AND type = 'episode.forgotten'`, [forgotten])).rows;
    expect(event.payload).toMatchObject({ reason: 'customer deletion request', byKeyId: adminKeyId });
    expect(event.payload.rows.map((r: { kind: string }) => r.kind).sort()).toEqual([
      'checkpoint.state',
      'episode.critique',
      'episode.outcome',
      'episode.record',
      'episode.reflection',
      'episode.reward',
    ]);
    const [steps] = (await sql(`SELECT payload FROM ledger_events WHERE episode_id = $1 AND type = 'steps.forgotten'`, [forgotten])).rows;
    expect(steps.payload).toMatchObject({ reason: 'customer deletion request', byKeyId: adminKeyId });
    // Again: nothing more to forget, no event.
    expect((await t.gql(FORGET, { e: forgotten, r: 'again' })).data.forgetEpisode).toMatchObject({ forgotten: false, rowsForgotten: 0 });
    expect((await sql(`SELECT count(*)::int AS n FROM ledger_events WHERE episode_id = $1 AND type = 'episode.forgotten'`, [forgotten])).rows[0].n).toBe(1);
    // A forgotten run takes no more writes.
    const critique = await t.gql('mutation($e: ID!) { recordCritique(episodeId: $e, verdict: "late") { __typename ... on Error { message } } }', {
      e: forgotten,
    });
    expect(critique.data.recordCritique).toMatchObject({ __typename: 'IllegalTransitionError', message: expect.stringMatching(/forgotten/) });
  });

  it('is never served again: not retrieved, not listed, not among the patterns; episode(id) says it was forgotten', async () => {
    expect(await retrieved(`refund invoice ${SECRET}`)).not.toContain(forgotten);
    expect(await retrieved('refund invoice account')).toContain(kept);
    expect(await listed()).not.toContain(forgotten);
    expect(await listed()).toContain(kept);
    const patterns = await t.gql('query($e: ID!) { patterns(filter: { episodeId: $e }) { edges { node { id } } } }', { e: forgotten });
    expect(patterns.data.patterns.edges).toEqual([]);
    const served = await t.gql('query($e: ID!) { episode(id: $e) { ... on Episode { taskDescription forgottenAt outcome { kind } checkpoints { id } } } }', {
      e: forgotten,
    });
    expect(served.data.episode).toMatchObject({ taskDescription: '', outcome: null, checkpoints: [] });
    expect(served.data.episode.forgottenAt).not.toBeNull();
  });

  it('leaves a ledger every verifier accepts, reporting the run as forgotten', { timeout: CLI_BUDGET_MS }, async () => {
    await t.services.checkpoints.publish(t.keys.tenantId);
    expect(await verifyLedger()).toMatchObject({ ok: true, stepsForgotten: 2, rowsForgotten: 6 });
    const bundle = await verifyOffline(await exportFile('forgotten', forgotten));
    expect(bundle.code, bundle.err).toBe(0);
    // The context pack's hashes are not forgotten (§3.4): its row, the one checked.
    expect(JSON.parse(bundle.out)).toMatchObject({ ok: true, kind: 'bundle', signatureValid: true, stepsForgotten: 2, rowsForgotten: 6, rowsChecked: 1 });
    const exported = await verifyOffline(await exportFile('ledger'));
    expect(exported.code, exported.err).toBe(0);
    expect(JSON.parse(exported.out)).toMatchObject({ ok: true, kind: 'export', stepsForgotten: 2, rowsForgotten: 6 });
    const text = await cli(['verify', '--public-key', key, await exportFile('ledger-text')]);
    expect(text.out).toMatch(/2 steps forgotten, 6 hashed rows forgotten/);
  });

  it('a value written back into a forgotten run is a row-mismatch at its claim, for verifyLedger', async () => {
    const seq = await seqOf(forgotten, 'episode.started');
    await sql(`UPDATE episodes SET task_description = 'forged task' WHERE id = $1`, [forgotten]);
    try {
      expect(await verifyLedger()).toMatchObject({ ok: false, problem: 'row-mismatch', firstBadSeq: String(seq) });
      expect((await verifyLedger()).reason).toMatch(/was forgotten .* holds a value again/);
    } finally {
      await sql(`UPDATE episodes SET task_description = '' WHERE id = $1`, [forgotten]);
    }
    const saved = await seqOf(forgotten, 'checkpoint.saved');
    await sql(`INSERT INTO checkpoints (id, tenant_id, episode_id, step_number, state) VALUES ($1, $2, $3, 1, '{"note":"forged"}')`, [
      (await sql(`SELECT payload->'rows' AS rows FROM ledger_events WHERE episode_id = $1 AND type = 'episode.forgotten'`, [forgotten])).rows[0].rows.find(
        (r: { kind: string }) => r.kind === 'checkpoint.state',
      ).id,
      t.keys.tenantId,
      forgotten,
    ]);
    try {
      expect(await verifyLedger()).toMatchObject({ ok: false, problem: 'row-mismatch', firstBadSeq: String(saved) });
    } finally {
      await sql('DELETE FROM checkpoints WHERE episode_id = $1', [forgotten]);
    }
    expect(await verifyLedger()).toMatchObject({ ok: true, rowsForgotten: 6 });
  });

  it('values deleted without an episode.forgotten event are a row-mismatch, for verifyLedger and episodic verify', { timeout: CLI_BUDGET_MS }, async () => {
    const seq = await seqOf(kept, 'episode.started');
    const columns = 'task_description, task_type, agent, domain, language, tags, metadata, goal_spec';
    const [before] = (await sql(`SELECT ${columns} FROM episodes WHERE id = $1`, [kept])).rows;
    await sql(
      `UPDATE episodes SET task_description = '', task_type = '', agent = NULL, domain = NULL, language = NULL, tags = '{}', metadata = '{}', goal_spec = NULL WHERE id = $1`,
      [kept],
    );
    try {
      expect(await verifyLedger()).toMatchObject({ ok: false, problem: 'row-mismatch', firstBadSeq: String(seq) });
      const bundle = await verifyOffline(await exportFile('emptied', kept));
      expect(bundle.code).toBe(3);
      expect(JSON.parse(bundle.out).problems).toEqual([expect.objectContaining({ seq, problem: 'row-mismatch' })]);
    } finally {
      await sql(
        'UPDATE episodes SET task_description = $2, task_type = $3, agent = $4, domain = $5, language = $6, tags = $7, metadata = $8, goal_spec = $9 WHERE id = $1',
        [kept, before.task_description, before.task_type, before.agent, before.domain, before.language, before.tags, before.metadata, before.goal_spec],
      );
    }
    expect(await verifyLedger()).toMatchObject({ ok: true });
    // A bundle of the forgotten run whose episode.forgotten event names another hash vouches for nothing.
    const file = await exportFile('forged-event', forgotten);
    const bundle = JSON.parse(await readFile(file, 'utf8'));
    const event = bundle.events.find((e: { type: string }) => e.type === 'episode.forgotten');
    event.payload.rows[0].hash = '0'.repeat(64);
    await writeFile(file, JSON.stringify(bundle));
    const offline = await verifyOffline(file);
    expect(offline.code).toBe(3);
    expect(JSON.parse(offline.out).problems.map((p: { problem: string }) => p.problem)).toContain('hash-mismatch');
  });
});

describe('RUN_RETENTION_DAYS', () => {
  it("forgets a tenant's runs that ended before the period, recorded as the setting, and leaves the others", { timeout: CLI_BUDGET_MS }, async () => {
    const old = await run('old run past retention');
    await sql(`UPDATE episodes SET ended_at = now() - interval '40 days' WHERE id = $1`, [old]);
    const swept = await t.services.retention.sweep();
    expect(swept).toMatchObject({ episodes: 1 });
    const [event] = (await sql(`SELECT payload FROM ledger_events WHERE episode_id = $1 AND type = 'episode.forgotten'`, [old])).rows;
    expect(event.payload).toMatchObject({ reason: 'retention: the run ended more than 30 days ago', byRetention: { days: 30 } });
    expect(event.payload.byKeyId).toBeUndefined();
    expect((await sql('SELECT forgotten_at FROM episodes WHERE id = $1', [kept])).rows[0].forgotten_at).toBeNull();
    expect(await retrieved('old run past retention')).not.toContain(old);
    expect((await t.services.retention.sweep()).episodes).toBe(0);
    await t.services.checkpoints.publish(t.keys.tenantId);
    expect(await verifyLedger()).toMatchObject({ ok: true, stepsForgotten: 4, rowsForgotten: 12 });
    const exported = await verifyOffline(await exportFile('after-retention'));
    expect(JSON.parse(exported.out)).toMatchObject({ ok: true, stepsForgotten: 4, rowsForgotten: 12 });
  });
});
