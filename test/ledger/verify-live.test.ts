// verifyLedger on a live ledger: while a writer keeps journaling (checkpoints signed every few
// events), every verification of the whole ledger passes. The ledger grows and gets new
// checkpoints during each walk; a verifier that read how far the ledger reached (its head row and
// the largest size signed) after the walk reported those as a missing tail or a missing checkpoint.
import { expect, it } from 'vitest';
import { type TestApp, useApp } from '../support/app.ts';

let t: TestApp;
useApp((app) => (t = app), { CHECKPOINT_EVERY_EVENTS: '3', CHECKPOINT_INTERVAL_MS: '100' });

const START =
  'mutation { startEpisode(input: { taskDescription: "journal while verified", taskType: "ledger" }) { ... on StartEpisodePayload { episode { id } } } }';
const LOG = 'mutation($id: ID!, $steps: [StepInput!]!) { logSteps(episodeId: $id, steps: $steps) { __typename } }';
const VERIFY = '{ verifyLedger { __typename ... on LedgerVerification { ok problem reason checked } } }';
/** Whole verifications, each of a ledger still growing, and the writes at least made beside them. */
const VERIFICATIONS = 15;
const WRITES = 20;
/** The budget from that work: a verification or a write up to 4 s on a loaded 2-core machine (it took 25 s of the default 60 s at load 10). */
const LIVE_BUDGET_MS = (VERIFICATIONS + WRITES) * 4_000;

it('passes every verification of the whole ledger while events are appended and checkpoints signed', { timeout: LIVE_BUDGET_MS }, async () => {
  const started = await t.gql<{ startEpisode: { episode: { id: string } } }>(START, {}, t.keys.write);
  const id = started.data?.startEpisode.episode.id as string;
  let writing = true;
  const writer = (async () => {
    let calls = 0;
    while (writing || calls < WRITES) {
      const res = await t.gql<{ logSteps: { __typename: string } }>(LOG, { id, steps: [{ tool: 'bash', action: `step ${calls}` }] }, t.keys.write);
      expect(res.data?.logSteps.__typename).toBe('LogStepsPayload');
      calls += 1;
    }
    return calls;
  })();
  const verdicts: Array<{ ok: boolean; problem: string | null; reason: string | null; checked: number }> = [];
  for (let i = 0; i < VERIFICATIONS; i++) {
    const res = await t.gql<{ verifyLedger: (typeof verdicts)[number] }>(VERIFY, {}, t.keys.read);
    verdicts.push(res.data?.verifyLedger as (typeof verdicts)[number]);
  }
  writing = false;
  expect(await writer).toBeGreaterThanOrEqual(WRITES);
  expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  // The walks saw the ledger grow: later ones checked more events.
  expect(new Set(verdicts.map((v) => v.checked)).size).toBeGreaterThan(1);
});
