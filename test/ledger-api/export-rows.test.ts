// An export to the head carries the values its events hash (docs/LEDGER.md §3.3, §6.2), so
// `episodic verify`, with no database, recomputes every one: a checkpoint state, an outcome, a
// critique, a reward, a reflection or a retrieval's results edited in the database fails a fresh
// export's check at the event that hashed it.
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

const run = promisify(execFile);
/** A CLI command's share of a test's budget: a Node process started, then an export or a verify, on a loaded 2-core machine. */
const COMMAND_BUDGET_MS = 20_000;
let t: TestApp;
let episodeId: string;
let key: string;
let dir: string;

const cli = (args: string[]) =>
  run(process.execPath, ['bin/episodic.mjs', ...args]).then(
    (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
    (e) => ({ code: e.code as number, out: e.stdout as string, err: e.stderr as string }),
  );

/** A fresh export, verified offline. */
async function exportAndVerify(name: string) {
  const file = join(dir, `${name}.jsonl`);
  const exported = await cli(['export', '--url', t.url, '--key', t.keys.read, '--output', file]);
  expect(exported.code, exported.err).toBe(0);
  return cli(['verify', '--public-key', key, '--json', file]);
}

const seqOf = async (type: string) =>
  Number((await t.services.db.pool.query('SELECT max(seq) AS s FROM ledger_events WHERE tenant_id = $1 AND type = $2', [t.keys.tenantId, type])).rows[0].s);

beforeAll(async () => {
  t = await startTestApp({ CHECKPOINT_EVERY_EVENTS: '1000000', CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' });
  dir = await mkdtemp(join(tmpdir(), 'episodic-rows-'));
  key = (await t.gql('{ ledgerPublicKey { publicKey } }')).data.ledgerPublicKey.publicKey;
  const started = await t.gql(
    'mutation { startEpisode(input: { taskDescription: "rows travel with the export", taskType: "audit" }) { ... on StartEpisodePayload { episode { id } } } }',
  );
  episodeId = started.data.startEpisode.episode.id;
  await t.gql('mutation($e: ID!) { logStep(episodeId: $e, step: { tool: "bash" }) { __typename } }', { e: episodeId });
  await t.gql('mutation($e: ID!) { saveCheckpoint(episodeId: $e, label: "mid", state: { cursor: 3 }) { __typename } }', { e: episodeId });
  await t.gql('query { relevantEpisodes(task: { description: "rows travel" }) { __typename } }');
  await t.gql('mutation($e: ID!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, verdict: "done" }) { __typename } }', { e: episodeId });
  await t.gql('mutation($e: ID!) { recordCritique(episodeId: $e, verdict: "good", score: 0.8) { __typename } }', { e: episodeId });
  await t.services.checkpoints.publish(t.keys.tenantId);
});
afterAll(() => t.stop());

describe('an export carries the values its events hash', () => {
  it('verifies them offline', { timeout: 2 * COMMAND_BUDGET_MS }, async () => {
    const ok = await exportAndVerify('intact');
    expect(ok.code, ok.err).toBe(0);
    // record, outcome, critique, reward, reflection, the checkpoint state and the retrieval's results; the served
    // copies (§3.3): reward_score, the context pack, the retrieval's results_hash
    expect(JSON.parse(ok.out)).toMatchObject({ ok: true, rowsChecked: 10 });
  });

  const edits = [
    ['checkpoint state', `UPDATE checkpoints SET state = '{"cursor": 4}' WHERE episode_id = $1`, 'checkpoint.saved'],
    ['outcome', `UPDATE episodes SET outcome = jsonb_set(outcome, '{verdict}', '"forged"') WHERE id = $1`, 'episode.completed'],
    ['critique', `UPDATE episodes SET critique = jsonb_set(critique, '{verdict}', '"bad"') WHERE id = $1`, 'critique.recorded'],
    ['reward', `UPDATE episodes SET reward = jsonb_set(reward, '{normalized}', '1') WHERE id = $1`, 'critique.recorded'],
    ['reflection', `UPDATE episodes SET reflection = jsonb_set(reflection, '{forged}', 'true') WHERE id = $1`, 'critique.recorded'],
    ['retrieval results', `UPDATE retrievals SET episode_ids = array_append(episode_ids, $1::uuid)`, 'retrieval.served'],
  ] as const;

  for (const [what, edit, type] of edits) {
    it(`fails on an edited ${what}, at the event that hashed it`, { timeout: 2 * COMMAND_BUDGET_MS }, async () => {
      const pool = t.services.db.pool;
      const episode = (await pool.query('SELECT outcome, critique, reward, reflection FROM episodes WHERE id = $1', [episodeId])).rows[0];
      const state = (await pool.query('SELECT state FROM checkpoints WHERE episode_id = $1', [episodeId])).rows[0].state;
      const served = (await pool.query('SELECT id, episode_ids FROM retrievals')).rows;
      await pool.query(edit, [episodeId]);
      try {
        const caught = await exportAndVerify(what.replace(' ', '-'));
        expect(caught.code).toBe(3);
        expect(caught.err).toMatch(new RegExp(`seq ${await seqOf(type)}: row-mismatch`));
      } finally {
        await pool.query('UPDATE episodes SET outcome = $2, critique = $3, reward = $4, reflection = $5 WHERE id = $1', [
          episodeId,
          episode.outcome,
          episode.critique,
          episode.reward,
          episode.reflection,
        ]);
        await pool.query('UPDATE checkpoints SET state = $2 WHERE episode_id = $1', [episodeId, JSON.stringify(state)]);
        for (const r of served) await pool.query('UPDATE retrievals SET episode_ids = $2 WHERE id = $1', [r.id, r.episode_ids]);
      }
    });
  }
});
