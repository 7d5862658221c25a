// `episodic export` writes every signed checkpoint with the events (docs/LEDGER.md §6.2), so
// `episodic verify` detects a cut-off tail; with no trusted key it calls nothing verified.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainHash } from '../../src/ledger/format/hash.ts';
import { readEvents } from '../../src/ledger/store/read.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

const run = promisify(execFile);
/** A CLI command's share of a test's budget: a Node process started, then an export or a verify, on a loaded 2-core machine (60 s for six were not enough). */
const COMMAND_BUDGET_MS = 20_000;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ CHECKPOINT_EVERY_EVENTS: '1000000', CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' });
});
afterAll(() => t.stop());

const cli = (args: string[]) =>
  run(process.execPath, ['bin/episodic.mjs', ...args]).then(
    (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
    (e) => ({ code: e.code as number, out: e.stdout as string, err: e.stderr as string }),
  );

describe('episodic export | verify', () => {
  it('verifies an export with the trusted key, refuses without one, and reports a cut-off tail', { timeout: 4 * COMMAND_BUDGET_MS }, async () => {
    const started = await t.gql(
      'mutation { startEpisode(input: { taskDescription: "export me", taskType: "audit" }) { ... on StartEpisodePayload { episode { id } } } }',
    );
    const id = started.data.startEpisode.episode.id;
    for (let i = 0; i < 4; i++) await t.gql('mutation($e: ID!) { logStep(episodeId: $e, step: { tool: "t" }) { __typename } }', { e: id });
    await t.services.checkpoints.publish(t.keys.tenantId);
    const key = (await t.gql('{ ledgerPublicKey { publicKey } }')).data.ledgerPublicKey.publicKey;

    const dir = await mkdtemp(join(tmpdir(), 'episodic-export-'));
    const file = join(dir, 'ledger.jsonl');
    expect((await cli(['export', '--url', t.url, '--key', t.keys.read, '--output', file])).code).toBe(0);
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ format: 'episodic.export.v4', tenantId: t.keys.tenantId, afterSeq: 0, toSeq: null });
    expect(lines.filter((l) => l.checkpoint).map((l) => l.checkpoint.treeSize)).toEqual([5]);

    const ok = await cli(['verify', '--public-key', key, '--json', file]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ ok: true, kind: 'export', checked: 5, checkpointsChecked: 1, latestCheckpoint: { treeSize: 5 } });
    const keyless = await cli(['verify', file]);
    expect(keyless.code).toBe(2);
    expect(keyless.out).not.toMatch(/ok/);

    const cut = join(dir, 'cut.jsonl');
    // The last event cut off, with the row lines after it.
    await writeFile(
      cut,
      lines
        .filter((l) => !l.row)
        .slice(0, -1)
        .map((l) => JSON.stringify(l))
        .join('\n'),
    );
    const failed = await cli(['verify', '--public-key', key, cut]);
    expect(failed.code).toBe(3);
    // The newest checkpoint still signs seq 5: the first seq the cut file no longer vouches for.
    expect(failed.err).toMatch(/seq 5: missing-tail/);
  });

  it('checks only what is new with --state, and catches an event rewritten before the kept checkpoint', { timeout: 6 * COMMAND_BUDGET_MS }, async () => {
    const key = (await t.gql('{ ledgerPublicKey { publicKey } }')).data.ledgerPublicKey.publicKey;
    const dir = await mkdtemp(join(tmpdir(), 'episodic-state-'));
    const [whole, state] = [join(dir, 'whole.jsonl'), join(dir, 'state.json')];
    await t.services.checkpoints.publish(t.keys.tenantId);
    expect((await cli(['export', '--url', t.url, '--key', t.keys.read, '--output', whole])).code).toBe(0);
    const first = await cli(['verify', '--public-key', key, '--state', state, '--json', whole]);
    expect(first.code).toBe(0);
    const kept = JSON.parse(await readFile(state, 'utf8'));
    expect(kept).toMatchObject({ format: 'episodic.verifier-state.v1', tenantId: t.keys.tenantId });

    const started = await t.gql(
      'mutation { startEpisode(input: { taskDescription: "grow", taskType: "audit" }) { ... on StartEpisodePayload { episode { id } } } }',
    );
    for (let i = 0; i < 3; i++)
      await t.gql('mutation($e: ID!) { logStep(episodeId: $e, step: { tool: "t" }) { __typename } }', { e: started.data.startEpisode.episode.id });
    await t.services.checkpoints.publish(t.keys.tenantId);
    const newer = join(dir, 'newer.jsonl');
    expect((await cli(['export', '--url', t.url, '--key', t.keys.read, '--after', String(kept.treeSize), '--output', newer])).code).toBe(0);
    const second = await cli(['verify', '--public-key', key, '--state', state, '--json', newer]);
    expect(second.code, second.err).toBe(0);
    expect(JSON.parse(second.out)).toMatchObject({ ok: true, checked: 4, state: { treeSize: kept.treeSize + 4 } });
    expect(JSON.parse(await readFile(state, 'utf8')).treeSize).toBe(kept.treeSize + 4);

    // The operator rewrites event 2 and re-chains everything after it, so the stored chain is whole again.
    const pool = t.services.db.pool;
    const events = await readEvents(pool, t.keys.tenantId, { afterSeq: 0, limit: 1000 });
    let prevHash = events[0]?.hash ?? '';
    for (const e of events.slice(1)) {
      const payload = e.seq === 2 ? { ...(e.payload as object), forged: true } : e.payload;
      const hash = chainHash(prevHash, { ...e, payload });
      await pool.query('UPDATE ledger_events SET payload = $3, prev_hash = $4, hash = $5 WHERE tenant_id = $1 AND seq = $2', [
        t.keys.tenantId,
        e.seq,
        JSON.stringify(payload),
        prevHash,
        hash,
      ]);
      prevHash = hash;
    }
    await pool.query('UPDATE ledger_heads SET hash = $2 WHERE tenant_id = $1', [t.keys.tenantId, prevHash]);
    await t.gql('mutation($e: ID!) { logStep(episodeId: $e, step: { tool: "t" }) { __typename } }', { e: started.data.startEpisode.episode.id });
    await t.services.checkpoints.publish(t.keys.tenantId);
    const more = await cli(['export', '--url', t.url, '--key', t.keys.read, '--after', String(kept.treeSize + 4), '--output', join(dir, 'more.jsonl')]);
    expect(more.code).toBe(0);
    const before = await readFile(state, 'utf8');
    const caught = await cli(['verify', '--public-key', key, '--state', state, join(dir, 'more.jsonl')]);
    expect(caught.code).toBe(3);
    expect(caught.err).toMatch(/history was rewritten|prev-hash-mismatch|head-hash-mismatch/);
    expect(await readFile(state, 'utf8')).toBe(before);
  });
});
