// Retention (STEP_RETENTION_DAYS, docs/LEDGER.md §3.4), through the real server: a sweep forgets
// the step content of runs that ended more than the period ago, each with a steps.forgotten event
// that names the setting, and leaves runs still inside it (or still going) alone; the ledger and
// the bundles still verify, reporting the steps as forgotten.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromHex } from '../../src/ledger/format/hash.ts';
import { verifyProofBundle } from '../../src/ledger/proofs/bundle.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
const sql = (text: string, values: unknown[] = []) => t.services.db.pool.query(text, values);

async function run(task: string, end: boolean): Promise<string> {
  const started = await t.gql(
    'mutation($d: String!) { startEpisode(input: { taskDescription: $d, taskType: "audit" }) { ... on StartEpisodePayload { episode { id } } } }',
    {
      d: task,
    },
  );
  const id = started.data.startEpisode.episode.id;
  await t.gql('mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { __typename } }', {
    e: id,
    s: [
      { kind: 'tool_call', tool: 'shell', observation: `customer data of ${task}` },
      { kind: 'llm_call', observation: 'more' },
    ],
  });
  if (end) await t.gql('mutation($e: ID!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, verdict: "done" }) { __typename } }', { e: id });
  return id;
}

beforeAll(async () => {
  t = await startTestApp({
    CHECKPOINT_EVERY_EVENTS: '1000000',
    CHECKPOINT_INTERVAL_MS: '3600000',
    LEARNING_WORKERS: '0',
    STEP_RETENTION_DAYS: '30',
    RETENTION_SWEEP_MS: '3600000',
  });
});
afterAll(() => t.stop());

describe('STEP_RETENTION_DAYS', () => {
  it('forgets the step content of runs ended before the period, recorded as the setting, and nothing else', async () => {
    const old = await run('old run', true);
    const recent = await run('recent run', true);
    const going = await run('running run', false);
    // The old run ended 40 days ago (ended_at is a derived time, §3.3; the events keep the real ones).
    await sql(`UPDATE episodes SET ended_at = now() - interval '40 days' WHERE id = $1`, [old]);
    expect(await t.services.retention.sweep()).toEqual({ runs: 1, steps: 2, episodes: 0 });
    const { rows } = await sql('SELECT episode_id, observation, forgotten_at FROM steps WHERE tenant_id = $1 ORDER BY episode_id, step_number', [
      t.keys.tenantId,
    ]);
    for (const row of rows) {
      if (row.episode_id === old) expect(row).toMatchObject({ observation: null, forgotten_at: expect.any(Date) });
      else expect(row.observation).not.toBeNull();
    }
    expect(rows.filter((r) => r.episode_id === recent || r.episode_id === going)).toHaveLength(4);
    const events = (await sql(`SELECT episode_id, payload FROM ledger_events WHERE tenant_id = $1 AND type = 'steps.forgotten'`, [t.keys.tenantId])).rows;
    expect(events).toHaveLength(1);
    expect(events[0].episode_id).toBe(old);
    expect(events[0].payload).toMatchObject({ reason: 'retention: the run ended more than 30 days ago', byRetention: { days: 30 } });
    expect(events[0].payload.steps.map((s: { n: number }) => s.n)).toEqual([1, 2]);
    // A second sweep finds nothing more to forget.
    expect(await t.services.retention.sweep()).toEqual({ runs: 0, steps: 0, episodes: 0 });

    await t.services.checkpoints.publish(t.keys.tenantId);
    const verified = (await t.gql('{ verifyLedger { ... on LedgerVerification { ok stepsChecked stepsForgotten problem reason } } }')).data.verifyLedger;
    expect(verified).toMatchObject({ ok: true, stepsChecked: 6, stepsForgotten: 2 });
    const key = (await t.gql('{ ledgerPublicKey { publicKey } }')).data.ledgerPublicKey.publicKey;
    const bundle = (await t.gql('query($e: ID!) { episodeProofBundle(episodeId: $e) { ... on EpisodeProofBundle { bundle } } }', { e: old })).data
      .episodeProofBundle.bundle;
    expect(verifyProofBundle(bundle, fromHex(key, 32))).toMatchObject({ ok: true, stepsChecked: 0, stepsForgotten: 2 });
  });
});
