// Verification, checkpoints and proofs through the API, against tampering done directly in SQL.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fromHex } from '../../src/ledger/hash.ts';
import { eventLeafHash, verifyConsistency, verifyInclusion } from '../../src/ledger/merkle.ts';
import { verifyTreeHead } from '../../src/ledger/signed-head.ts';
import { verifyProofBundle } from '../../src/ledger/verify.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

const run = promisify(execFile);
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ CHECKPOINT_EVERY_EVENTS: '1000000', CHECKPOINT_INTERVAL_MS: '3600000' });
});
afterAll(() => t.stop());

async function episodeWithSteps(steps = 3): Promise<string> {
  const started = await t.gql('mutation { startEpisode(input: { taskDescription: "prove it", taskType: "audit" }) { ... on StartEpisodePayload { episode { id } } } }');
  const id = started.data.startEpisode.episode.id;
  const s = Array.from({ length: steps }, (_, i) => ({ tool: 'bash', action: `run ${i}`, parameters: { i }, tokens: 1 }));
  await t.gql('mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { __typename } }', { e: id, s });
  await t.gql('mutation($e: ID!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, verdict: "done", artifacts: [] }) { __typename } }', { e: id });
  return id;
}

const VERIFY = 'query($from: BigInt, $to: BigInt) { verifyLedger(fromSeq: $from, toSeq: $to) { ... on LedgerVerification { ok checked stepsChecked firstBadSeq problem reason } } }';

async function verify(from?: number) {
  return (await t.gql(VERIFY, { from: from ?? null })).data.verifyLedger;
}

async function seqOf(type: string, nth = 0): Promise<number> {
  const { rows } = await t.services.db.pool.query('SELECT seq FROM ledger_events WHERE tenant_id = $1 AND type = $2 ORDER BY seq', [t.keys.tenantId, type]);
  return Number(rows[nth].seq);
}

describe('verifyLedger finds tampering at the right seq', () => {
  const pool = () => t.services.db.pool;
  let snapshot: any[];
  beforeEach(async () => {
    if (!snapshot) {
      for (let i = 0; i < 3; i++) await episodeWithSteps();
      await t.services.checkpoints.publish(t.keys.tenantId);
      snapshot = (await pool().query('SELECT * FROM ledger_events WHERE tenant_id = $1 ORDER BY seq', [t.keys.tenantId])).rows;
    }
    // Restore the untouched ledger before each tampering.
    await pool().query('DELETE FROM ledger_events WHERE tenant_id = $1', [t.keys.tenantId]);
    for (const r of snapshot) {
      await pool().query('INSERT INTO ledger_events VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)', [r.tenant_id, r.seq, r.type, r.episode_id, r.work_item_id, JSON.stringify(r.payload), r.prev_hash, r.hash, r.created_at]);
    }
  });

  it('verifies the untouched ledger, including every step row', async () => {
    const report = await verify();
    expect(report).toMatchObject({ ok: true, checked: snapshot.length, stepsChecked: 9 });
  });

  it('reports a changed payload at its seq', async () => {
    const seq = await seqOf('episode.completed', 1);
    await pool().query(`UPDATE ledger_events SET payload = jsonb_set(payload, '{status}', '"failed"') WHERE tenant_id = $1 AND seq = $2`, [t.keys.tenantId, seq]);
    expect(await verify()).toMatchObject({ ok: false, firstBadSeq: String(seq), problem: 'hash-mismatch' });
  });

  it('reports a deleted event at its seq', async () => {
    await pool().query('DELETE FROM ledger_events WHERE tenant_id = $1 AND seq = 5', [t.keys.tenantId]);
    expect(await verify()).toMatchObject({ ok: false, firstBadSeq: '5', problem: 'seq-gap' });
  });

  it('reports a reordered pair at the first of the two', async () => {
    await pool().query(
      `UPDATE ledger_events e SET type = o.type, payload = o.payload, episode_id = o.episode_id FROM ledger_events o
        WHERE e.tenant_id = $1 AND o.tenant_id = $1 AND ((e.seq = 3 AND o.seq = 4) OR (e.seq = 4 AND o.seq = 3))`,
      [t.keys.tenantId],
    );
    expect(await verify()).toMatchObject({ ok: false, firstBadSeq: '3' });
  });

  it('reports a cut-off tail after a signed checkpoint', async () => {
    const last = snapshot.length;
    await pool().query('DELETE FROM ledger_events WHERE tenant_id = $1 AND seq > $2', [t.keys.tenantId, last - 2]);
    expect(await verify()).toMatchObject({ ok: false, firstBadSeq: String(last - 1), problem: 'missing-tail' });
  });

  it('reports an edited step row at the event that logged it', async () => {
    const seq = await seqOf('steps.logged', 1);
    const event = snapshot.find((r) => Number(r.seq) === seq);
    await pool().query(`UPDATE steps SET observation = 'rewritten' WHERE episode_id = $1 AND step_number = 2`, [event.episode_id]);
    try {
      expect(await verify()).toMatchObject({ ok: false, firstBadSeq: String(seq), problem: 'hash-mismatch' });
    } finally {
      await pool().query(`UPDATE steps SET observation = NULL WHERE episode_id = $1 AND step_number = 2`, [event.episode_id]);
    }
  });

  it('verifies a later range on its own', async () => {
    expect(await verify(4)).toMatchObject({ ok: true, checked: snapshot.length - 3 });
  });
});

describe('proofs and signed checkpoints', () => {
  it('serves inclusion proofs that verify against a signed checkpoint and the public key', async () => {
    await episodeWithSteps(2);
    const key = (await t.gql('{ ledgerPublicKey { publicKey keyId algorithm } }')).data.ledgerPublicKey;
    expect(key.algorithm).toBe('Ed25519');
    const res = await t.gql('{ inclusionProof(seq: 2) { ... on InclusionProof { seq leafIndex treeSize leafHash auditPath checkpoint { treeSize rootHash headHash issuedAt signature keyId tenantId } } } }');
    const proof = res.data.inclusionProof;
    const checkpoint = { ...proof.checkpoint, treeSize: Number(proof.checkpoint.treeSize) };
    expect(verifyTreeHead(checkpoint, fromHex(key.publicKey, 32))).toBe(true);
    const claim = { leafIndex: 1, treeSize: Number(proof.treeSize), leafHash: eventLeafHash(proof.leafHash), auditPath: proof.auditPath.map((h: string) => fromHex(h, 32)), rootHash: fromHex(checkpoint.rootHash, 32) };
    expect(verifyInclusion(claim)).toBe(true);
    expect(verifyInclusion({ ...claim, leafIndex: 2 })).toBe(false);
  });

  it('serves consistency proofs between two sizes', async () => {
    const res = await t.gql('{ consistencyProof(fromSize: 3) { ... on ConsistencyProof { fromSize toSize fromRoot toRoot proof } } }');
    const p = res.data.consistencyProof;
    const claim = { oldSize: 3, newSize: Number(p.toSize), oldRoot: fromHex(p.fromRoot, 32), newRoot: fromHex(p.toRoot, 32), proof: p.proof.map((h: string) => fromHex(h, 32)) };
    expect(verifyConsistency(claim)).toBe(true);
    expect(verifyConsistency({ ...claim, oldRoot: fromHex(p.toRoot, 32) })).toBe(false);
  });

  it('publishes checkpoints every N events and on a timer', async () => {
    const app = await startTestApp({ CHECKPOINT_EVERY_EVENTS: '4', CHECKPOINT_INTERVAL_MS: '200' });
    try {
      const started = await app.gql('mutation { startEpisode(input: { taskDescription: "x", taskType: "y" }) { ... on StartEpisodePayload { episode { id } } } }');
      const id = started.data.startEpisode.episode.id;
      for (let i = 0; i < 5; i++) await app.gql('mutation($e: ID!) { logStep(episodeId: $e, step: { tool: "t" }) { __typename } }', { e: id });
      const deadline = Date.now() + 10_000;
      let head: any;
      do {
        head = (await app.gql('{ ledgerHead { seq latestCheckpoint { treeSize } } }')).data.ledgerHead;
      } while (head.latestCheckpoint?.treeSize !== head.seq && Date.now() < deadline && (await new Promise((r) => setTimeout(r, 100)), true));
      expect(head.latestCheckpoint.treeSize).toBe(head.seq);
      const { rows } = await app.services.db.pool.query('SELECT count(*)::int AS n FROM ledger_checkpoints WHERE tenant_id = $1', [app.keys.tenantId]);
      expect(rows[0].n).toBeGreaterThanOrEqual(2);
    } finally {
      await app.stop();
    }
  });
});

describe('episode proof bundles verify offline', () => {
  it('verifies with the library and the CLI, and fails once tampered', async () => {
    const id = await episodeWithSteps(4);
    const res = await t.gql('query($e: ID!) { episodeProofBundle(episodeId: $e) { ... on EpisodeProofBundle { bundle eventCount } } }', { e: id });
    const bundle = res.data.episodeProofBundle.bundle;
    expect(res.data.episodeProofBundle.eventCount).toBe(3);
    expect(bundle.events.map((e: any) => e.type)).toEqual(['episode.started', 'steps.logged', 'episode.completed']);
    const report = verifyProofBundle(bundle, fromHex(bundle.publicKey, 32));
    expect(report).toMatchObject({ ok: true, signatureValid: true, eventsChecked: 3 });

    const dir = await mkdtemp(join(tmpdir(), 'episodic-bundle-'));
    const good = join(dir, 'bundle.json');
    await writeFile(good, JSON.stringify(bundle));
    const cli = (args: string[]) => run(process.execPath, ['bin/episodic.mjs', ...args]).then((r) => ({ code: 0, out: r.stdout, err: r.stderr }), (e) => ({ code: e.code as number, out: e.stdout as string, err: e.stderr as string }));
    expect((await cli(['verify', good, '--public-key', bundle.publicKey])).code).toBe(0);

    const tampered = structuredClone(bundle);
    tampered.events[1].payload.steps[0].hash = '0'.repeat(64);
    const bad = join(dir, 'tampered.json');
    await writeFile(bad, JSON.stringify(tampered));
    const failed = await cli(['verify', bad, '--public-key', bundle.publicKey]);
    expect(failed.code).toBe(3);
    expect(failed.err).toMatch(/NOT VERIFIED/);
    const otherKey = 'ab'.repeat(32);
    expect((await cli(['verify', good, '--public-key', otherKey])).code).toBe(3);
  });

  it('refuses a bundle for an episode of another tenant', async () => {
    const id = await episodeWithSteps(1);
    const other = await t.addTenant('tenant-other');
    const res = await t.gql('query($e: ID!) { episodeProofBundle(episodeId: $e) { __typename ... on NotFoundError { entity } } }', { e: id }, other.read);
    expect(res.data.episodeProofBundle).toEqual({ __typename: 'NotFoundError', entity: 'Episode' });
  });
});
