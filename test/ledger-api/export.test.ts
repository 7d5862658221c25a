// `episodic export` writes every signed checkpoint with the events (docs/LEDGER.md §6.2), so
// `episodic verify` detects a cut-off tail; with no trusted key it calls nothing verified.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

const run = promisify(execFile);
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
  it('verifies an export with the trusted key, refuses without one, and reports a cut-off tail', async () => {
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
    expect(lines[0]).toEqual({ format: 'episodic.export.v1', tenantId: t.keys.tenantId, afterSeq: 0, toSeq: null });
    expect(lines.filter((l) => l.checkpoint).map((l) => l.checkpoint.treeSize)).toEqual([5]);

    const ok = await cli(['verify', '--public-key', key, '--json', file]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ ok: true, kind: 'export', checked: 5, checkpointsChecked: 1, latestCheckpoint: { treeSize: 5 } });
    const keyless = await cli(['verify', file]);
    expect(keyless.code).toBe(2);
    expect(keyless.out).not.toMatch(/ok/);

    const cut = join(dir, 'cut.jsonl');
    await writeFile(
      cut,
      lines
        .slice(0, -2)
        .map((l) => JSON.stringify(l))
        .join('\n'),
    );
    const failed = await cli(['verify', '--public-key', key, cut]);
    expect(failed.code).toBe(3);
    expect(failed.err).toMatch(/seq 4: missing-tail/);
  });
});
