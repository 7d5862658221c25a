// The worked example of docs/LEDGER.md §8, built by the server's own code (step preparation,
// chain hashing, Merkle tree, signing, bundle assembly). worked-example.test.ts renders it into
// the spec and ledger-vectors reuse it, so neither can drift from the implementation.

import {
  CHAIN_DOMAIN_TAG,
  canonicalEntryBytes,
  chainHash,
  GENESIS_HASH,
  hashBytes,
  type LedgerEntry,
  type StoredLedgerEvent,
  toHex,
} from '../../src/ledger/format/hash.ts';
import { eventLeafHash, MerkleTree } from '../../src/ledger/format/merkle.ts';
import { keyIdOf, publicKeyFromPrivate, signTreeHead, treeHeadMessage } from '../../src/ledger/format/signed-head.ts';
import { stepRowFromColumns } from '../../src/ledger/format/step-hash.ts';
import { buildProofBundle } from '../../src/ledger/proofs/bundle.ts';
import { prepareSteps } from '../../src/steps/prepare.ts';
import { DEFAULT_REDACTED_KEYS } from '../../src/steps/redact.ts';

export const TENANT = '6f1c1d2e-8a3b-4c5d-9e0f-112233445566';
export const EPISODE = '0b8e2f4a-1c3d-4e5f-8a9b-c0d1e2f3a4b5';
/** Publicly derived, for examples only: never sign anything real with it. */
export const EXAMPLE_SECRET_KEY = hashBytes(new TextEncoder().encode('episodic example signing key'));
export const ISSUED_AT = '2026-11-21T20:50:10.000Z';

/** A step as an agent sends it to logSteps (GraphQL's enum SUCCESS arrives as 'success'). */
export const STEP_INPUT = {
  kind: 'tool_call',
  tool: 'shell',
  action: 'run the tests',
  parameters: { cmd: 'npm test', token: 's3cret' },
  result: { kind: 'success' as const, output: 'ok' },
  latencyMs: 1250,
};

/** The example step's salt (§3.4): fixed here so the example is reproducible; the server draws 128 random bits per step. */
export const EXAMPLE_SALT = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';

export function exampleLedger() {
  const [prepared] = prepareSteps(EPISODE, [STEP_INPUT], DEFAULT_REDACTED_KEYS, () => EXAMPLE_SALT);
  if (!prepared) throw new Error('no step prepared');
  // The step row as the steps table stores it, in the bundle's shape (snake_case columns).
  const stepRow = stepRowFromColumns({
    episode_id: EPISODE,
    step_number: 1,
    kind: prepared.kind,
    tool: prepared.tool,
    action: prepared.action,
    parameters: prepared.parameters,
    args_hash: prepared.argsHash,
    result_kind: prepared.resultKind,
    result: prepared.result,
    observation: prepared.observation,
    latency_ms: prepared.latencyMs,
    tokens: prepared.tokens,
    cost: prepared.cost,
    side_effect_key: prepared.sideEffectKey,
    world_before: prepared.worldBefore,
    world_after: prepared.worldAfter,
    metadata: prepared.metadata,
    salt: prepared.salt,
  });
  const common = { tenantId: TENANT, episodeId: EPISODE, workItemId: null };
  const entries: LedgerEntry[] = [
    { ...common, seq: 1, type: 'episode.started', createdAt: '2026-11-21T20:50:00.000Z', payload: { taskType: 'build', note: 'café ✓', reward: 0.875 } },
    { ...common, seq: 2, type: 'steps.logged', createdAt: '2026-11-21T20:50:01.250Z', payload: { steps: [{ n: 1, hash: prepared.contentHash }] } },
    { ...common, seq: 3, type: 'episode.completed', createdAt: '2026-11-21T20:50:02.500Z', payload: { status: 'completed', outcomeHash: null } },
  ];
  let prevHash = GENESIS_HASH;
  const events: StoredLedgerEvent[] = entries.map((entry) => {
    const event = { ...entry, prevHash, hash: chainHash(prevHash, entry) };
    prevHash = event.hash;
    return event;
  });
  const tree = MerkleTree.fromEventHashes(events.map((e) => e.hash));
  const publicKey = publicKeyFromPrivate(EXAMPLE_SECRET_KEY);
  const head = { tenantId: TENANT, treeSize: 3, rootHash: toHex(tree.root()), headHash: events[2]?.hash ?? '', issuedAt: ISSUED_AT };
  const signed = signTreeHead(head, EXAMPLE_SECRET_KEY);
  const event2 = events[1];
  if (!event2) throw new Error('no event 2');
  const bundle = buildProofBundle({ episodeId: EPISODE, publicKey: toHex(publicKey), events: [event2], steps: [stepRow], rows: [] }, tree, signed);
  const firstEntry = entries[0];
  if (!firstEntry) throw new Error('no event 1');
  return {
    prepared,
    stepRow,
    entries,
    events,
    canonical: entries.map((e) => new TextDecoder().decode(canonicalEntryBytes(e))),
    hashInput1: [toHex(CHAIN_DOMAIN_TAG), GENESIS_HASH, toHex(canonicalEntryBytes(firstEntry))],
    leaves: events.map((e) => toHex(eventLeafHash(e.hash))),
    roots: [0, 1, 2, 3].map((n) => toHex(tree.root(n))),
    inclusion: { '1in3': tree.inclusionProof(1).map(toHex), '2in3': tree.inclusionProof(2).map(toHex), '0in3': tree.inclusionProof(0).map(toHex) },
    consistency: { '1to3': tree.consistencyProof(1).map(toHex), '2to3': tree.consistencyProof(2).map(toHex), '0to3': tree.consistencyProof(0).map(toHex) },
    secretKey: toHex(EXAMPLE_SECRET_KEY),
    publicKey: toHex(publicKey),
    keyId: keyIdOf(publicKey),
    message: toHex(treeHeadMessage(head)),
    messageText: new TextDecoder().decode(treeHeadMessage(head).subarray(16)),
    signed,
    bundle,
    tree,
  };
}
