// verifyLedger covers every hashed row (docs/LEDGER.md §7.5), against edits made directly in SQL:
// step rows (recomputed and their content_hash column), checkpoint states, critiques, outcomes,
// input hashes, retrievals, signed checkpoints; and JSON numbers beyond 2^53 - 1 are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash } from '../../src/ledger/format/hash.ts';
import { stepRowFromColumns, stepRowHash } from '../../src/ledger/format/step-hash.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
let episodeId: string;
const pool = () => t.services.db.pool;

const VERIFY = '{ verifyLedger { ... on LedgerVerification { ok checked stepsChecked rowsChecked checkpointsChecked firstBadSeq problem reason } } }';
const verify = async () => (await t.gql(VERIFY)).data.verifyLedger;
const head = async () => Number((await t.gql('{ ledgerHead { seq } }')).data.ledgerHead.seq);
const seqOf = async (type: string) =>
  Number((await pool().query('SELECT max(seq) AS s FROM ledger_events WHERE tenant_id = $1 AND type = $2', [t.keys.tenantId, type])).rows[0].s);

/** Applies an edit, expects verifyLedger to report it, and undoes it. */
async function expectCaught(edit: string, undo: string, params: unknown[], expected: Record<string, unknown>) {
  await pool().query(edit, params);
  try {
    expect(await verify()).toMatchObject({ ok: false, ...expected });
  } finally {
    await pool().query(undo, params);
  }
  expect(await verify()).toMatchObject({ ok: true });
}

beforeAll(async () => {
  t = await startTestApp({ CHECKPOINT_EVERY_EVENTS: '1000000', CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' });
  const started = await t.gql(
    'mutation { startEpisode(input: { taskDescription: "cover rows", taskType: "audit" }) { ... on StartEpisodePayload { episode { id } } } }',
  );
  episodeId = started.data.startEpisode.episode.id;
  const steps = [
    {
      kind: 'tool_call',
      tool: 'bash',
      action: 'run',
      parameters: { cmd: 'ls', password: 'x' },
      result: { kind: 'SUCCESS', output: 'ok' },
      latencyMs: 5,
      metadata: { n: 1.5 },
    },
    { kind: 'llm_call', tokens: 12, cost: 0.25, worldBefore: { a: [1, 2] }, worldAfter: { a: [1, 2, 3] }, observation: 'é ✓', sideEffectKey: 'k-1' },
    { kind: 'tool_call', tool: 'http', result: { kind: 'ERROR', message: 'boom', errorClass: 'E' } },
  ];
  await t.gql('mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { __typename } }', { e: episodeId, s: steps });
  await t.gql('mutation($e: ID!) { saveCheckpoint(episodeId: $e, label: "mid", state: { cursor: 3, files: ["a"] }) { __typename } }', { e: episodeId });
  await t.gql('query($d: String!) { relevantEpisodes(task: { description: $d }) { __typename } }', { d: 'cover rows' });
  await t.gql('mutation($e: ID!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, verdict: "done", artifacts: ["x.ts"] }) { __typename } }', {
    e: episodeId,
  });
  await t.gql('mutation($e: ID!) { recordCritique(episodeId: $e, verdict: "good", score: 0.8, feedback: "fine") { __typename } }', { e: episodeId });
  await t.services.checkpoints.publish(t.keys.tenantId);
});
afterAll(() => t.stop());

describe('stored step rows', () => {
  it("hash, by the spec's member list (§3.2), to their content_hash column and to their steps.logged entry", async () => {
    const { rows } = await pool().query('SELECT * FROM steps WHERE episode_id = $1 ORDER BY step_number', [episodeId]);
    const { rows: events } = await pool().query(`SELECT payload FROM ledger_events WHERE episode_id = $1 AND type = 'steps.logged'`, [episodeId]);
    const logged = new Map(events.flatMap((e) => e.payload.steps.map((s: { n: number; hash: string }) => [s.n, s.hash])));
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(stepRowHash(stepRowFromColumns(row))).toBe(row.content_hash);
      expect(logged.get(row.step_number)).toBe(row.content_hash);
    }
  });
});

describe('verifyLedger covers every hashed row', () => {
  it('verifies the untouched ledger and says what it checked', async () => {
    expect(await verify()).toMatchObject({ ok: true, checked: await head(), stepsChecked: 3, checkpointsChecked: 1 });
    // input, record, outcome, critique, reward, reflection of the episode; the checkpoint state; query and results of the
    // retrieval; the served copies (§3.3): the episode's reward_score and context pack, the retrieval's results_hash
    expect((await verify()).rowsChecked).toBe(12);
  });

  it('an edited steps.content_hash column (what the API serves) is a step-mismatch; checked counts the events before it (§7.5)', async () => {
    const seq = await seqOf('steps.logged');
    await expectCaught(
      `UPDATE steps SET content_hash = reverse(content_hash) WHERE episode_id = $1 AND step_number = 2`,
      `UPDATE steps SET content_hash = reverse(content_hash) WHERE episode_id = $1 AND step_number = 2`,
      [episodeId],
      { problem: 'step-mismatch', firstBadSeq: String(seq), checked: seq - 1 },
    );
  });

  it('an edited checkpoint state is a row-mismatch at its checkpoint.saved event', async () => {
    const seq = await seqOf('checkpoint.saved');
    await expectCaught(
      `UPDATE checkpoints SET state = jsonb_set(state, '{cursor}', '4') WHERE episode_id = $1`,
      `UPDATE checkpoints SET state = jsonb_set(state, '{cursor}', '3') WHERE episode_id = $1`,
      [episodeId],
      { problem: 'row-mismatch', firstBadSeq: String(seq), checked: seq - 1 },
    );
  });

  it('an edited critique, outcome or input hash is a row-mismatch at the event that carries its hash', async () => {
    await expectCaught(
      `UPDATE episodes SET critique = jsonb_set(critique, '{verdict}', '"bad"') WHERE id = $1`,
      `UPDATE episodes SET critique = jsonb_set(critique, '{verdict}', '"good"') WHERE id = $1`,
      [episodeId],
      { problem: 'row-mismatch', firstBadSeq: String(await seqOf('critique.recorded')) },
    );
    await expectCaught(
      `UPDATE episodes SET outcome = jsonb_set(outcome, '{verdict}', '"forged"') WHERE id = $1`,
      `UPDATE episodes SET outcome = jsonb_set(outcome, '{verdict}', '"done"') WHERE id = $1`,
      [episodeId],
      { problem: 'row-mismatch', firstBadSeq: String(await seqOf('episode.completed')) },
    );
    await expectCaught(
      'UPDATE episodes SET input_hash = reverse(input_hash) WHERE id = $1',
      'UPDATE episodes SET input_hash = reverse(input_hash) WHERE id = $1',
      [episodeId],
      {
        problem: 'row-mismatch',
        firstBadSeq: String(await seqOf('episode.started')),
      },
    );
  });

  it('an edited retrieval is a row-mismatch at its retrieval.served event', async () => {
    await expectCaught(
      'UPDATE retrievals SET episode_ids = array_append(episode_ids, $2::uuid) WHERE tenant_id = $1',
      'UPDATE retrievals SET episode_ids = array_remove(episode_ids, $2::uuid) WHERE tenant_id = $1',
      [t.keys.tenantId, '00000000-0000-4000-8000-000000000000'],
      { problem: 'row-mismatch', firstBadSeq: String(await seqOf('retrieval.served')) },
    );
  });

  it('a step row no event covers is step-uncovered', async () => {
    await expectCaught(
      `INSERT INTO steps (tenant_id, episode_id, step_number, kind, content_hash, size_bytes) SELECT tenant_id, episode_id, 99, 'tool_call', content_hash, 1 FROM steps WHERE episode_id = $1 AND step_number = 1`,
      'DELETE FROM steps WHERE episode_id = $1 AND step_number = 99',
      [episodeId],
      { problem: 'step-uncovered' },
    );
  });

  it('an edited signed checkpoint is a signature problem at its size', async () => {
    const size = await head();
    await expectCaught(
      `UPDATE ledger_checkpoints SET issued_at = issued_at + interval '1 second' WHERE tenant_id = $1`,
      `UPDATE ledger_checkpoints SET issued_at = issued_at - interval '1 second' WHERE tenant_id = $1`,
      [t.keys.tenantId],
      { problem: 'signature', firstBadSeq: String(size) },
    );
  });
});

describe('JSON numbers beyond 2^53 - 1', () => {
  it('are refused with BAD_USER_INPUT naming the path and the limit, as a variable or a literal, and nothing is written', async () => {
    const before = await head();
    // biome-ignore lint/correctness/noPrecisionLoss: the test sends an integer past 2^53 on purpose
    const beyondSafe = 12345678901234567890;
    const asVariable = await t.gql('mutation($e: ID!, $s: JSON!) { saveCheckpoint(episodeId: $e, state: $s) { __typename } }', {
      e: episodeId,
      s: { big: [1, beyondSafe] },
    });
    expect(asVariable.errors?.[0]?.message).toMatch(/\$\.big\[1\].*9007199254740991/);
    expect(asVariable.errors?.[0]?.message).not.toMatch(/12345678901234567/);
    expect(asVariable.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'JSON_NUMBER_OUT_OF_RANGE', path: '$.big[1]' });
    const asLiteral = await t.gql(
      `mutation { logStep(episodeId: "${episodeId}", step: { kind: "tool_call", parameters: { n: 12345678901234567890 } }) { __typename } }`,
    );
    expect(asLiteral.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'JSON_NUMBER_OUT_OF_RANGE', path: '$.n' });
    // In a logSteps batch the reason is the message too, and the value (rounded by JSON parsing) is not echoed.
    const inBatch = await t.gql('mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { __typename } }', {
      e: episodeId,
      s: [{ kind: 'tool_call', parameters: { n: beyondSafe } }],
    });
    expect(inBatch.errors?.[0]?.message).toMatch(/JSON number at \$\.n is beyond .*9007199254740991/);
    expect(inBatch.errors?.[0]?.message).not.toMatch(/12345678901234567|Expected type/);
    const exact = await t.gql('mutation($e: ID!, $s: JSON!) { saveCheckpoint(episodeId: $e, state: $s) { __typename } }', {
      e: 'x',
      s: { n: 9007199254740991, s: '12345678901234567890' },
    });
    expect(exact.errors).toBeUndefined();
    expect(await head()).toBe(before);
  });
});

describe('bad variables of the compiled step journal (graphql-jit errors carry no extensions)', () => {
  it('answer BAD_USER_INPUT naming the value and its type, and nothing is written', async () => {
    const before = await head();
    const batch = await t.gql('mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { __typename } }', {
      e: episodeId,
      s: [{ kind: 'tool_call', latencyMs: -2147483649 }],
    });
    expect(batch.errors?.[0]?.message).toMatch(/latencyMs.*-2147483649/);
    expect(batch.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    const one = await t.gql('mutation($e: ID!, $s: StepInput!) { logStep(episodeId: $e, step: $s) { __typename } }', {
      e: episodeId,
      s: { kind: 'tool_call', result: { kind: 'success' } },
    });
    expect(one.errors?.[0]?.message).toMatch(/"success".*StepResultKind/);
    expect(one.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(await head()).toBe(before);
  });
});

describe('Step.hashedContent', () => {
  it('reproduces Step.contentHash for a step with a blob, a truncated field and imported times', async () => {
    const started = await t.gql(
      'mutation { startEpisode(input: { taskDescription: "hashed content", taskType: "audit", startedAt: "2025-01-02T03:00:00.000Z" }) { ... on StartEpisodePayload { episode { id } } } }',
    );
    const id = started.data.startEpisode.episode.id;
    const long = 'line of output\n'.repeat(2_000);
    const [startedAt, endedAt] = ['2025-01-02T03:04:05.006Z', '2025-01-02T03:04:06.007Z'];
    const steps = [
      { kind: 'tool_call', tool: 'bash', observation: long, startedAt, endedAt },
      { kind: 'tool_call', tool: 'bash', observation: long, result: { kind: 'SUCCESS', output: 'ok' } },
    ];
    for (const [mode, step] of [
      ['BLOB', steps[0]],
      ['TRUNCATE', steps[1]],
    ] as const) {
      const logged = await t.gql(
        'mutation($e: ID!, $s: [StepInput!]!, $o: LogStepsOptions) { logSteps(episodeId: $e, steps: $s, options: $o) { __typename ... on LogStepsPayload { results { status reason message } } ... on InputLimitError { message } } }',
        {
          e: id,
          s: [step],
          o: { largeContent: mode },
        },
      );
      expect(logged.data.logSteps, JSON.stringify(logged)).toMatchObject({ __typename: 'LogStepsPayload', results: [{ status: 'ACCEPTED' }] });
    }
    const read = await t.gql(
      'query($e: ID!) { episode(id: $e) { ... on Episode { steps { edges { node { contentHash hashedContent contentRefs { field } } } } } } }',
      {
        e: id,
      },
    );
    const nodes = read.data.episode.steps.edges.map((e: { node: Record<string, unknown> }) => e.node);
    expect(nodes).toHaveLength(2);
    expect(nodes.flatMap((n: { contentRefs: unknown[] }) => n.contentRefs).length).toBeGreaterThanOrEqual(2);
    for (const node of nodes) expect(contentHash(node.hashedContent)).toBe(node.contentHash);
    expect(nodes[0].hashedContent).toMatchObject({ startedAt, endedAt });
  });
});
