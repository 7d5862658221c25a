// The claims events make about stored rows (docs/LEDGER.md §3.3, §7.5): a patterns.extracted
// re-score claims the new reward and reflection by their hashes; one written before events carried
// them withdraws the earlier claims; episode.started claims the record and the context pack; the
// served copies (§3.3) follow their claims: reward_score the latest reward's `reward`.
import { describe, expect, it } from 'vitest';
import { contentHash, type StoredLedgerEvent } from '../../src/ledger/format/hash.ts';
import { rowClaimsOf } from '../../src/ledger/format/hashed-rows.ts';

const EPISODE = '0b8e2f4a-1c3d-4e5f-8a9b-c0d1e2f3a4b5';
const h = (c: string) => c.repeat(64);
const event = (seq: number, type: string, payload: unknown): StoredLedgerEvent => ({
  tenantId: '6f1c1d2e-8a3b-4c5d-9e0f-112233445566',
  seq,
  type,
  episodeId: EPISODE,
  workItemId: null,
  payload,
  createdAt: '2026-11-21T20:50:00.000Z',
  prevHash: h('0'),
  hash: h('0'),
});

const started = event(1, 'episode.started', { inputHash: h('1'), recordHash: h('2'), contextPack: null });
const ended = event(2, 'episode.completed', { outcomeHash: h('3'), experience: { reward: 0.5, rewardHash: h('4'), reflectionHash: h('5') } });

describe('row claims', () => {
  it('a re-score with hashes claims the new reward and reflection at its own seq', () => {
    const rescored = event(3, 'patterns.extracted', { experience: { reward: 0.7, rewardHash: h('6'), reflectionHash: h('7') } });
    expect(rowClaimsOf([started, ended, rescored]).map(({ kind, seq, hash }) => [kind, seq, hash])).toEqual([
      ['episode.record', 1, h('2')],
      ['episode.context_pack', 1, contentHash({ packHash: null, manifestHash: null })],
      ['episode.outcome', 2, h('3')],
      ['episode.reward', 3, h('6')],
      ['episode.reflection', 3, h('7')],
      ['episode.reward_score', 3, contentHash(0.7)],
    ]);
  });

  it('a re-score written before events carried hashes withdraws the claims it replaced', () => {
    const old = event(3, 'patterns.extracted', { reward: { before: 0.5, after: 0.7 } });
    expect(rowClaimsOf([started, ended, old]).map((c) => c.kind)).toEqual(['episode.record', 'episode.context_pack', 'episode.outcome']);
  });

  it('a file before v4 is not asked for the served copies', () => {
    expect(rowClaimsOf([started, ended], false).map((c) => c.kind)).toEqual(['episode.record', 'episode.outcome', 'episode.reward', 'episode.reflection']);
  });
});
