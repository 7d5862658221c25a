// importRun, the one call (and one transaction) an import sends per run, against the three calls it
// stands for (startEpisode, logSteps in requests of 500, completeEpisode) on the same run in
// another tenant: the same episode, steps and index rows, the same ledger events in the same order
// with the same payloads (a step's hash covers its episode's id, so those are compared by number),
// a ledger that verifies; a repeat that adds nothing; bad input refused whole, naming its field.
import { beforeAll, describe, expect, it } from 'vitest';
import { logStepsBatched } from '../../src/client/batch.ts';
import { type EpisodicClient, unwrap } from '../../src/client/index.ts';
import type { LogStepsResult, OutcomeInput, StartEpisodeInput, StepInput } from '../../src/client/types.ts';
import { must } from '../../src/core/must.ts';
import { IMPORT_DOCUMENTS } from '../../src/import/documents.ts';
import { clientFor } from '../client/support.ts';
import { type TenantKeys, type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
useApp((app) => {
  t = app;
});

const STARTED = Date.parse('2026-01-05T10:00:00Z');
const at = (ms: number) => new Date(STARTED + ms).toISOString();

function runInput(tag: string): { input: StartEpisodeInput; steps: StepInput[]; outcome: OutcomeInput; endedAt: string } {
  const steps: StepInput[] = Array.from({ length: 620 }, (_, i) => ({
    kind: 'tool_call',
    tool: i % 3 ? 'bash' : 'edit',
    action: `step ${i} of django/db/models/query.py`,
    result: i % 7 ? { kind: 'SUCCESS', output: `ok ${i} QuerySet.filter` } : { kind: 'ERROR', message: `TypeError at ${i}`, errorClass: 'TypeError' },
    tokens: 10 + i,
    sideEffectKey: `import:${i}`,
    startedAt: at(i * 1000),
    endedAt: at(i * 1000 + 500),
  }));
  // Step 3 breaks a limit (a cost below zero): rejected alone, or the call refused.
  steps[3] = { ...must(steps[3]), cost: -1 };
  return {
    input: {
      taskDescription: `Fix QuerySet.filter for ${tag}`,
      taskType: 'code_change',
      agent: 'mini-swe-agent',
      context: { language: 'python', domain: 'django/django', complexity: 'MODERATE', tags: ['imported'] },
      dedupeKey: `import:test:${tag}`,
      startedAt: at(0),
      importSource: { format: 'mini-swe-agent', sourceHash: 'ab'.repeat(32), name: `${tag}.traj.json` },
    },
    steps,
    outcome: { kind: 'SUCCESS', verdict: 'resolved', artifacts: ['django/db/models/query.py'] },
    endedAt: at(700_000),
  };
}

const OPTIONS = { largeContent: 'BLOB', onInvalidStep: 'REJECT_STEP' } as const;

async function importWhole(api: EpisodicClient, run: ReturnType<typeof runInput>) {
  return api.request<Json>(IMPORT_DOCUMENTS.importRun, { ...run, options: OPTIONS });
}

async function importInThreeCalls(api: EpisodicClient, run: ReturnType<typeof runInput>) {
  const episode = unwrap(await api.startEpisode(run.input)).episode;
  const send = (steps: StepInput[]) => api.request<LogStepsResult>(IMPORT_DOCUMENTS.logSteps, { episodeId: episode.id, steps, options: OPTIONS });
  await logStepsBatched(send, run.steps, OPTIONS);
  unwrap(await api.completeEpisode(episode.id, run.outcome, undefined, { endedAt: run.endedAt }));
  return episode.id;
}

/**
 * The tenant's ledger, with what differs between two tenants by construction (ids, step hashes,
 * times) left out, and the pattern learner's events, which its jobs append when they get to them.
 */
async function ledgerOf(tenantId: string) {
  const { rows } = await t.database.db.pool.query<{ type: string; payload: { steps?: Array<{ n: number }> } }>(
    `SELECT type, payload FROM ledger_events WHERE tenant_id = $1 AND type NOT LIKE 'patterns.%' ORDER BY seq`,
    [tenantId],
  );
  return rows.map((r) => (r.type === 'steps.logged' ? { type: r.type, steps: r.payload.steps?.map((s) => s.n) } : { type: r.type, payload: r.payload }));
}

async function rowsOf(tenantId: string) {
  const q = async (sql: string) => (await t.database.db.pool.query(sql, [tenantId])).rows;
  const away = `- 'id' - 'tenant_id' - 'episode_id' - 'created_at' - 'updated_at' - 'content_hash' - 'salt'`;
  return {
    episodes: await q(`SELECT to_jsonb(e) ${away} - 'learning_state' AS e FROM episodes e WHERE tenant_id = $1`),
    steps: await q(`SELECT to_jsonb(s) ${away} AS s FROM steps s WHERE tenant_id = $1 ORDER BY step_number`),
    terms: await q(`SELECT field, term, impact FROM episode_terms WHERE tenant_id = $1 ORDER BY field, term`),
    df: await q('SELECT field, term, df FROM episode_term_df WHERE tenant_id = $1 ORDER BY field, term'),
  };
}

describe('importRun', () => {
  let whole: TenantKeys;
  let calls: TenantKeys;
  let answer: Json;
  beforeAll(async () => {
    whole = await t.addTenant('import-whole');
    calls = await t.addTenant('import-calls');
    answer = await importWhole(clientFor(t, whole.write), runInput('one'));
    await importInThreeCalls(clientFor(t, calls.write), runInput('one'));
  });

  it('answers with each step, the invalid one rejected alone, and the completion', () => {
    expect(answer).toMatchObject({ __typename: 'ImportRunPayload', deduplicated: false, completion: { __typename: 'FinishEpisodePayload' } });
    expect(answer.episode).toMatchObject({ status: 'COMPLETED', outcome: { kind: 'SUCCESS' } });
    expect(answer.steps).toMatchObject({ accepted: 619, duplicates: 0, rejected: 1 });
    expect(answer.steps.results[3]).toMatchObject({ index: 3, status: 'REJECTED', reason: 'invalid' });
    expect(answer.steps.results[619]).toMatchObject({ index: 619, status: 'ACCEPTED', stepNumber: 619 });
  });

  it('writes the rows and appends the ledger events the three calls do, in one verified chain', async () => {
    const events = await ledgerOf(whole.tenantId);
    expect(events.map((e) => e.type)).toEqual(['episode.started', 'steps.logged', 'steps.logged', 'episode.completed']);
    // One event per request of 500 the client sends: the first holds 499 (step 3 was rejected).
    expect(events[1]).toMatchObject({ steps: expect.arrayContaining([1]) });
    expect(events[1] && 'steps' in events[1] ? events[1].steps?.length : null).toBe(499);
    expect(events).toEqual(await ledgerOf(calls.tenantId));
    expect(await rowsOf(whole.tenantId)).toEqual(await rowsOf(calls.tenantId));
    expect(unwrap(await clientFor(t, whole.read).verifyLedger())).toMatchObject({ ok: true });
  });

  it('finds the run again when sent again, and adds nothing', async () => {
    const before = await ledgerOf(whole.tenantId);
    const again = await importWhole(clientFor(t, whole.write), runInput('one'));
    expect(again).toMatchObject({ __typename: 'ImportRunPayload', deduplicated: true, steps: null, completion: null, episode: { status: 'COMPLETED' } });
    expect(await ledgerOf(whole.tenantId)).toEqual(before);
  });

  it("deletes an episode's postings with it (a trigger, not a foreign key checked per posting)", async () => {
    const keys = await t.addTenant('import-deleted');
    const imported = await importWhole(clientFor(t, keys.write), runInput('deleted'));
    const postings = async () =>
      (await t.database.db.pool.query('SELECT count(*)::int AS n FROM episode_terms WHERE episode_id = $1', [imported.episode.id])).rows[0].n;
    expect(await postings()).toBeGreaterThan(0);
    await t.database.db.pool.query('DELETE FROM tenants WHERE id = $1', [keys.tenantId]);
    expect(await postings()).toBe(0);
  });

  it('refuses bad input whole, naming the field and its limit, and writes nothing', async () => {
    const api = clientFor(t, whole.write);
    const before = await ledgerOf(whole.tenantId);
    const run = runInput('bad');
    const refusedStep = await api.request<Json>(IMPORT_DOCUMENTS.importRun, { ...run, options: { ...OPTIONS, onInvalidStep: 'REFUSE_CALL' } });
    expect(refusedStep).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: 'steps.3.cost' }] });
    const { importSource: _none, ...withoutSource } = run.input;
    const notImported = await importWhole(api, { ...run, input: withoutSource });
    expect(notImported).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: 'input.importSource', limit: 'required' }] });
    const longVerdict = await importWhole(api, { ...run, outcome: { kind: 'SUCCESS', verdict: 'v'.repeat(20_000) } });
    expect(longVerdict).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: expect.stringMatching(/^outcome\./) }] });
    expect(await ledgerOf(whole.tenantId)).toEqual(before);
  });
});

describe('importRun, concurrent calls', () => {
  it('imports the runs of concurrent calls (together, as the server batches them) with the frequencies the three calls give', async () => {
    const together = await t.addTenant('import-together');
    const apart = await t.addTenant('import-apart');
    const tags = ['a', 'b', 'c', 'd', 'e', 'f'];
    const answers = await Promise.all(tags.map((tag) => importWhole(clientFor(t, together.write), runInput(tag))));
    for (const answer of answers) expect(answer).toMatchObject({ __typename: 'ImportRunPayload', episode: { status: 'COMPLETED' } });
    for (const tag of tags) await importInThreeCalls(clientFor(t, apart.write), runInput(tag));
    const shared = async (tenantId: string) => ({
      df: (await t.database.db.pool.query('SELECT field, term, df FROM episode_term_df WHERE tenant_id = $1 ORDER BY field, term', [tenantId])).rows,
      totals: (await t.database.db.pool.query('SELECT field, documents, length FROM episode_term_totals WHERE tenant_id = $1 ORDER BY field', [tenantId])).rows,
    });
    expect(await shared(together.tenantId)).toEqual(await shared(apart.tenantId));
    expect(unwrap(await clientFor(t, together.read).verifyLedger())).toMatchObject({ ok: true });
  });

  it('fails a bad run alone: the others of its batch are imported', async () => {
    const keys = await t.addTenant('import-one-bad');
    const api = clientFor(t, keys.write);
    expect(await importWhole(api, runInput('g'))).toMatchObject({ __typename: 'ImportRunPayload' });
    // The last run reuses g's dedupeKey with another task: an IdempotencyConflictError inside its batch's transaction.
    const bad = { ...runInput('g'), input: { ...runInput('g').input, taskDescription: 'another task' } };
    const answers = await Promise.all([...['h', 'i', 'j', 'k'].map(runInput), bad].map((run) => importWhole(api, run)));
    expect(answers.slice(0, 4).map((a) => a.__typename)).toEqual(Array(4).fill('ImportRunPayload'));
    expect(answers[4]).toMatchObject({ __typename: 'IdempotencyConflictError', dedupeKey: 'import:test:g' });
    const { rows } = await t.database.db.pool.query('SELECT count(*)::int AS n FROM episodes WHERE tenant_id = $1 AND status = $2', [
      keys.tenantId,
      'completed',
    ]);
    expect(rows[0]).toEqual({ n: 5 });
    expect(unwrap(await clientFor(t, keys.read).verifyLedger())).toMatchObject({ ok: true });
  });
});
