// The browser's proof bundle verifier (web/src/proof.ts, written from docs/LEDGER.md) against the
// server's real bundles: it accepts them, and it refuses each kind of tampering exactly when the
// service's own verifier (src/ledger/proofs/verify.ts) does.
import { hexToBytes } from '@noble/hashes/utils.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { type ProofBundle, verifyProofBundle } from '../../src/ledger/proofs/bundle.ts';
import { type Bundle, keyIdOf, verifyBundle } from '../../web/src/proof.ts';
import { type TestApp, useApp } from '../support/app.ts';

let t: TestApp;
useApp((app) => (t = app), { CHECKPOINT_INTERVAL_MS: '200' }); // a signed checkpoint soon covers the episode

let bundle: Bundle;
let publicKey: string;

beforeAll(async () => {
  const gql = async (query: string, variables?: Record<string, unknown>) => (await t.gql(query, variables)).data;
  const started = await gql(
    'mutation { startEpisode(input: { taskDescription: "Prove me", taskType: "proof" }) { ... on StartEpisodePayload { episode { id } } } }',
  );
  const id = started.startEpisode.episode.id;
  await gql('mutation($id: ID!) { logSteps(episodeId: $id, steps: [{ tool: "a" }, { tool: "b" }]) { __typename } }', { id });
  await gql('mutation($id: ID!) { completeEpisode(episodeId: $id, outcome: { kind: SUCCESS, verdict: "ok" }) { __typename } }', { id });
  const query = 'query($id: ID!) { episodeProofBundle(episodeId: $id) { ... on EpisodeProofBundle { bundle } } ledgerPublicKey { keyId publicKey } }';
  let data = await gql(query, { id });
  // Until a deadline, not a count of tries: the checkpoint job runs later on a busy machine.
  for (const deadline = Date.now() + 60_000; !data.episodeProofBundle.bundle && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 100)); // NotCheckpointedError until the next checkpoint
    data = await gql(query, { id });
  }
  bundle = data.episodeProofBundle.bundle;
  publicKey = data.ledgerPublicKey.publicKey;
  expect(keyIdOf(publicKey)).toBe(data.ledgerPublicKey.keyId);
});

const copy = (): Bundle => structuredClone(bundle);
const theirs = (b: Bundle, key = publicKey) => verifyProofBundle(b as unknown as ProofBundle, hexToBytes(key)).ok;

describe('browser proof bundle verifier', () => {
  it('accepts the server bundle, every event checked', () => {
    const verdict = verifyBundle(bundle, publicKey);
    expect(verdict).toMatchObject({ ok: true, signatureValid: true, eventsChecked: bundle.events.length, problems: [] });
    expect(theirs(bundle)).toBe(true);
  });

  const tamperings: Array<[string, (b: Bundle) => void, RegExp]> = [
    ['an event payload changed', (b) => void ((b.events[0] as { payload: unknown }).payload = { edited: true }), /event \d+ hash mismatch/],
    ['an audit path hash changed', (b) => void (must(b.proofs[0]).auditPath[0] = 'f'.repeat(64)), /inclusion proof does not verify/],
    ['a proof removed', (b) => void b.proofs.pop(), /has no inclusion proof/],
    ['the signed root changed', (b) => void (b.treeHead.rootHash = '0'.repeat(64)), /signature does not verify/],
    ['the head signed by another tenant', (b) => void (b.treeHead.tenantId = '00000000-0000-0000-0000-000000000000'), /another tenant/],
    ['the bundle malformed', (b) => void ((b as { events: unknown }).events = null), /malformed bundle/],
  ];
  for (const [name, tamper, problem] of tamperings) {
    it(`refuses a bundle with ${name}, as the service's verifier does`, () => {
      const b = copy();
      tamper(b);
      const verdict = verifyBundle(b, publicKey);
      expect(verdict.ok).toBe(false);
      expect(verdict.problems.join('; ')).toMatch(problem);
      expect(theirs(b)).toBe(false);
    });
  }

  it('refuses the right bundle checked with another key', () => {
    const other = 'ab'.repeat(32);
    expect(verifyBundle(bundle, other)).toMatchObject({ ok: false, signatureValid: false });
    expect(theirs(bundle, other)).toBe(false);
  });
});
