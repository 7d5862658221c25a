// Values the API serves that no hash covered before (issue 52), each edited in PostgreSQL and named
// at its event: the episode's stored task, context, goal and metadata (episode.started recordHash),
// reward_score (derived from the hashed reward), context_pack_hash and manifest_hash, a retrieval's
// results_hash, and a blob's bytes. verifyLedger names each, and so does `episodic verify` on a
// fresh export (its row lines: the record, and the served copies of §3.3) or on the bundle (blobs,
// and the episode's served copies).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { cli, sqlOn } from '../support/ledger-cli.ts';

/** The record test's budget from its work: eight CLI commands (the intact pair, three edits each exported and verified), up to 10 s each on a loaded 2-core machine. */
const RECORD_BUDGET_MS = 9 * 10_000;
/** The blob test's: four CLI commands (two bundles exported and verified), up to 10 s each. */
const BLOB_BUDGET_MS = 4 * 10_000;
/** A served copy's: an export and a bundle, each made and verified, up to 10 s per command. */
const COPY_BUDGET_MS = 5 * 10_000;
let t: TestApp;
let key: string;
let dir: string;
let episodeId: string;

/** `episodic` in this process (the binary's own code, runCli, without a Node start per command). */
const sql = sqlOn(() => t);
const VERIFY = '{ verifyLedger { ... on LedgerVerification { ok firstBadSeq problem reason } } }';
const verifyLedger = async () => (await t.gql(VERIFY)).data.verifyLedger;
const seqOf = async (type: string) =>
  Number((await sql('SELECT max(seq) AS s FROM ledger_events WHERE tenant_id = $1 AND type = $2', [t.keys.tenantId, type])).rows[0].s);

async function exportAndVerify(name: string) {
  const file = join(dir, `${name}.jsonl`);
  const exported = await cli(['export', '--url', t.url, '--key', t.keys.read, '--output', file]);
  expect(exported.code, exported.err).toBe(0);
  return cli(['verify', '--public-key', key, '--json', file]);
}

/** The episode's bundle (episodic export --episode), verified offline. */
async function bundleVerified(name: string) {
  const file = join(dir, `${name}.json`);
  const exported = await cli(['export', '--url', t.url, '--key', t.keys.read, '--episode', episodeId, '--output', file]);
  expect(exported.code, exported.err).toBe(0);
  return cli(['verify', '--public-key', key, '--json', file]);
}

type Offline = 'export' | 'bundle';

/** Applies the edit, expects each verifier's verdict (verifyLedger, and `episodic verify` on each file named), and restores the rows. */
async function caught(edit: string, restore: string, expected: { type: string; problem: string; offline: Offline[] }) {
  await sql(edit, [episodeId]);
  try {
    const seq = await seqOf(expected.type);
    expect(await verifyLedger()).toMatchObject({ ok: false, problem: expected.problem, firstBadSeq: String(seq) });
    if (expected.offline.includes('bundle')) {
      const offline = await bundleVerified(expected.type);
      expect(offline.code).toBe(3);
      expect(JSON.parse(offline.out).problems).toEqual([expect.objectContaining({ seq, problem: expected.problem })]);
    }
    if (expected.offline.includes('export')) {
      const offline = await exportAndVerify(expected.type);
      expect(offline.code).toBe(3);
      expect(offline.err).toMatch(new RegExp(`seq ${seq}: ${expected.problem}`));
    }
  } finally {
    await sql(restore, [episodeId]);
  }
  expect(await verifyLedger()).toMatchObject({ ok: true });
}

beforeAll(async () => {
  t = await startTestApp({ CHECKPOINT_EVERY_EVENTS: '1000000', CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' });
  dir = await mkdtemp(join(tmpdir(), 'episodic-served-'));
  key = (await t.gql('{ ledgerPublicKey { publicKey } }')).data.ledgerPublicKey.publicKey;
  const started = await t.gql(
    `mutation { startEpisode(input: { taskDescription: "the real task", taskType: "audit", goalSpec: { tests: "pass" }, metadata: { team: "core" },
       context: { language: "python", tags: ["a"] }, contextPack: { packHash: "${'a'.repeat(64)}", manifestHash: "${'b'.repeat(64)}" } }) {
       ... on StartEpisodePayload { episode { id } } ... on Error { message } } }`,
  );
  episodeId = started.data.startEpisode.episode.id;
  const logged = await t.gql(
    'mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s, options: { largeContent: BLOB }) { __typename ... on LogStepsPayload { results { status } } } }',
    { e: episodeId, s: [{ kind: 'tool_call', tool: 'bash', observation: 'line of output\n'.repeat(2_000) }] },
  );
  expect(logged.data.logSteps.results).toEqual([{ status: 'ACCEPTED' }]);
  await t.gql('query { relevantEpisodes(task: { description: "the real task" }) { __typename } }');
  await t.gql('mutation($e: ID!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, verdict: "done" }) { __typename } }', { e: episodeId });
  await t.services.checkpoints.publish(t.keys.tenantId);
  expect(await verifyLedger()).toMatchObject({ ok: true });
});
afterAll(() => t.stop());

describe('a served value edited in PostgreSQL', () => {
  it('the stored task, context, goal or metadata: row-mismatch at episode.started, for verifyLedger and episodic verify', {
    timeout: RECORD_BUDGET_MS,
  }, async () => {
    const intact = await exportAndVerify('intact');
    expect(intact.code, intact.err).toBe(0);
    // record, outcome, reward, reflection, the retrieval results; the copies reward_score, context pack, results_hash
    expect(JSON.parse(intact.out)).toMatchObject({ ok: true, rowsChecked: 8 });
    for (const [edit, restore] of [
      [`UPDATE episodes SET task_description = 'forged task' WHERE id = $1`, `UPDATE episodes SET task_description = 'the real task' WHERE id = $1`],
      [`UPDATE episodes SET metadata = '{"team": "other"}' WHERE id = $1`, `UPDATE episodes SET metadata = '{"team": "core"}' WHERE id = $1`],
      [`UPDATE episodes SET tags = '{b}' WHERE id = $1`, `UPDATE episodes SET tags = '{a}' WHERE id = $1`],
    ] as const)
      await caught(edit, restore, { type: 'episode.started', problem: 'row-mismatch', offline: ['export'] });
  });

  it("reward_score (a served copy of the ending's experience.reward): row-mismatch at the ending, in the export and the bundle", {
    timeout: COPY_BUDGET_MS,
  }, async () => {
    await caught('UPDATE episodes SET reward_score = 0.999 WHERE id = $1', `UPDATE episodes SET reward_score = (reward->>'normalized')::float8 WHERE id = $1`, {
      type: 'episode.completed',
      problem: 'row-mismatch',
      offline: ['export', 'bundle'],
    });
  });

  it('context_pack_hash or manifest_hash: row-mismatch at episode.started, in the export and the bundle', { timeout: 2 * COPY_BUDGET_MS }, async () => {
    for (const column of ['context_pack_hash', 'manifest_hash']) {
      const [row] = (await sql(`SELECT ${column} AS v FROM episodes WHERE id = $1`, [episodeId])).rows;
      await caught(`UPDATE episodes SET ${column} = '${'c'.repeat(64)}' WHERE id = $1`, `UPDATE episodes SET ${column} = '${row.v}' WHERE id = $1`, {
        type: 'episode.started',
        problem: 'row-mismatch',
        offline: ['export', 'bundle'],
      });
    }
  });

  it("a retrieval's results_hash: row-mismatch at retrieval.served, in the export", { timeout: COPY_BUDGET_MS }, async () => {
    const [served] = (await sql('SELECT id, results_hash FROM retrievals WHERE tenant_id = $1', [t.keys.tenantId])).rows;
    await caught(
      `UPDATE retrievals SET results_hash = '${'d'.repeat(64)}' WHERE id = '${served.id}' AND $1::uuid IS NOT NULL`,
      `UPDATE retrievals SET results_hash = '${served.results_hash}' WHERE id = '${served.id}' AND $1::uuid IS NOT NULL`,
      { type: 'retrieval.served', problem: 'row-mismatch', offline: ['export'] },
    );
  });

  it("a blob's bytes: step-mismatch at the steps.logged event of the step that references it, for verifyLedger and episodic verify on the bundle", {
    timeout: BLOB_BUDGET_MS,
  }, async () => {
    const intact = await bundleVerified('blob-intact');
    expect(intact.code, intact.out).toBe(0);
    await caught(
      `UPDATE blobs SET content = 'forged' || content WHERE tenant_id = (SELECT tenant_id FROM episodes WHERE id = $1)`,
      `UPDATE blobs SET content = substr(content, 7) WHERE tenant_id = (SELECT tenant_id FROM episodes WHERE id = $1)`,
      { type: 'steps.logged', problem: 'step-mismatch', offline: ['bundle'] },
    );
  });
});
