// The event-type filter on live delivery, over a real graphql-ws subscription to a real server:
// only the chosen types arrive, every one of them, in seq order, with the other types in between.
import { expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { type TestApp, useApp } from '../support/app.ts';
import { LEDGER_EVENTS, logSteps, seqsOf, startEpisode, storedLedger, waitUntil, watch } from './support.ts';

let t: TestApp;
useApp((app) => (t = app));

const CHECKPOINT = 'mutation($e: ID!) { saveCheckpoint(episodeId: $e, state: { at: 1 }) { __typename } }';
const CRITIQUE = 'mutation($e: ID!) { recordCritique(episodeId: $e, verdict: "fine") { __typename } }';
const COMPLETE = 'mutation($e: ID!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, verdict: "ok", artifacts: [] }) { __typename } }';

it('delivers live only the events of the chosen types, all of them, in seq order', async () => {
  const before = await storedLedger(t);
  const headBefore = before.length;
  // From the head read here: a subscription without afterSeq starts at the head it reads itself,
  // which on a busy machine can come after the first write below.
  const afterSeq = String(before.at(-1)?.seq ?? 0);
  const client = t.wsClient(t.keys.read);
  const steps = watch(client, LEDGER_EVENTS, { afterSeq, filter: { types: ['steps.logged'] } });
  const lifecycle = watch(client, LEDGER_EVENTS, { afterSeq, filter: { types: ['episode.started', 'episode.completed'] } });
  await waitUntil(() => t.services.ledgerBus.subscribers === 2, 'both subscriptions to go live');

  const [one, two] = [await startEpisode(t), await startEpisode(t)];
  await logSteps(t, one, 2);
  await t.gql(CHECKPOINT, { e: one });
  await logSteps(t, two);
  await t.gql(CRITIQUE, { e: two });
  await t.gql(COMPLETE, { e: one });
  await logSteps(t, two, 3);
  await t.gql(COMPLETE, { e: two });
  // A last event of each filter's types: once it arrives, everything before it has been delivered or skipped.
  const last = await startEpisode(t);
  await logSteps(t, last);

  const written = (await storedLedger(t)).slice(headBefore);
  const ofTypes = (...types: string[]) => written.filter((e) => types.includes(e.type));
  expect(ofTypes('steps.logged')).toHaveLength(4);
  expect(ofTypes('episode.started', 'episode.completed')).toHaveLength(5);
  expect(ofTypes('checkpoint.saved', 'critique.recorded')).toHaveLength(2); // other types in between

  await waitUntil(() => seqsOf(steps.values).includes(must(ofTypes('steps.logged').at(-1)).seq), 'the last steps.logged');
  await waitUntil(() => seqsOf(lifecycle.values).includes(must(ofTypes('episode.started').at(-1)).seq), 'the last episode.started');
  expect(seqsOf(steps.values)).toEqual(seqsOf(ofTypes('steps.logged')));
  expect(steps.values.every((e) => e.type === 'steps.logged')).toBe(true);
  expect(seqsOf(lifecycle.values)).toEqual(seqsOf(ofTypes('episode.started', 'episode.completed')));
  expect([steps.error, lifecycle.error]).toEqual([undefined, undefined]);
});
