// verifyLedger against tampering its tests did not reach before: an edit to any hashed column of
// a step row (each column on its own), and a rewrite of history that re-links the hash chain so
// that only the signed checkpoint's Merkle root can tell.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { chainHash } from '../../src/ledger/format/hash.ts';
import { readEvents } from '../../src/ledger/store/read.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
const pool = () => t.services.db.pool;

beforeAll(async () => {
  t = await startTestApp({ CHECKPOINT_EVERY_EVENTS: '1000000', CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' });
});
afterAll(() => t.stop());

const VERIFY = '{ verifyLedger { ... on LedgerVerification { ok checked stepsChecked firstBadSeq problem reason } } }';
const verify = async () => (await t.gql(VERIFY)).data.verifyLedger;

/** A step with every optional field set, so that an edit to any column changes a stored value (times are set when logged). */
const FULL_STEP = {
  kind: 'tool_call',
  tool: 'bash',
  action: 'ls -la',
  parameters: { dir: '/src', apiKey: 'secret' },
  result: { kind: 'SUCCESS', output: 'a.ts b.ts' },
  observation: 'two files',
  latencyMs: 12,
  tokens: 30,
  cost: 0.25,
  sideEffectKey: 'ls-1',
  worldBefore: { cwd: '/' },
  worldAfter: { cwd: '/src' },
  metadata: { attempt: 1 },
};

/** An episode with these steps (a function: called once the episode has started, for times within it). */
async function episodeWith(stepsOf: () => object[]): Promise<string> {
  const started = await t.gql(
    'mutation { startEpisode(input: { taskDescription: "tamper coverage", taskType: "audit" }) { ... on StartEpisodePayload { episode { id } } } }',
  );
  const id = started.data.startEpisode.episode.id;
  const steps = stepsOf();
  const logged = await t.gql(
    'mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { __typename ... on InputLimitError { message } ... on LogStepsPayload { results { status reason message } } } }',
    { e: id, s: steps },
  );
  expect(
    logged.data.logSteps.results?.map((i: { status: string }) => i.status),
    JSON.stringify(logged),
  ).toEqual(steps.map(() => 'ACCEPTED'));
  await t.gql('mutation($e: ID!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, verdict: "done", artifacts: [] }) { __typename } }', { e: id });
  return id;
}

/** Columns of `steps` that no content hash covers, each with the reason. Any other column must be caught. */
const UNHASHED = {
  id: 'a surrogate key; steps are found by (episode_id, step_number)',
  tenant_id: 'the episode carries the tenant; the hash binds the episode id',
  content_hash: 'a cache of the hash; the steps.logged event holds the one compared',
  size_bytes: 'an accounting figure derived from the input, not content',
  created_at: 'server time, not part of what the agent logged',
  forgotten_at: 'a marker: a row is accepted without its content only where a steps.forgotten event names it (§3.4), whatever this says',
};

/** An SQL expression that changes the column's value, by its type. */
function changed(column: string, type: string): string {
  if (column === 'step_number') return `${column} + 100`;
  if (type === 'jsonb') return `jsonb_build_object('forged', true)`;
  if (type === 'integer' || type === 'bigint' || type === 'double precision') return `${column} + 1`;
  if (type.startsWith('timestamp')) return `${column} - interval '1 second'`;
  if (column === 'episode_id') return `(SELECT id FROM episodes WHERE id <> steps.episode_id LIMIT 1)`;
  return `${column} || 'x'`;
}

describe('a step row edited in any hashed column', () => {
  it('is reported at the steps.logged event that covers it, one column at a time', async () => {
    const episodeId = await episodeWith(() => {
      const ranAt = new Date().toISOString();
      const timed = { ...FULL_STEP, startedAt: ranAt, endedAt: ranAt };
      return [timed, { ...timed, sideEffectKey: 'ls-2', action: 'ls -la /src' }];
    });
    await episodeWith(() => [{ tool: 'other' }]); // a second episode, for the moved-row edit
    const {
      rows: [event],
    } = await pool().query(`SELECT seq FROM ledger_events WHERE tenant_id = $1 AND type = 'steps.logged' AND episode_id = $2`, [t.keys.tenantId, episodeId]);
    const {
      rows: [row],
    } = await pool().query('SELECT to_jsonb(s) AS row FROM steps s WHERE episode_id = $1 AND step_number = 2', [episodeId]);
    // Every column holds a value, except content_refs (set only for fields offloaded as blobs) and
    // forgotten_at (set when forgotten): an edit that fills content_refs in must be caught all the same.
    for (const [column, value] of Object.entries(row.row))
      if (column !== 'content_refs' && column !== 'forgotten_at') expect({ column, value }).not.toMatchObject({ value: null });
    expect(await verify()).toMatchObject({ ok: true, stepsChecked: 3 });

    const { rows: columns } = await pool().query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'steps' ORDER BY ordinal_position`,
    );
    const hashed = columns.filter((c) => !(c.column_name in UNHASHED));
    expect(columns.length - hashed.length).toBe(Object.keys(UNHASHED).length);
    expect(hashed.length).toBeGreaterThanOrEqual(16);
    const caught: string[] = [];
    for (const { column_name: column, data_type: type } of hashed) {
      await pool().query(`UPDATE steps SET ${column} = ${changed(column, type)} WHERE id = $1`, [row.row.id]);
      try {
        const report = await verify();
        if (report.ok === false && report.problem?.startsWith('step-') && report.firstBadSeq === String(event.seq)) caught.push(column);
      } finally {
        await pool().query(`UPDATE steps s SET ${column} = r.${column} FROM jsonb_populate_record(null::steps, $1::jsonb) r WHERE s.id = r.id`, [row.row]);
      }
    }
    expect(caught).toEqual(hashed.map((c) => c.column_name));
    expect(await verify()).toMatchObject({ ok: true, stepsChecked: 3 });
  });
});

describe('a rewritten history that keeps the hash chain valid', () => {
  it('is caught by the signed checkpoint', async () => {
    await episodeWith(() => [{ tool: 'a' }]);
    await t.services.checkpoints.publish(t.keys.tenantId);
    const {
      rows: [head],
    } = await pool().query('SELECT seq FROM ledger_heads WHERE tenant_id = $1', [t.keys.tenantId]);
    const size = Number(head.seq);
    expect(await verify()).toMatchObject({ ok: true, checked: size });

    // Change the last completion's verdict and re-link every later event, as an insider with
    // write access to the tables (but not the signing key) would.
    const events = await readEvents(pool(), t.keys.tenantId, { afterSeq: 0, limit: size });
    const target = events.findLast((e) => e.type === 'episode.completed');
    expect(target).toBeDefined();
    let prevHash = must(events[must(target).seq - 2]).hash;
    for (const e of events.slice(must(target).seq - 1)) {
      const payload = e.seq === must(target).seq ? { ...(e.payload as object), verdict: 'rewritten' } : e.payload;
      const hash = chainHash(prevHash, { ...e, payload });
      await pool().query('UPDATE ledger_events SET payload = $3, prev_hash = $4, hash = $5 WHERE tenant_id = $1 AND seq = $2', [
        t.keys.tenantId,
        e.seq,
        JSON.stringify(payload),
        prevHash,
        hash,
      ]);
      prevHash = hash;
    }
    await pool().query('UPDATE ledger_heads SET hash = $2 WHERE tenant_id = $1', [t.keys.tenantId, prevHash]);

    // The signed checkpoint catches it at its last event: the head hash it signed no longer matches
    // (or, were that check skipped, the Merkle root over the events does not).
    const report = await verify();
    expect(report).toMatchObject({ ok: false, firstBadSeq: String(size) });
    expect(['head-hash-mismatch', 'root-mismatch']).toContain(report.problem);
  });
});
