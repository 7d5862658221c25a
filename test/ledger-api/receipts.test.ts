// Run receipts and pack-miss defect records (what an episode was given and what it lacked), as ledger events.
import { describe, expect, it } from 'vitest';
import { type TestApp, useApp } from '../support/app.ts';

let t: TestApp;
useApp((app) => (t = app));

const PACK = 'a'.repeat(64);
const MANIFEST = 'b'.repeat(64);

async function start(contextPack: unknown) {
  const res = await t.gql(
    'mutation($i: StartEpisodeInput!) { startEpisode(input: $i) { __typename ... on StartEpisodePayload { episode { id } } ... on InputLimitError { violations { field } } } }',
    {
      i: { taskDescription: 'with a pack', taskType: 'code', ...(contextPack ? { contextPack } : {}) },
    },
  );
  return res.data.startEpisode;
}

const MISS =
  'mutation($e: ID!, $s: String!) { recordPackMiss(episodeId: $e, stableId: $s, reason: "file not in pack") { ... on RecordPackMissPayload { defectRecorded occurrences } } }';

async function events(episodeId: string) {
  const { rows } = await t.services.db.pool.query('SELECT seq, type, payload, prev_hash FROM ledger_events WHERE episode_id = $1 ORDER BY seq', [episodeId]);
  return rows;
}

describe('pack misses and run receipts', () => {
  it('records a defect on the first miss of a stable id only, and ends with an insufficient receipt', async () => {
    const id = (await start({ packHash: PACK, manifestHash: MANIFEST })).episode.id;
    expect((await t.gql(MISS, { e: id, s: 'src/a.ts' })).data.recordPackMiss).toEqual({ defectRecorded: true, occurrences: 1 });
    expect((await t.gql(MISS, { e: id, s: 'src/a.ts' })).data.recordPackMiss).toEqual({ defectRecorded: false, occurrences: 2 });
    expect((await t.gql(MISS, { e: id, s: 'src/b.ts' })).data.recordPackMiss).toEqual({ defectRecorded: true, occurrences: 1 });
    await t.gql('mutation($e: ID!) { logStep(episodeId: $e, step: { tool: "bash", tokens: 7 }) { __typename } }', { e: id });
    await t.gql('mutation($e: ID!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, verdict: "ok", artifacts: [] }) { __typename } }', { e: id });

    const list = await events(id);
    expect(list.map((e) => e.type)).toEqual([
      'episode.started',
      'defect.recorded',
      'pack.missed',
      'defect.recorded',
      'steps.logged',
      'episode.completed',
      'run.receipt',
    ]);
    const receiptIndex = list.length - 1;
    const receipt = list[receiptIndex];
    expect(receipt.payload).toMatchObject({
      contextPackHash: PACK,
      manifestHash: MANIFEST,
      sufficiency: 'insufficient',
      packMisses: 2,
      budgetDelta: { steps: 1, tokens: 7 },
      ledgerHead: { seq: Number(receipt.seq) - 1, hash: receipt.prev_hash },
    });
  });

  it('ends an episode that never missed with a sufficient receipt, and one without a pack with none', async () => {
    const withPack = (await start({ packHash: PACK })).episode.id;
    await t.gql('mutation($e: ID!) { cancelEpisode(episodeId: $e, reason: "stop") { __typename } }', { e: withPack });
    expect((await events(withPack)).at(-1)).toMatchObject({ type: 'run.receipt', payload: { sufficiency: 'sufficient', packMisses: 0, manifestHash: null } });
    const without = (await start(null)).episode.id;
    await t.gql('mutation($e: ID!) { cancelEpisode(episodeId: $e) { __typename } }', { e: without });
    expect((await events(without)).map((e) => e.type)).not.toContain('run.receipt');
  });

  it('refuses a pack hash that is not a BLAKE3 hex digest', async () => {
    const res = await start({ packHash: 'not-a-hash' });
    expect(res).toEqual({ __typename: 'InputLimitError', violations: [{ field: 'input.contextPack.packHash' }] });
  });
});
