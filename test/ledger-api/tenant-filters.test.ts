// Every ledger read verifyLedger and the proofs make, with two tenants whose ledgers use the same
// seqs: a query that lost its tenant filter reads the other tenant's row at that seq (a wrong
// anchor for fromSeq > 1, a doubled leaf set for the checkpoint root, foreign events in a page).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { fromHex } from '../../src/ledger/format/hash.ts';
import { verifyConsistency } from '../../src/ledger/format/merkle.ts';
import { startTestApp, type TenantKeys, type TestApp } from '../support/app.ts';

let t: TestApp;
let tenants: TenantKeys[];
const eventCount = new Map<string, number>();

async function episodeFor(keys: TenantKeys, steps: number): Promise<void> {
  const token = keys.write;
  const started = await t.gql(
    'mutation { startEpisode(input: { taskDescription: "two tenants", taskType: "audit" }) { ... on StartEpisodePayload { episode { id } } } }',
    {},
    token,
  );
  const id = started.data.startEpisode.episode.id;
  const s = Array.from({ length: steps }, (_, i) => ({ tool: 'bash', action: `${keys.tenantId} ${i}`, tokens: i }));
  await t.gql('mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { __typename } }', { e: id, s }, token);
  await t.gql(
    'mutation($e: ID!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, verdict: "ok", artifacts: [] }) { __typename } }',
    { e: id },
    token,
  );
}

beforeAll(async () => {
  t = await startTestApp({ CHECKPOINT_EVERY_EVENTS: '1000000', CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' });
  tenants = [t.keys, await t.addTenant('tenant-b')];
  // Interleaved, so both tenants' rows sit side by side in the table; B gets one episode more.
  for (let round = 0; round < 3; round++) for (const keys of tenants) await episodeFor(keys, 2);
  await episodeFor(must(tenants[1]), 1);
  for (const keys of tenants) {
    await t.services.checkpoints.publish(keys.tenantId);
    const { rows } = await t.services.db.pool.query('SELECT seq FROM ledger_heads WHERE tenant_id = $1', [keys.tenantId]);
    eventCount.set(keys.tenantId, Number(rows[0].seq));
  }
});
afterAll(() => t.stop());

const VERIFY =
  'query($from: BigInt, $to: BigInt) { verifyLedger(fromSeq: $from, toSeq: $to) { ... on LedgerVerification { ok checked stepsChecked firstBadSeq problem reason checkpointTreeSize } } }';

describe.each([0, 1])('tenant %i of two with overlapping seqs', (index) => {
  const keys = () => must(tenants[index]);
  const verify = async (from: number | null, to: number | null = null) => (await t.gql(VERIFY, { from, to }, keys().read)).data.verifyLedger;

  it('verifies its whole ledger against its own checkpoint', async () => {
    const size = must(eventCount.get(keys().tenantId));
    expect(await verify(null)).toMatchObject({ ok: true, checked: size, checkpointTreeSize: String(size), stepsChecked: index === 0 ? 6 : 7 });
  });

  it('verifies a range from seq > 1, anchored on its own previous event', async () => {
    const size = must(eventCount.get(keys().tenantId));
    for (const from of [2, 5, size]) expect(await verify(from)).toMatchObject({ ok: true, checked: size - from + 1 });
    expect(await verify(3, 6)).toMatchObject({ ok: true, checked: 4 });
  });

  it('serves a consistency proof between its own roots', async () => {
    const size = must(eventCount.get(keys().tenantId));
    const res = await t.gql(`{ consistencyProof(fromSize: 4) { ... on ConsistencyProof { toSize fromRoot toRoot proof } } }`, {}, keys().read);
    const p = res.data.consistencyProof;
    expect(Number(p.toSize)).toBe(size);
    const head = await t.gql('{ ledgerHead { seq latestCheckpoint { rootHash tenantId } } }', {}, keys().read);
    expect(head.data.ledgerHead).toMatchObject({ seq: String(size), latestCheckpoint: { rootHash: p.toRoot, tenantId: keys().tenantId } });
    expect(
      verifyConsistency({
        oldSize: 4,
        newSize: size,
        oldRoot: fromHex(p.fromRoot, 32),
        newRoot: fromHex(p.toRoot, 32),
        proof: p.proof.map((h: string) => fromHex(h, 32)),
      }),
    ).toBe(true);
  });
});
