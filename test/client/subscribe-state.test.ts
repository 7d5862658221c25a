// subscribeLedger with a kept state (docs/LEDGER.md §7.3.1, what `episodic verify --state`
// keeps): the stream starts after the kept checkpoint and checkpoint() moves the state to the
// newest signed checkpoint reached, through a consistency proof from the kept tree. A state whose
// history differs from the server's (an event rewritten at or before its checkpoint) is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { createEpisodicClient, type EpisodicClient, type EpisodicError, type LedgerEvent, unwrap } from '../../src/index.ts';
import { toHex } from '../../src/ledger/format/hash.ts';
import { MerkleTree } from '../../src/ledger/format/merkle.ts';
import { STATE_FORMAT, type VerifierState } from '../../src/ledger/proofs/export-verify.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { waitFor } from './support.ts';

let t: TestApp;
let api: EpisodicClient;
let publicKey: string;

beforeAll(async () => {
  t = await startTestApp({ CHECKPOINT_EVERY_EVENTS: '4', CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' });
  // Writes in process (t.fetch); the subscriptions under test go over graphql-ws to t.url.
  api = createEpisodicClient({ url: t.url, apiKey: t.keys.admin, fetch: t.fetch });
  publicKey = (await api.ledgerPublicKey()).publicKey;
});
afterAll(() => t?.stop());

async function grow(steps: number): Promise<number> {
  const ep = unwrap(await api.startEpisode({ taskDescription: 'stream with a state', taskType: 'stream' })).episode;
  for (let i = 0; i < steps; i++) unwrap(await api.logStep(ep.id, { kind: 'tool_call', tool: 'shell', action: `step ${i}` }));
  return Number((await api.ledgerHead()).seq);
}

/** The state of checkpoint 4, verified the whole way: the root recomputed from events 1..4. */
async function stateAt4(): Promise<VerifierState> {
  const page = unwrap(await api.ledgerEvents({ after: 0, first: 4 }));
  const { events } = page;
  const checkpoints = unwrap(await api.ledgerCheckpoints({ afterTreeSize: 0, first: 1 })).checkpoints;
  const head = must(checkpoints[0]);
  expect(Number(head.treeSize)).toBe(4);
  expect(head.rootHash).toBe(toHex(MerkleTree.fromEventHashes(events.map((e) => e.hash)).root(4)));
  return { format: STATE_FORMAT, tenantId: head.tenantId, treeSize: 4, rootHash: head.rootHash, headHash: head.headHash };
}

describe('subscribeLedger with a kept state', () => {
  it('starts after the kept checkpoint and moves the state to the newest one reached, by a consistency proof', async () => {
    await grow(6);
    const state = await stateAt4();
    const head = await grow(3);
    const events: LedgerEvent[] = [];
    const errors: EpisodicError[] = [];
    const kept: VerifierState[] = [];
    const sub = api.subscribeLedger({
      state,
      publicKey,
      onEvent: (e) => void events.push(e),
      onError: (e) => errors.push(e),
      onState: (s) => void kept.push(s),
    });
    await waitFor(() => events.at(-1)?.seq === head, 15_000, 'the events after the state');
    const moved = await sub.checkpoint();
    await sub.close();
    expect(errors).toEqual([]);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: head - 4 }, (_, i) => i + 5));
    const newest = Math.floor(head / 4) * 4;
    expect(moved).toMatchObject({ format: STATE_FORMAT, treeSize: newest, headHash: must(events.find((e) => e.seq === newest)).hash });
    expect(kept).toEqual([moved]);
  });

  it('refuses a state whose tree the server no longer extends (history rewritten at or before it)', async () => {
    const real = await stateAt4();
    const head = await grow(4);
    const errors: EpisodicError[] = [];
    const events: LedgerEvent[] = [];
    const forged = { ...real, rootHash: toHex(new Uint8Array(32)) };
    const sub = api.subscribeLedger({ state: forged, publicKey, onEvent: (e) => void events.push(e), onError: (e) => errors.push(e) });
    await waitFor(() => events.at(-1)?.seq === head, 15_000, 'the events after the state');
    await expect(sub.checkpoint()).rejects.toMatchObject({ kind: 'verification' });
    await sub.done;
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/proof-invalid/)]);
  });

  it('refuses a stream that does not continue the kept head hash', async () => {
    const real = await stateAt4();
    const errors: EpisodicError[] = [];
    const sub = api.subscribeLedger({
      state: { ...real, headHash: toHex(new Uint8Array(32)) },
      publicKey,
      onEvent: () => undefined,
      onError: (e) => errors.push(e),
    });
    await sub.done;
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/seq 5: prev-hash-mismatch/)]);
  });

  it('needs the trusted key and the whole stream', () => {
    expect(() =>
      api.subscribeLedger({
        state: { format: STATE_FORMAT, tenantId: '00000000-0000-4000-8000-000000000000', treeSize: 0, rootHash: '0'.repeat(64), headHash: '0'.repeat(64) },
        onEvent: () => undefined,
      }),
    ).toThrow(/publicKey/);
  });
});
