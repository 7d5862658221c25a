// Verification, checkpoints and proofs through the API, against tampering done directly in SQL.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fromHex, GENESIS_HASH, toHex } from '../../src/ledger/format/hash.ts';
import { EMPTY_TREE_ROOT, eventLeafHash, verifyConsistency, verifyInclusion } from '../../src/ledger/format/merkle.ts';
import { generateSigningKey, publicKeyFromPrivate, type SignedTreeHead, signTreeHead, verifyTreeHead } from '../../src/ledger/format/signed-head.ts';
import { verifyProofBundle } from '../../src/ledger/proofs/bundle.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

const run = promisify(execFile);
/** A CLI command's share of a test's budget: a Node process started, then an export or a verify, on a loaded 2-core machine. */
const COMMAND_BUDGET_MS = 20_000;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ CHECKPOINT_EVERY_EVENTS: '1000000', CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' });
});
afterAll(() => t.stop());

/** An episode with steps, completed; spell writes its id as the steps and completion send it. */
async function episodeWithSteps(steps = 3, spell = (id: string) => id): Promise<string> {
  const started = await t.gql(
    'mutation { startEpisode(input: { taskDescription: "prove it", taskType: "audit" }) { ... on StartEpisodePayload { episode { id } } } }',
  );
  const id = started.data.startEpisode.episode.id;
  const s = Array.from({ length: steps }, (_, i) => ({ tool: 'bash', action: `run ${i}`, parameters: { i }, tokens: 1 }));
  await t.gql('mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { __typename } }', { e: spell(id), s });
  await t.gql('mutation($e: ID!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, verdict: "done", artifacts: [] }) { __typename } }', {
    e: spell(id),
  });
  return id;
}

const VERIFY =
  'query($from: BigInt, $to: BigInt) { verifyLedger(fromSeq: $from, toSeq: $to) { ... on LedgerVerification { ok checked stepsChecked firstBadSeq problem reason } } }';

async function verify(from?: number) {
  return (await t.gql(VERIFY, { from: from ?? null })).data.verifyLedger;
}

async function seqOf(type: string, nth = 0): Promise<number> {
  const { rows } = await t.services.db.pool.query('SELECT seq FROM ledger_events WHERE tenant_id = $1 AND type = $2 ORDER BY seq', [t.keys.tenantId, type]);
  return Number(rows[nth].seq);
}

describe('verifyLedger finds tampering at the right seq', () => {
  const pool = () => t.services.db.pool;
  let snapshot: Json[];
  beforeEach(async () => {
    if (!snapshot) {
      for (let i = 0; i < 3; i++) await episodeWithSteps();
      await t.services.checkpoints.publish(t.keys.tenantId);
      snapshot = (await pool().query('SELECT * FROM ledger_events WHERE tenant_id = $1 ORDER BY seq', [t.keys.tenantId])).rows;
    }
    // Restore the untouched ledger before each tampering.
    await pool().query('DELETE FROM ledger_events WHERE tenant_id = $1', [t.keys.tenantId]);
    for (const r of snapshot) {
      await pool().query('INSERT INTO ledger_events VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)', [
        r.tenant_id,
        r.seq,
        r.type,
        r.episode_id,
        r.work_item_id,
        JSON.stringify(r.payload),
        r.prev_hash,
        r.hash,
        r.created_at,
      ]);
    }
  });

  it('verifies the untouched ledger, including every step row', async () => {
    const report = await verify();
    expect(report).toMatchObject({ ok: true, checked: snapshot.length, stepsChecked: 9 });
  });

  it('reports a changed payload at its seq', async () => {
    const seq = await seqOf('episode.completed', 1);
    await pool().query(`UPDATE ledger_events SET payload = jsonb_set(payload, '{status}', '"failed"') WHERE tenant_id = $1 AND seq = $2`, [
      t.keys.tenantId,
      seq,
    ]);
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
      expect(await verify()).toMatchObject({ ok: false, firstBadSeq: String(seq), problem: 'step-mismatch', checked: seq - 1 }); // §7.5: the events before the failing one
    } finally {
      await pool().query(`UPDATE steps SET observation = NULL WHERE episode_id = $1 AND step_number = 2`, [event.episode_id]);
    }
  });

  it('verifies a later range on its own', async () => {
    expect(await verify(4)).toMatchObject({ ok: true, checked: snapshot.length - 3 });
  });
});

describe('proofs and signed checkpoints', () => {
  const CHECKPOINT_FIELDS = 'treeSize rootHash headHash issuedAt signature keyId tenantId';
  const signedHead = (h: Record<string, string>) => ({ ...h, treeSize: Number(h.treeSize) }) as unknown as SignedTreeHead;
  const checkpointCount = async (tenantId = t.keys.tenantId) =>
    (await t.services.db.pool.query('SELECT count(*)::int AS n FROM ledger_checkpoints WHERE tenant_id = $1', [tenantId])).rows[0].n as number;

  it('serves inclusion proofs from H(0x00 || event hash) against the latest signed checkpoint, and never signs one for a read', async () => {
    await episodeWithSteps(2);
    const key = (await t.gql('{ ledgerPublicKey { publicKey keyId algorithm } }')).data.ledgerPublicKey;
    expect(key.algorithm).toBe('Ed25519');
    const query = `{ inclusionProof(seq: 2) { __typename ... on InclusionProof { seq leafIndex treeSize eventHash leafHash auditPath checkpoint { ${CHECKPOINT_FIELDS} } }
      ... on NotCheckpointedError { seq checkpointTreeSize retryAfterMs } } }`;
    const before = await checkpointCount();
    const head = Number((await t.gql('{ ledgerHead { seq } }')).data.ledgerHead.seq);
    const latest = (await t.services.db.pool.query('SELECT max(tree_size)::int AS n FROM ledger_checkpoints WHERE tenant_id = $1', [t.keys.tenantId])).rows[0]
      .n;
    if (latest === null || latest < 2) {
      const pending = (await t.gql(query)).data.inclusionProof;
      expect(pending).toMatchObject({ __typename: 'NotCheckpointedError', seq: '2' });
      // The time left until the next scheduled signing (interval 1 h here), not a constant.
      expect(pending.retryAfterMs).toBeGreaterThanOrEqual(100);
      expect(pending.retryAfterMs).toBeLessThanOrEqual(3_600_000);
      expect(await checkpointCount()).toBe(before);
    }
    await t.services.checkpoints.publish(t.keys.tenantId);
    const proof = (await t.gql(query)).data.inclusionProof;
    expect(proof.treeSize).toBe(String(head));
    const checkpoint = signedHead(proof.checkpoint);
    expect(verifyTreeHead(checkpoint, fromHex(key.publicKey, 32))).toBe(true);
    const { rows } = await t.services.db.pool.query('SELECT hash FROM ledger_events WHERE tenant_id = $1 AND seq = 2', [t.keys.tenantId]);
    expect(proof.eventHash).toBe(rows[0].hash);
    expect(proof.leafHash).toBe(toHex(eventLeafHash(rows[0].hash)));
    const claim = {
      leafIndex: 1,
      treeSize: Number(proof.treeSize),
      leafHash: fromHex(proof.leafHash, 32),
      auditPath: proof.auditPath.map((h: string) => fromHex(h, 32)),
      rootHash: fromHex(checkpoint.rootHash, 32),
    };
    expect(verifyInclusion(claim)).toBe(true);
    expect(verifyInclusion({ ...claim, leafIndex: 2 })).toBe(false);
    const reads = await checkpointCount();
    await t.gql(query);
    expect(await checkpointCount()).toBe(reads);
  });

  it('serves consistency proofs between two sizes, from the empty tree too', async () => {
    const res = await t.gql('{ consistencyProof(fromSize: 3) { ... on ConsistencyProof { fromSize toSize fromRoot toRoot proof } } }');
    const p = res.data.consistencyProof;
    const claim = {
      oldSize: 3,
      newSize: Number(p.toSize),
      oldRoot: fromHex(p.fromRoot, 32),
      newRoot: fromHex(p.toRoot, 32),
      proof: p.proof.map((h: string) => fromHex(h, 32)),
    };
    expect(verifyConsistency(claim)).toBe(true);
    expect(verifyConsistency({ ...claim, oldRoot: fromHex(p.toRoot, 32) })).toBe(false);
    const empty = (await t.gql('{ consistencyProof(fromSize: 0) { ... on ConsistencyProof { fromSize fromRoot toRoot proof } } }')).data.consistencyProof;
    expect(empty).toMatchObject({ fromSize: '0', fromRoot: toHex(EMPTY_TREE_ROOT), proof: [], toRoot: p.toRoot });
  });

  it('serves the empty tree: genesis head hash, a signed size-0 checkpoint from the timer, consistency from 0', async () => {
    const fresh = await t.addTenant(`empty-${Date.now()}`);
    const head = (await t.gql(`{ ledgerHead { seq hash latestCheckpoint { ${CHECKPOINT_FIELDS} } } }`, {}, fresh.read)).data.ledgerHead;
    expect(head).toEqual({ seq: '0', hash: GENESIS_HASH, latestCheckpoint: null });
    await t.services.checkpoints.publishDue();
    const signed = (await t.gql(`{ ledgerHead { latestCheckpoint { ${CHECKPOINT_FIELDS} } } }`, {}, fresh.read)).data.ledgerHead.latestCheckpoint;
    expect(signed).toMatchObject({ treeSize: '0', rootHash: toHex(EMPTY_TREE_ROOT), headHash: GENESIS_HASH, tenantId: fresh.tenantId });
    const key = (await t.gql('{ ledgerPublicKey { publicKey } }')).data.ledgerPublicKey.publicKey;
    expect(verifyTreeHead(signedHead(signed), fromHex(key, 32))).toBe(true);
    const proof = (await t.gql('{ consistencyProof(fromSize: 0) { ... on ConsistencyProof { fromSize toSize fromRoot toRoot proof } } }', {}, fresh.read)).data
      .consistencyProof;
    expect(proof).toEqual({ fromSize: '0', toSize: '0', fromRoot: toHex(EMPTY_TREE_ROOT), toRoot: toHex(EMPTY_TREE_ROOT), proof: [] });
    const all = (await t.gql(`{ ledgerCheckpoints { ... on SignedTreeHeadPage { hasNextPage checkpoints { treeSize } } } }`, {}, fresh.read)).data
      .ledgerCheckpoints;
    expect(all).toEqual({ hasNextPage: false, checkpoints: [{ treeSize: '0' }] });
  });

  it('signs exactly every N events and on the timer; ledgerCheckpoints serves every one', async () => {
    const app = await startTestApp({ CHECKPOINT_EVERY_EVENTS: '4', CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' });
    try {
      const started = await app.gql(
        'mutation { startEpisode(input: { taskDescription: "x", taskType: "y" }) { ... on StartEpisodePayload { episode { id } } } }',
      );
      const id = started.data.startEpisode.episode.id;
      for (let i = 0; i < 9; i++) await app.gql('mutation($e: ID!) { logStep(episodeId: $e, step: { tool: "t" }) { __typename } }', { e: id });
      const sizes = async () =>
        (await app.services.db.pool.query('SELECT tree_size::int AS n FROM ledger_checkpoints WHERE tenant_id = $1 ORDER BY 1', [app.keys.tenantId])).rows.map(
          (r) => r.n,
        );
      const deadline = Date.now() + 10_000;
      while ((await sizes()).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await sizes()).toEqual([4, 8]); // 10 events: a signed head at each multiple of 4, nothing else
      await app.services.checkpoints.publishDue();
      expect(await sizes()).toEqual([4, 8, 10]);
      const page = (await app.gql('{ ledgerCheckpoints(afterTreeSize: 4, first: 1) { ... on SignedTreeHeadPage { hasNextPage checkpoints { treeSize } } } }'))
        .data.ledgerCheckpoints;
      expect(page).toEqual({ hasNextPage: true, checkpoints: [{ treeSize: '8' }] });
      // A multiple a stopped process left unsigned is signed by the next timer run.
      await app.services.db.pool.query('DELETE FROM ledger_checkpoints WHERE tenant_id = $1 AND tree_size = 4', [app.keys.tenantId]);
      await app.services.checkpoints.publishDue();
      expect(await sizes()).toEqual([4, 8, 10]);
    } finally {
      await app.stop();
    }
  });
});

describe('episode proof bundles verify offline', () => {
  it("carries the episode's events and step rows; verifies with the library and the CLI (with a trusted key only), and fails once tampered", {
    timeout: 5 * COMMAND_BUDGET_MS,
  }, async () => {
    const id = await episodeWithSteps(4);
    const query =
      'query($e: ID!) { episodeProofBundle(episodeId: $e) { __typename ... on EpisodeProofBundle { bundle eventCount stepCount } ... on NotCheckpointedError { seq retryAfterMs } } }';
    expect((await t.gql(query, { e: id })).data.episodeProofBundle.__typename).toBe('NotCheckpointedError');
    await t.services.checkpoints.publish(t.keys.tenantId);
    const res = await t.gql(query, { e: id });
    const bundle = res.data.episodeProofBundle.bundle;
    expect(res.data.episodeProofBundle).toMatchObject({ eventCount: 3, stepCount: 4 });
    expect(bundle.format).toBe('episodic.bundle.v4');
    expect(bundle.events.map((e: Json) => e.type)).toEqual(['episode.started', 'steps.logged', 'episode.completed']);
    const serverKey = (await t.gql('{ ledgerPublicKey { publicKey } }')).data.ledgerPublicKey.publicKey;
    const report = verifyProofBundle(bundle, fromHex(serverKey, 32));
    expect(report).toMatchObject({ ok: true, signatureValid: true, eventsChecked: 3, stepsChecked: 4 });

    const dir = await mkdtemp(join(tmpdir(), 'episodic-bundle-'));
    const good = join(dir, 'bundle.json');
    await writeFile(good, JSON.stringify(bundle));
    const cli = (args: string[]) =>
      run(process.execPath, ['bin/episodic.mjs', ...args]).then(
        (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
        (e) => ({ code: e.code as number, out: e.stdout as string, err: e.stderr as string }),
      );
    expect((await cli(['verify', good, '--public-key', serverKey])).code).toBe(0);
    const keyless = await cli(['verify', good]);
    expect(keyless.code).toBe(2);
    expect(keyless.err).toMatch(/trusted key/);

    const tampered = structuredClone(bundle);
    tampered.events[1].payload.steps[0].hash = '0'.repeat(64);
    const bad = join(dir, 'tampered.json');
    await writeFile(bad, JSON.stringify(tampered));
    const failed = await cli(['verify', bad, '--public-key', serverKey]);
    expect(failed.code).toBe(3);
    expect(failed.err).toMatch(/NOT VERIFIED/);
    // Re-signed with another key, carrying that key: only the caller's key decides.
    const forger = generateSigningKey();
    const forged = structuredClone(tampered);
    forged.treeHead = signTreeHead({ ...forged.treeHead }, forger);
    forged.publicKey = toHex(publicKeyFromPrivate(forger));
    const forgedFile = join(dir, 'forged.json');
    await writeFile(forgedFile, JSON.stringify(forged));
    expect((await cli(['verify', forgedFile, '--public-key', serverKey])).code).toBe(3);
    expect((await cli(['verify', forgedFile])).code).toBe(2);
  });

  it('includes the lease.charged event of an episode run on a lease (its payload names the episode)', async () => {
    const item = (await t.gql('mutation { createWorkItem(title: "leased") { ... on WorkItemPayload { workItem { id } } } }')).data.createWorkItem.workItem.id;
    const issued = await t.gql(
      'mutation($w: ID!, $x: DateTime!) { issueLease(workItemId: $w, issuer: "o", holder: "a", expiresAt: $x, budget: { episodes: 2 }) { ... on LeasePayload { lease { id } } } }',
      { w: item, x: new Date(Date.now() + 3_600_000).toISOString() },
    );
    const leaseId = issued.data.issueLease.lease.id;
    const started = await t.gql(
      'mutation($l: ID!) { startEpisode(input: { taskDescription: "leased", taskType: "audit", leaseId: $l }) { ... on StartEpisodePayload { episode { id } } } }',
      { l: leaseId },
    );
    const id = started.data.startEpisode.episode.id;
    await t.gql('mutation($e: ID!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, verdict: "done", artifacts: [] }) { __typename } }', { e: id });
    await t.services.checkpoints.publish(t.keys.tenantId);
    const res = await t.gql('query($e: ID!) { episodeProofBundle(episodeId: $e) { ... on EpisodeProofBundle { bundle } } }', { e: id });
    const bundle = res.data.episodeProofBundle.bundle;
    expect(bundle.events.map((e: Json) => e.type)).toEqual(
      ['episode.started', 'episode.completed', 'lease.charged', 'work_item.stopped'].slice(0, bundle.events.length),
    );
    expect(bundle.events.find((e: Json) => e.type === 'lease.charged')).toMatchObject({ episodeId: null, payload: { episodeId: id, leaseId } });
    const serverKey = (await t.gql('{ ledgerPublicKey { publicKey } }')).data.ledgerPublicKey.publicKey;
    expect(verifyProofBundle(bundle, fromHex(serverKey, 32))).toMatchObject({ ok: true });
  });

  it('reads an episode id in any letter case: steps, completion and bundle asked in upper case verify as stored', async () => {
    const id = await episodeWithSteps(2, (e) => e.toUpperCase());
    await t.services.checkpoints.publish(t.keys.tenantId);
    const res = await t.gql('query($e: ID!) { episodeProofBundle(episodeId: $e) { ... on EpisodeProofBundle { bundle stepCount } } }', {
      e: id.toUpperCase(),
    });
    const { bundle, stepCount } = res.data.episodeProofBundle;
    expect(stepCount).toBe(2);
    expect(bundle.episodeId).toBe(id);
    expect(bundle.events.map((e: Json) => e.episodeId)).toEqual([id, id, id]);
    const serverKey = (await t.gql('{ ledgerPublicKey { publicKey } }')).data.ledgerPublicKey.publicKey;
    expect(verifyProofBundle(bundle, fromHex(serverKey, 32))).toMatchObject({ ok: true, eventsChecked: 3, stepsChecked: 2 });
  });

  it('refuses a bundle for an episode of another tenant', async () => {
    const id = await episodeWithSteps(1);
    const other = await t.addTenant('tenant-other');
    const res = await t.gql('query($e: ID!) { episodeProofBundle(episodeId: $e) { __typename ... on NotFoundError { entity } } }', { e: id }, other.read);
    expect(res.data.episodeProofBundle).toEqual({ __typename: 'NotFoundError', entity: 'Episode' });
  });
});
