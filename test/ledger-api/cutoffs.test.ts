// Cut-offs (issue 52): a ledger rolled back below what a verifier holds, a newest checkpoint
// deleted alone, a missing event under the checkpoint timer, and an export whose row lines were
// stripped. Each is edited in PostgreSQL (or in the file) and named at its place by verifyLedger,
// by `episodic verify`, or by the timer's log.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TenantKeys, type TestApp } from '../support/app.ts';
import { cli, sqlOn } from '../support/ledger-cli.ts';

/** Each test's budget from its work: a CLI command (an export or a verify of a small ledger) takes up to 10 s on a loaded 2-core machine. */
const CLI_RUN_MS = 10_000;
const budget = (cliRuns: number) => ({ timeout: (cliRuns + 1) * CLI_RUN_MS });
let t: TestApp;
let key: string;
let dir: string;
const logged: string[] = [];

/** `episodic` in this process (the binary's own code, runCli, without a Node start per command). */

const VERIFY = '{ verifyLedger { ... on LedgerVerification { ok checked firstBadSeq problem reason } } }';
const verifyLedger = async (tenant: TenantKeys) => (await t.gql(VERIFY, {}, tenant.read)).data.verifyLedger;
const sql = sqlOn(() => t);
const headOf = async (tenant: TenantKeys) => Number((await sql('SELECT seq FROM ledger_heads WHERE tenant_id = $1', [tenant.tenantId])).rows[0].seq);
const checkpointSizes = async (tenant: TenantKeys) =>
  (await sql('SELECT tree_size::int AS n FROM ledger_checkpoints WHERE tenant_id = $1 ORDER BY 1', [tenant.tenantId])).rows.map((r) => r.n as number);

/** An episode with two steps, completed: four events of the tenant's. */
async function runEpisode(tenant: TenantKeys, task: string): Promise<void> {
  const started = await t.gql(
    'mutation($t: String!) { startEpisode(input: { taskDescription: $t, taskType: "audit" }) { ... on StartEpisodePayload { episode { id } } } }',
    { t: task },
    tenant.write,
  );
  const e = started.data.startEpisode.episode.id;
  await t.gql('mutation($e: ID!) { logStep(episodeId: $e, step: { tool: "bash" }) { __typename } }', { e }, tenant.write);
  await t.gql('mutation($e: ID!) { logStep(episodeId: $e, step: { tool: "git" }) { __typename } }', { e }, tenant.write);
  await t.gql('mutation($e: ID!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, verdict: "done" }) { __typename } }', { e }, tenant.write);
}

/** `episodic export` of the tenant (extra args: --after), then `episodic verify --json`, with a state file when given. */
async function exportAndVerify(tenant: TenantKeys, name: string, exportArgs: string[] = [], state?: string) {
  const file = join(dir, `${name}.jsonl`);
  const exported = await cli(['export', '--url', t.url, '--key', tenant.read, '--output', file, ...exportArgs]);
  expect(exported.code, exported.err).toBe(0);
  return { file, verified: await cli(['verify', '--public-key', key, '--json', ...(state ? ['--state', state] : []), file]) };
}

beforeAll(async () => {
  const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(line) });
  t = await startTestApp({ CHECKPOINT_EVERY_EVENTS: '1000000', CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' }, { logger });
  dir = await mkdtemp(join(tmpdir(), 'episodic-cutoffs-'));
  key = (await t.gql('{ ledgerPublicKey { publicKey } }')).data.ledgerPublicKey.publicKey;
});
afterAll(() => t.stop());

describe('a ledger rolled back below what a verifier holds', () => {
  it('is missing-tail at the first seq cut off, for episodic verify --state, verifyLedger, and the timer signs nothing', budget(8), async () => {
    const tenant = await t.addTenant(`rollback-${Date.now()}`);
    const state = join(dir, 'rollback-state.json');
    await runEpisode(tenant, 'kept');
    await t.services.checkpoints.publish(tenant.tenantId);
    const kept = await headOf(tenant);
    expect((await exportAndVerify(tenant, 'rollback-1', [], state)).verified.code).toBe(0);
    await runEpisode(tenant, 'rolled back');
    await t.services.checkpoints.publish(tenant.tenantId);
    const reached = await headOf(tenant);
    const second = await exportAndVerify(tenant, 'rollback-2', ['--after', String(kept)], state);
    expect(second.verified.code, second.verified.err).toBe(0);
    expect(JSON.parse(await readFile(state, 'utf8'))).toMatchObject({ treeSize: reached });

    // An insider deletes the last events and the checkpoints above them, and rewinds the head row.
    await sql('DELETE FROM ledger_events WHERE tenant_id = $1 AND seq > $2', [tenant.tenantId, kept]);
    await sql('DELETE FROM ledger_checkpoints WHERE tenant_id = $1 AND tree_size > $2', [tenant.tenantId, kept]);
    await sql('UPDATE ledger_heads h SET seq = e.seq, hash = e.hash FROM ledger_events e WHERE e.tenant_id = h.tenant_id AND h.tenant_id = $1 AND e.seq = $2', [
      tenant.tenantId,
      kept,
    ]);

    for (const [name, args] of [
      ['rollback-incremental', ['--after', String(reached)]],
      ['rollback-whole', []],
    ] as const) {
      const { verified } = await exportAndVerify(tenant, name, [...args], state);
      expect(verified.code, name).toBe(3);
      expect(verified.err).toMatch(new RegExp(`seq ${kept + 1}: missing-tail`));
    }
    // The state is kept as it was: a failed check never replaces it.
    expect(JSON.parse(await readFile(state, 'utf8'))).toMatchObject({ treeSize: reached });
    expect(await verifyLedger(tenant)).toMatchObject({ ok: false, problem: 'missing-tail', firstBadSeq: String(kept + 1) });

    // New events after the rollback would be signed at sizes already signed, with other roots: refused.
    await runEpisode(tenant, 'after the rollback');
    logged.length = 0;
    await t.services.checkpoints.publishDue();
    expect(await checkpointSizes(tenant)).toEqual([kept]);
    expect(
      logged.some((l) => l.includes(tenant.tenantId) && l.includes('"tampering":true') && l.includes(`checkpoint ${reached} was signed and is gone`)),
    ).toBe(true);
  });
});

describe('a newest checkpoint deleted alone', () => {
  it('is not signed again with a new issuedAt; verifyLedger names it checkpoint-missing at its size', async () => {
    const tenant = await t.addTenant(`newest-${Date.now()}`);
    await runEpisode(tenant, 'first');
    await t.services.checkpoints.publish(tenant.tenantId);
    const older = await headOf(tenant);
    await runEpisode(tenant, 'second');
    await t.services.checkpoints.publish(tenant.tenantId);
    const newest = await headOf(tenant);
    expect(await verifyLedger(tenant)).toMatchObject({ ok: true, checked: newest });

    await sql('DELETE FROM ledger_checkpoints WHERE tenant_id = $1 AND tree_size = $2', [tenant.tenantId, newest]);
    logged.length = 0;
    await t.services.checkpoints.publishDue();
    expect(await checkpointSizes(tenant)).toEqual([older]);
    expect(logged.some((l) => l.includes(tenant.tenantId) && l.includes('"tampering":true') && l.includes(`"seq":${newest}`))).toBe(true);
    expect(await verifyLedger(tenant)).toMatchObject({ ok: false, problem: 'checkpoint-missing', firstBadSeq: String(newest) });
  });
});

describe('an event missing under the checkpoint timer', () => {
  it('is logged as tampering at its seq and nothing is signed', async () => {
    const tenant = await t.addTenant(`gap-${Date.now()}`);
    await runEpisode(tenant, 'gap');
    await sql('DELETE FROM ledger_events WHERE tenant_id = $1 AND seq = 2', [tenant.tenantId]);
    logged.length = 0;
    await t.services.checkpoints.publishDue();
    expect(await checkpointSizes(tenant)).toEqual([]);
    expect(logged.some((l) => l.includes(tenant.tenantId) && l.includes('"tampering":true') && l.includes('"seq":2'))).toBe(true);
    expect(await verifyLedger(tenant)).toMatchObject({ ok: false, problem: 'seq-gap', firstBadSeq: '2' });
  });
});

describe('an export whose row lines were stripped', () => {
  it('fails at the first event whose hashed row it lacks, never as "0 hashed rows checked"', budget(3), async () => {
    const tenant = await t.addTenant(`stripped-${Date.now()}`);
    await runEpisode(tenant, 'stripped');
    await t.services.checkpoints.publish(tenant.tenantId);
    const { file, verified } = await exportAndVerify(tenant, 'stripped');
    expect(verified.code, verified.err).toBe(0);
    // record, outcome, reward, reflection; the served copies reward_score and context pack (§3.3)
    expect(JSON.parse(verified.out)).toMatchObject({ ok: true, rowsChecked: 6 });
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    await writeFile(file, `${lines.filter((l) => !l.startsWith('{"row":')).join('\n')}\n`);
    const stripped = await cli(['verify', '--public-key', key, '--json', file]);
    expect(stripped.code).toBe(3);
    // The first claim is the start's (the episode's record).
    const start = Number((await sql(`SELECT seq FROM ledger_events WHERE tenant_id = $1 AND type = 'episode.started'`, [tenant.tenantId])).rows[0].seq);
    expect(stripped.err).toMatch(new RegExp(`seq ${start}: row-mismatch: episode.record`));
    expect(await verifyLedger(tenant)).toMatchObject({ ok: true });
  });
});
