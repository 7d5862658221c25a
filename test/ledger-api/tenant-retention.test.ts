// A tenant's own retention periods (issue 52, docs/LEDGER.md §3.4), through the real server: set
// with an admin key over GraphQL and `episodic retention`, each recorded by a tenant.retention_set
// event naming the key; a sweep forgets the runs of a tenant past its own period while another
// tenant's runs of the same age, under the server's default (none here), are kept. Afterwards the
// chain, the bundle and the export still verify and report the run as forgotten, and retrieval no
// longer serves it.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TenantKeys, type TestApp } from '../support/app.ts';
import { cli, sqlOn } from '../support/ledger-cli.ts';

/** Budget from the work: six CLI commands (the retention set and show, a bundle and an export each made and verified), up to 10 s each on a loaded 2-core machine. */
const CLI_BUDGET_MS = 6 * 10_000;
let t: TestApp;
let other: TenantKeys;
let key: string;
let dir: string;

const sql = sqlOn(() => t);
const RETENTION = 'stepDays runDays effectiveStepDays effectiveRunDays';
const SET = `mutation($s: Int, $r: Int) { setRetention(stepDays: $s, runDays: $r) { __typename ... on TenantRetention { ${RETENTION} }
  ... on InputLimitError { message violations { field limit } } } }`;
const VERIFY = '{ verifyLedger { ... on LedgerVerification { ok stepsForgotten rowsForgotten problem reason } } }';
const settingEvents = async (tenantId: string) =>
  (await sql(`SELECT payload FROM ledger_events WHERE tenant_id = $1 AND type = 'tenant.retention_set' ORDER BY seq`, [tenantId])).rows.map((r) => r.payload);
const adminKeyIds = async (tenantId: string) =>
  (await sql(`SELECT id FROM api_keys WHERE tenant_id = $1 AND 'admin' = ANY(scopes)`, [tenantId])).rows.map((r) => r.id);

async function endedRun(task: string, token: string): Promise<string> {
  const started = await t.gql(
    'mutation($d: String!) { startEpisode(input: { taskDescription: $d, taskType: "audit" }) { ... on StartEpisodePayload { episode { id } } } }',
    { d: task },
    token,
  );
  const id = started.data.startEpisode.episode.id;
  await t.gql(
    'mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { __typename } }',
    { e: id, s: [{ kind: 'tool_call', tool: 'shell', observation: task }] },
    token,
  );
  await t.gql('mutation($e: ID!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, verdict: "done" }) { __typename } }', { e: id }, token);
  // Both ended 40 days ago (ended_at is a derived time, §3.3; the events keep the real ones).
  await sql(`UPDATE episodes SET ended_at = now() - interval '40 days' WHERE id = $1`, [id]);
  return id;
}

const retrieved = async (task: string, token: string): Promise<string[]> => {
  const r = await t.gql(
    'query($d: String!) { relevantEpisodes(task: { description: $d }, limit: 20) { ... on RelevantEpisodes { episodes { episode { id } } } } }',
    { d: task },
    token,
  );
  return r.data.relevantEpisodes.episodes.map((e: { episode: { id: string } }) => e.episode.id);
};

async function verifiedFile(name: string, episodeId?: string) {
  const file = join(dir, `${name}.json${episodeId ? '' : 'l'}`);
  const exported = await cli(['export', '--url', t.url, '--key', t.keys.read, '--output', file, ...(episodeId ? ['--episode', episodeId] : [])]);
  expect(exported.code, exported.err).toBe(0);
  const verified = await cli(['verify', '--public-key', key, '--json', file]);
  expect(verified.code, verified.out).toBe(0);
  return JSON.parse(verified.out);
}

beforeAll(async () => {
  t = await startTestApp({ CHECKPOINT_EVERY_EVENTS: '1000000', CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0', RETENTION_SWEEP_MS: '3600000' });
  other = await t.addTenant(`kept-${Date.now()}`);
  dir = await mkdtemp(join(tmpdir(), 'episodic-tenant-retention-'));
  key = (await t.gql('{ ledgerPublicKey { publicKey } }')).data.ledgerPublicKey.publicKey;
});
afterAll(() => t.stop());

describe('setRetention', () => {
  it('is refused to a key without the admin scope, and refuses a period out of range naming the field, changing nothing', async () => {
    const refused = await t.gql(SET, { r: 30 }, t.keys.write);
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const bad = (await t.gql(SET, { s: 0, r: 36_501 })).data.setRetention;
    expect(bad).toMatchObject({ __typename: 'InputLimitError' });
    expect(bad.violations.map((v: { field: string }) => v.field)).toEqual(['stepDays', 'runDays']);
    expect(bad.message).toMatch(/runDays must be an integer from 1 to 36500, got 36501/);
    expect((await t.gql(`{ retention { ${RETENTION} } }`)).data.retention).toEqual({
      stepDays: null,
      runDays: null,
      effectiveStepDays: null,
      effectiveRunDays: null,
    });
    expect(await settingEvents(t.keys.tenantId)).toEqual([]);
  });

  it('sets the periods over GraphQL and `episodic retention`, each recorded with the admin key that set them', { timeout: CLI_BUDGET_MS }, async () => {
    const set = (await t.gql(SET, { r: 30 })).data.setRetention;
    expect(set).toEqual({ __typename: 'TenantRetention', stepDays: null, runDays: 30, effectiveStepDays: null, effectiveRunDays: 30 });
    const viaCli = await cli(['retention', 'set', '--step-days', '90', '--url', t.url, '--key', t.keys.admin, '--json']);
    expect(viaCli.code, viaCli.err).toBe(0);
    // The option left out keeps the tenant's run period.
    expect(JSON.parse(viaCli.out)).toEqual({ stepDays: 90, runDays: 30, effectiveStepDays: 90, effectiveRunDays: 30 });
    const shown = await cli(['retention', '--url', t.url, '--key', t.keys.read]);
    expect(shown.out).toMatch(/step content: 90 days\nruns: 30 days/);
    const events = await settingEvents(t.keys.tenantId);
    expect(events).toEqual([
      { stepDays: null, runDays: 30, byKeyId: expect.any(String) },
      { stepDays: 90, runDays: 30, byKeyId: expect.any(String) },
    ]);
    for (const e of events) expect(await adminKeyIds(t.keys.tenantId)).toContain(e.byKeyId);
    expect(await settingEvents(other.tenantId)).toEqual([]);
  });
});

describe("a tenant's own run retention", () => {
  it("forgets that tenant's runs past it and keeps another tenant's runs of the same age", { timeout: CLI_BUDGET_MS }, async () => {
    const forgotten = await endedRun('rotate the billing certificates', t.keys.admin);
    const kept = await endedRun('rotate the billing certificates', other.admin);
    expect(await retrieved('rotate billing certificates', t.keys.read)).toContain(forgotten);
    const swept = await t.services.retention.sweep();
    expect(swept).toMatchObject({ episodes: 1 });
    const forgottenAt = async (id: string) => (await sql('SELECT forgotten_at FROM episodes WHERE id = $1', [id])).rows[0].forgotten_at;
    expect(await forgottenAt(forgotten)).toEqual(expect.any(Date));
    expect(await forgottenAt(kept)).toBeNull();
    const [event] = (await sql(`SELECT payload FROM ledger_events WHERE episode_id = $1 AND type = 'episode.forgotten'`, [forgotten])).rows;
    expect(event.payload).toMatchObject({ reason: 'retention: the run ended more than 30 days ago', byRetention: { days: 30 } });
    expect(await retrieved('rotate billing certificates', t.keys.read)).not.toContain(forgotten);
    expect(await retrieved('rotate billing certificates', other.read)).toContain(kept);

    await t.services.checkpoints.publish(t.keys.tenantId);
    await t.services.checkpoints.publish(other.tenantId);
    // The step period (90 days) has not passed: only the run period forgot, and its steps with it.
    expect((await t.gql(VERIFY)).data.verifyLedger).toMatchObject({ ok: true, stepsForgotten: 1, rowsForgotten: 4 });
    expect((await t.gql(VERIFY, {}, other.admin)).data.verifyLedger).toMatchObject({ ok: true, stepsForgotten: 0, rowsForgotten: 0 });
    expect(await verifiedFile('bundle', forgotten)).toMatchObject({ ok: true, kind: 'bundle', signatureValid: true, stepsForgotten: 1, rowsForgotten: 4 });
    expect(await verifiedFile('ledger')).toMatchObject({ ok: true, kind: 'export', stepsForgotten: 1, rowsForgotten: 4 });
  });
});
