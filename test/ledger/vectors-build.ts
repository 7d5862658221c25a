// Builds docs/ledger-vectors.json from the server's code (deterministic: fixed keys, times and
// seeds). vectors.test.ts compares the file with this and runs every case through the verifiers.
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { episodeRecord } from '../../src/ledger/format/episode-record.ts';
import {
  canonicalEntryBytes,
  chainHash,
  contentHash,
  GENESIS_HASH,
  hashBytes,
  type LedgerEntry,
  type StoredLedgerEvent,
  toHex,
} from '../../src/ledger/format/hash.ts';
import { type HashedRow, SERVED_COPY_KINDS } from '../../src/ledger/format/hashed-rows.ts';
import { EMPTY_TREE_ROOT, MerkleTree } from '../../src/ledger/format/merkle.ts';
import { publicKeyFromPrivate, type SignedTreeHead, signTreeHead, treeHeadMessage } from '../../src/ledger/format/signed-head.ts';
import { stepKeptMembers, stepRowHash } from '../../src/ledger/format/step-hash.ts';
import { buildProofBundle } from '../../src/ledger/proofs/bundle.ts';
import { EXPORT_FORMAT, STATE_FORMAT } from '../../src/ledger/proofs/export-verify.ts';
import { EPISODE, EXAMPLE_SECRET_KEY, exampleLedger, ISSUED_AT, TENANT } from './example-ledger.ts';

const utf8 = new TextEncoder();
const decode = (b: Uint8Array) => new TextDecoder().decode(b);
const { Point } = ed25519;
const L = Point.Fn.ORDER;
const OTHER_SECRET_KEY = hashBytes(utf8.encode('episodic example forger key'));

function link(entries: LedgerEntry[]): StoredLedgerEvent[] {
  let prevHash = GENESIS_HASH;
  return entries.map((entry) => {
    const event = { ...entry, prevHash, hash: chainHash(prevHash, entry) };
    prevHash = event.hash;
    return event;
  });
}

function entry(seq: number, type: string, payload: unknown, episodeId: string | null = EPISODE): LedgerEntry {
  return {
    tenantId: TENANT,
    seq,
    type,
    episodeId,
    workItemId: null,
    payload,
    createdAt: new Date(Date.parse('2026-11-21T20:50:00.000Z') + seq * 1000).toISOString(),
  };
}

const SPECIAL_PAYLOADS: unknown[] = [
  { numbers: [1, 0.875, 1e21, 1e-7, -0, 9007199254740991, -9007199254740991, 0.1, 123456789.123] },
  { escapes: 'quote " backslash \\ nul \u0000 tab \t newline \n bell \u0007 del \u007f line-sep \u2028', emoji: '😀' },
  { ordering: { b: 1, a: 2, B: 3, é: 4, '😀': 5, ﬁ: 6, '': 7, '10': 8, '9': 9 }, nested: [{ z: null, y: [true, false] }] },
];

function canonicalVectors() {
  const events = link(SPECIAL_PAYLOADS.map((p, i) => entry(i + 1, 'episode.started', p)));
  return events.map(({ prevHash, hash, ...e }) => ({ entry: e, prevHash, canonical: decode(canonicalEntryBytes(e)), hash }));
}

function merkleVectors() {
  const events = link(Array.from({ length: 7 }, (_, i) => entry(i + 1, 'steps.logged', { steps: [] })));
  const tree = MerkleTree.fromEventHashes(events.map((e) => e.hash));
  const inclusion: Array<{ leafIndex: number; treeSize: number; auditPath: string[] }> = [];
  const consistency: Array<{ fromSize: number; toSize: number; proof: string[] }> = [];
  for (let n = 0; n <= 7; n++) {
    for (let m = 0; m < n; m++) inclusion.push({ leafIndex: m, treeSize: n, auditPath: tree.inclusionProof(m, n).map(toHex) });
    for (let m = 0; m <= n; m++) consistency.push({ fromSize: m, toSize: n, proof: tree.consistencyProof(m, n).map(toHex) });
  }
  return { eventHashes: events.map((e) => e.hash), roots: Array.from({ length: 8 }, (_, n) => toHex(tree.root(n))), inclusion, consistency };
}

const numberLE = (b: Uint8Array) => b.reduceRight((n, byte) => (n << 8n) | BigInt(byte), 0n);
const bytesLE = (n: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));

/** A signature valid only under the cofactored equation: R gets a point of order 8 added. */
function cofactoredOnly(message: Uint8Array): string {
  const publicKey = publicKeyFromPrivate(EXAMPLE_SECRET_KEY);
  const { scalar } = ed25519.utils.getExtendedPublicKey(EXAMPLE_SECRET_KEY);
  const r = numberLE(sha512(utf8.encode('episodic vector nonce'))) % L;
  const torsion = Point.fromBytes(
    Uint8Array.from([
      0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b, 0x76, 0x0d, 0x10, 0x67, 0x0f, 0x2a, 0x20, 0x53, 0xfa, 0x2c, 0x39, 0xcc, 0xc6, 0x4e,
      0xc7, 0xfd, 0x77, 0x92, 0xac, 0x03, 0x7a,
    ]),
  );
  const R = Point.BASE.multiply(r).add(torsion).toBytes();
  const digest = new Uint8Array([...R, ...publicKey, ...message]);
  const k = numberLE(sha512(digest)) % L;
  return toHex(new Uint8Array([...R, ...bytesLE((r + k * scalar) % L)]));
}

function signatureVectors(head: SignedTreeHead) {
  const message = treeHeadMessage(head);
  const empty = { tenantId: TENANT, treeSize: 0, rootHash: toHex(EMPTY_TREE_ROOT), headHash: GENESIS_HASH, issuedAt: ISSUED_AT };
  const publicKey = toHex(publicKeyFromPrivate(EXAMPLE_SECRET_KEY));
  const sig = head.signature;
  const s = numberLE(Uint8Array.from(Buffer.from(sig.slice(64), 'hex')));
  const flipped = new Uint8Array(message);
  flipped[flipped.length - 2] = (flipped[flipped.length - 2] ?? 0) ^ 1;
  return {
    keys: [
      { name: 'example key', publicKey, acceptable: true },
      { name: 'identity point (small order): OpenSSL accepts it, verifiers refuse it as a key', publicKey: `01${'00'.repeat(31)}`, acceptable: false },
      { name: 'non-canonical encoding (y = p + 1): OpenSSL accepts it, verifiers refuse it as a key', publicKey: `ee${'ff'.repeat(30)}7f`, acceptable: false },
    ],
    cases: [
      { name: 'valid', publicKey, message: toHex(message), signature: sig, valid: true },
      {
        name: 'valid only under the cofactored equation (R + point of order 8)',
        publicKey,
        message: toHex(message),
        signature: cofactoredOnly(message),
        valid: false,
      },
      { name: 'S + L (not reduced)', publicKey, message: toHex(message), signature: sig.slice(0, 64) + toHex(bytesLE(s + L)), valid: false },
      { name: 'one message bit flipped', publicKey, message: toHex(flipped), signature: sig, valid: false },
      { name: 'another key', publicKey: toHex(publicKeyFromPrivate(OTHER_SECRET_KEY)), message: toHex(message), signature: sig, valid: false },
      {
        name: 'the empty tree (treeSize 0, rootHash MTH({}), headHash GENESIS)',
        publicKey,
        message: toHex(treeHeadMessage(empty)),
        signature: signTreeHead(empty, EXAMPLE_SECRET_KEY).signature,
        valid: true,
      },
    ],
  };
}

type Mutable = Record<string, unknown>;
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function chainVectors(events: StoredLedgerEvent[]) {
  const edit = (i: number, change: (e: Mutable) => void) => {
    const copy = clone(events) as unknown as Mutable[];
    change(copy[i] as Mutable);
    return copy;
  };
  return [
    { name: 'intact', events, expected: { ok: true } },
    { name: 'v: 1 member allowed', events: edit(0, (e) => (e.v = 1)), expected: { ok: true } },
    { name: 'v: 2', events: edit(0, (e) => (e.v = 2)), expected: { ok: false, problem: 'unsupported-version', firstBadSeq: 1 } },
    {
      name: '29-character createdAt',
      events: edit(1, (e) => (e.createdAt = '2026-11-21T20:50:01.250000Z')),
      expected: { ok: false, problem: 'malformed', firstBadSeq: 2 },
    },
    { name: 'seq as a string', events: edit(1, (e) => (e.seq = '2')), expected: { ok: false, problem: 'malformed', firstBadSeq: 2 } },
    { name: 'unknown member', events: edit(2, (e) => (e.note = 'unverified')), expected: { ok: false, problem: 'malformed', firstBadSeq: 3 } },
    { name: 'uppercase hash', events: edit(2, (e) => (e.hash = String(e.hash).toUpperCase())), expected: { ok: false, problem: 'malformed', firstBadSeq: 3 } },
    {
      name: 'changed payload',
      events: edit(2, (e) => (e.payload = { status: 'failed', outcomeHash: null })),
      expected: { ok: false, problem: 'hash-mismatch', firstBadSeq: 3 },
    },
    { name: 'deleted seq 1', events: events.slice(1), expected: { ok: false, problem: 'seq-gap', firstBadSeq: 1 } },
    { name: 'swapped 2 and 3', events: [events[0], events[2], events[1]], expected: { ok: false, problem: 'seq-order', firstBadSeq: 2 } },
  ];
}

function bundleVectors(x: ReturnType<typeof exampleLedger>) {
  const b = x.bundle;
  const key = x.publicKey;
  const forged = clone(b) as unknown as Mutable & { steps: Mutable[]; treeHead: SignedTreeHead };
  (forged.steps[0] as Mutable).observation = 'forged';
  return [
    { name: 'intact', bundle: b, publicKey: key, expected: { ok: true, problems: [] } },
    {
      name: 'a v1 bundle (no rows, an unsalted step) still verifies',
      bundle: { ...unsaltedBundle(x), format: 'episodic.bundle.v1', rows: undefined },
      publicKey: key,
      expected: { ok: true, problems: [] },
    },
    {
      name: 'a v2 bundle (an unsalted step) still verifies',
      bundle: { ...unsaltedBundle(x), format: 'episodic.bundle.v2' },
      publicKey: key,
      expected: { ok: true, problems: [] },
    },
    {
      name: 'a v2 bundle whose step row carries a salt (a v3 member, §9)',
      bundle: { ...b, format: 'episodic.bundle.v2', blobs: undefined },
      publicKey: key,
      expected: { ok: false, problems: ['malformed', 'step-missing'] },
    },
    {
      name: 'a v4 bundle without rows',
      bundle: { ...b, rows: undefined },
      publicKey: key,
      expected: { ok: false, problems: ['malformed'] },
    },
    {
      name: 'format episodic.bundle.v9',
      bundle: { ...b, format: 'episodic.bundle.v9' },
      publicKey: key,
      expected: { ok: false, problems: ['unsupported-version'] },
    },
    { name: 'no steps member', bundle: { ...b, steps: undefined }, publicKey: key, expected: { ok: false, problems: ['malformed'] } },
    {
      name: 'edited step row',
      bundle: { ...b, steps: [{ ...b.steps[0], observation: 'forged' }] },
      publicKey: key,
      expected: { ok: false, problems: ['step-mismatch'] },
    },
    { name: 'step row missing', bundle: { ...b, steps: [] }, publicKey: key, expected: { ok: false, problems: ['step-missing'] } },
    {
      name: 'step row no event covers',
      bundle: { ...b, steps: [...b.steps, { ...b.steps[0], stepNumber: 2 }] },
      publicKey: key,
      expected: { ok: false, problems: ['step-uncovered'] },
    },
    {
      name: 'altered and re-signed with another key that the bundle carries',
      bundle: {
        ...forged,
        events: b.events.map((e) => ({ ...e, payload: { steps: [{ n: 1, hash: stepRowHash(forged.steps[0] as Mutable) }] } })),
        treeHead: signTreeHead(b.treeHead, OTHER_SECRET_KEY),
        publicKey: toHex(publicKeyFromPrivate(OTHER_SECRET_KEY)),
      },
      publicKey: key,
      expected: { ok: false, problems: ['signature', 'hash-mismatch'] },
    },
  ];
}

/** The example bundle re-made around another step row (and the blobs it carries): the chain and head re-made. */
function rebuiltBundle(x: ReturnType<typeof exampleLedger>, row: Record<string, unknown>, blobs: Array<{ hash: string; content: string }> = []) {
  const entries = x.entries.map((e) => (e.type === 'steps.logged' ? { ...e, payload: { steps: [{ n: 1, hash: stepRowHash(row as never) }] } } : e));
  const events = link(entries);
  const tree = MerkleTree.fromEventHashes(events.map((e) => e.hash));
  const head = signTreeHead(
    { tenantId: TENANT, treeSize: 3, rootHash: toHex(tree.root()), headHash: events[2]?.hash ?? '', issuedAt: ISSUED_AT },
    EXAMPLE_SECRET_KEY,
  );
  return buildProofBundle({ episodeId: EPISODE, publicKey: x.publicKey, events: events.slice(1, 2), steps: [row as never], rows: [], blobs }, tree, head);
}

/** The example bundle as a ledger written before salts would give it (v1 and v2 files have no salt, §9). */
function unsaltedBundle(x: ReturnType<typeof exampleLedger>) {
  const { salt: _salt, ...row } = x.stepRow;
  const { blobs: _blobs, ...bundle } = rebuiltBundle(x, row);
  return bundle;
}

function exportVectors() {
  const events = link(Array.from({ length: 7 }, (_, i) => entry(i + 1, 'steps.logged', { steps: [] })));
  const tree = MerkleTree.fromEventHashes(events.map((e) => e.hash));
  const head = (n: number, key = EXAMPLE_SECRET_KEY) =>
    signTreeHead(
      { tenantId: TENANT, treeSize: n, rootHash: toHex(tree.root(n)), headHash: n ? (events[n - 1]?.hash ?? '') : GENESIS_HASH, issuedAt: ISSUED_AT },
      key,
    );
  const header = { format: EXPORT_FORMAT, tenantId: TENANT, afterSeq: 0, toSeq: null };
  const checkpoints = [0, 4, 7].map((n) => ({ checkpoint: head(n) }));
  const publicKey = toHex(publicKeyFromPrivate(EXAMPLE_SECRET_KEY));
  const rewritten = link(events.map(({ prevHash: _p, hash: _h, ...e }) => (e.seq === 3 ? { ...e, payload: { steps: [], forged: true } } : e)));
  return [
    { name: 'intact', lines: [header, ...checkpoints, ...events], publicKey, expected: { ok: true } },
    {
      name: 'last two events cut off',
      lines: [header, ...checkpoints, ...events.slice(0, 5)],
      publicKey,
      expected: { ok: false, problem: 'missing-tail', firstBadSeq: 6 },
    },
    {
      name: 'history rewritten and re-chained',
      lines: [header, ...checkpoints, ...rewritten],
      publicKey,
      expected: { ok: false, problem: 'head-hash-mismatch', firstBadSeq: 4 },
    },
    {
      name: 'a checkpoint signed by another key',
      lines: [header, { checkpoint: head(4, OTHER_SECRET_KEY) }, ...events],
      publicKey,
      expected: { ok: false, problem: 'signature', firstBadSeq: 4 },
    },
    {
      name: "the empty tree's checkpoint (the tenant's attestation, §11) signed by another key",
      lines: [header, { checkpoint: head(0, OTHER_SECRET_KEY) }, ...checkpoints.slice(1), ...events],
      publicKey,
      expected: { ok: false, problem: 'signature', firstBadSeq: 0 },
    },
    {
      name: 'an export of the empty ledger: its header and the signed empty tree',
      lines: [header, { checkpoint: head(0) }],
      publicKey,
      expected: { ok: true },
    },
    {
      name: 'a v1 export (no consistency line) still verifies',
      lines: [{ ...header, format: 'episodic.export.v1' }, ...checkpoints, ...events],
      publicKey,
      expected: { ok: true },
    },
    ...incrementalExportVectors(events, tree, head, header, publicKey),
    {
      name: 'unknown export format',
      lines: [{ ...header, format: 'episodic.export.v9' }, ...events],
      publicKey,
      expected: { ok: false, problem: 'unsupported-version' },
    },
    {
      name: 'range after seq 2 to seq 5',
      lines: [
        { ...header, afterSeq: 2, toSeq: 5 },
        ...checkpoints,
        { consistency: { fromSize: 2, toSize: 7, proof: tree.consistencyProof(2, 7).map(toHex) } },
        ...events.slice(2, 5),
      ],
      publicKey,
      expected: { ok: true },
    },
  ];
}

const ROWS_EPISODE = '3c2d1e0f-4a5b-4c6d-8e7f-a1b2c3d4e5f6';
const ROWS_CHECKPOINT = '7d6c5b4a-3e2f-4a1b-9c0d-e1f2a3b4c5d6';
const ROWS_RETRIEVAL = '5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b';

/**
 * An episode whose events hash stored values (§3.3), then a retrieval served (an event of no
 * episode, so in exports only), with the rows (§6.1, §6.2) that answer them.
 */
function episodeWithRows() {
  const values = {
    state: { cursor: 3, files: ['a.py'], note: 'mid-run' },
    critique: { verdict: 'pass', score: 0.75, feedback: 'ok' },
    reward: { normalized: 0.5, base: 0.25 },
    reflection: { insights: ['read before writing'], improvements: [] },
    outcome: { kind: 'success', verdict: 'done', artifacts: ['patch.diff'] },
    results: { episodes: [ROWS_EPISODE], warnings: [], patterns: [] },
    record: episodeRecord({
      task_description: 'fix it',
      task_type: 'coding',
      agent: null,
      language: 'python',
      framework: null,
      complexity: 'moderate',
      domain: null,
      tags: ['bugfix'],
      goal_spec: { tests: 'pass' },
      metadata: {},
      parent_episode_id: null,
      import_source: null,
    }),
  };
  const experience = { reward: values.reward.normalized, rewardHash: contentHash(values.reward), reflectionHash: contentHash(values.reflection) };
  const contextPack = { packHash: 'a'.repeat(64), manifestHash: 'b'.repeat(64) };
  const events = link([
    entry(
      1,
      'episode.started',
      { inputHash: contentHash({ taskDescription: 'fix it', taskType: 'coding' }), recordHash: contentHash(values.record), contextPack },
      ROWS_EPISODE,
    ),
    entry(2, 'checkpoint.saved', { checkpointId: ROWS_CHECKPOINT, stateHash: contentHash(values.state) }, ROWS_EPISODE),
    entry(3, 'critique.recorded', { critiqueHash: contentHash(values.critique), experience }, ROWS_EPISODE),
    entry(4, 'episode.completed', { status: 'completed', outcomeHash: contentHash(values.outcome), experience }, ROWS_EPISODE),
    entry(
      5,
      'retrieval.served',
      {
        retrievalId: ROWS_RETRIEVAL,
        kind: 'episodes',
        queryHash: contentHash({ task: { description: 'fix it' }, limit: 5 }),
        resultsHash: contentHash(values.results),
        counts: { episodes: 1, warnings: 0, patterns: 0 },
      },
      null,
    ),
  ]);
  const rows: HashedRow[] = [
    { kind: 'checkpoint.state', id: ROWS_CHECKPOINT, value: values.state },
    { kind: 'episode.critique', id: ROWS_EPISODE, value: values.critique },
    { kind: 'episode.reward', id: ROWS_EPISODE, value: values.reward },
    { kind: 'episode.reflection', id: ROWS_EPISODE, value: values.reflection },
    { kind: 'episode.outcome', id: ROWS_EPISODE, value: values.outcome },
    { kind: 'retrieval.results', id: ROWS_RETRIEVAL, value: values.results },
    { kind: 'episode.record', id: ROWS_EPISODE, value: values.record },
    // Served copies (§3.3, v4): the stored columns that repeat what an event says.
    { kind: 'episode.reward_score', id: ROWS_EPISODE, value: values.reward.normalized },
    { kind: 'episode.context_pack', id: ROWS_EPISODE, value: contextPack },
    { kind: 'retrieval.results_hash', id: ROWS_RETRIEVAL, value: contentHash(values.results) },
  ];
  const tree = MerkleTree.fromEventHashes(events.map((e) => e.hash));
  const head = signTreeHead(
    { tenantId: TENANT, treeSize: 5, rootHash: toHex(tree.root()), headHash: events[4]?.hash ?? '', issuedAt: ISSUED_AT },
    EXAMPLE_SECRET_KEY,
  );
  return { events, rows, tree, head };
}

/** Bundles and exports whose rows are not empty: each kind of row edited, missing or unclaimed. */
function rowVectors() {
  const { events, rows: allRows, tree, head } = episodeWithRows();
  const publicKey = toHex(publicKeyFromPrivate(EXAMPLE_SECRET_KEY));
  // A bundle holds the episode's events and the rows they claim: not the retrieval's.
  const rows = allRows.filter((r) => !r.kind.startsWith('retrieval.'));
  const episodeEvents = events.filter((e) => e.episodeId === ROWS_EPISODE);
  const bundle = buildProofBundle({ episodeId: ROWS_EPISODE, publicKey, events: episodeEvents, steps: [], rows }, tree, head);
  const edit = (list: HashedRow[], i: number) => list.map((r, j) => (j === i ? { ...r, value: { ...(r.value as object), forged: true } } : r));
  const edited = (i: number) => edit(rows, i);
  const seqOf: Record<string, number> = {
    'episode.record': 1,
    'checkpoint.state': 2,
    'episode.critique': 3,
    'episode.reward': 4,
    'episode.reflection': 4,
    'episode.outcome': 4,
    'retrieval.results': 5,
    'episode.reward_score': 4,
    'episode.context_pack': 1,
    'retrieval.results_hash': 5,
  };
  const original = (list: HashedRow[]) => list.filter((r) => !SERVED_COPY_KINDS.has(r.kind));
  const stray = { kind: 'checkpoint.state', id: '00000000-0000-4000-8000-000000000001', value: { cursor: 0 } };
  const bundles = [
    { name: 'with rows: intact', bundle, publicKey, expected: { ok: true, problems: [] } },
    ...rows.map((r, i) => ({
      name: `with rows: ${r.kind} edited`,
      bundle: { ...bundle, rows: edited(i) },
      publicKey,
      expected: { ok: false, problems: ['row-mismatch'] },
    })),
    {
      name: 'with rows: the critique row missing',
      bundle: { ...bundle, rows: rows.filter((r) => r.kind !== 'episode.critique') },
      publicKey,
      expected: { ok: false, problems: ['row-mismatch'] },
    },
    { name: 'with rows: a row no event claims', bundle: { ...bundle, rows: [...rows, stray] }, publicKey, expected: { ok: false, problems: ['malformed'] } },
    {
      name: 'with rows: the served copies left out',
      bundle: { ...bundle, rows: original(rows) },
      publicKey,
      expected: { ok: false, problems: ['row-mismatch'] },
    },
    // §9: a v3 bundle predates served copies: it carries none and is not asked for them.
    {
      name: 'with rows: a v3 bundle without served copies',
      bundle: { ...bundle, format: 'episodic.bundle.v3', rows: original(rows) },
      publicKey,
      expected: { ok: true, problems: [] },
    },
    {
      name: 'with rows: a v3 bundle carrying a served copy',
      bundle: { ...bundle, format: 'episodic.bundle.v3' },
      publicKey,
      expected: { ok: false, problems: ['malformed'] },
    },
  ];
  const header = { format: EXPORT_FORMAT, tenantId: TENANT, afterSeq: 0, toSeq: null };
  const lines = (withRows: unknown[]) => [header, { checkpoint: head }, ...events, ...withRows.map((row) => ({ row }))];
  const exports = [
    { name: 'with rows: intact', lines: lines(allRows), publicKey, expected: { ok: true } },
    ...allRows.map((r, i) => ({
      name: `with rows: ${r.kind} edited`,
      lines: lines(edit(allRows, i)),
      publicKey,
      expected: { ok: false, problem: 'row-mismatch', firstBadSeq: seqOf[r.kind] },
    })),
    { name: 'with rows: the state row missing', lines: lines(allRows.slice(1)), publicKey, expected: { ok: false, problem: 'row-mismatch', firstBadSeq: 2 } },
    // §6.2: a v2 export to the head carries its rows; stripping them is no "0 rows checked".
    { name: 'with rows: every row line stripped', lines: lines([]), publicKey, expected: { ok: false, problem: 'row-mismatch', firstBadSeq: 1 } },
    {
      name: 'with rows: the served copies stripped',
      lines: lines(original(allRows)),
      publicKey,
      expected: { ok: false, problem: 'row-mismatch', firstBadSeq: 1 },
    },
    {
      name: 'with rows: a v3 export without served copies',
      lines: [{ ...header, format: 'episodic.export.v3' }, ...lines(original(allRows)).slice(1)],
      publicKey,
      expected: { ok: true },
    },
  ];
  return { bundles, exports };
}

/** §7.3.1: from the state of checkpoint 4, the export after seq 4 with its consistency proof to checkpoint 7. */
function incrementalExportVectors(
  events: StoredLedgerEvent[],
  tree: MerkleTree,
  head: (n: number) => SignedTreeHead,
  header: { format: string; tenantId: string; afterSeq: number; toSeq: null },
  publicKey: string,
) {
  const at4 = head(4);
  const state = { format: STATE_FORMAT, tenantId: TENANT, treeSize: 4, rootHash: at4.rootHash, headHash: at4.headHash };
  const at7 = head(7);
  const consistency = { consistency: { fromSize: 4, toSize: 7, proof: tree.consistencyProof(4, 7).map(toHex) } };
  const lines = [{ ...header, afterSeq: 4 }, { checkpoint: at4 }, { checkpoint: at7 }, consistency, ...events.slice(4)];
  const forgedRoot = { ...state, rootHash: toHex(tree.root(3)) };
  return [
    {
      name: 'incremental: from the state at 4, the events after it and the consistency proof to 7',
      lines,
      publicKey,
      state,
      expected: { ok: true },
      nextState: { ...state, treeSize: 7, rootHash: at7.rootHash, headHash: at7.headHash },
    },
    {
      name: 'incremental: a state whose tree is not the signed one at its size (history rewritten)',
      lines,
      publicKey,
      state: forgedRoot,
      expected: { ok: false, problem: 'root-mismatch', firstBadSeq: 4 },
    },
    {
      // §7.3.1 step 1: checkpoints are kept forever, so a file whose newest checkpoint is older
      // than the state comes from a ledger cut back (events 5..7 and checkpoint 7 deleted).
      name: 'incremental: rolled back below the state at 7 (events after 4 and checkpoint 7 deleted)',
      lines: [{ ...header, afterSeq: 7 }, { checkpoint: head(0) }, { checkpoint: at4 }],
      publicKey,
      state: { ...state, treeSize: 7, rootHash: at7.rootHash, headHash: at7.headHash },
      expected: { ok: false, problem: 'missing-tail', firstBadSeq: 5 },
    },
    {
      name: 'incremental: without the checkpoint at 4, the consistency proof does not lead from the state',
      lines: lines.filter((l) => l !== lines[1]),
      publicKey,
      state: forgedRoot,
      expected: { ok: false, problem: 'proof-invalid', firstBadSeq: 7 },
    },
  ];
}

/**
 * Forgetting (§3.4): the example episode's step forgotten by a steps.forgotten event (seq 4); its
 * bundle carries the step as `{stepNumber, forgotten: true}` and the event that vouches for it.
 */
function forgottenVectors(x: ReturnType<typeof exampleLedger>) {
  const logged = x.prepared.contentHash;
  const kept = stepKeptMembers(x.stepRow);
  const keptHash = contentHash(kept);
  const forget = (hash: string, withKept = true) =>
    entry(4, 'steps.forgotten', {
      steps: [{ n: 1, hash, ...(withKept ? { keptHash } : {}) }],
      reason: 'a secret pasted into a tool output',
      byKeyId: FORGETTER_KEY,
    });
  const bundleOf = (hash: string, steps: unknown[], withKept = true) => {
    const events = link([...x.entries, forget(hash, withKept)]);
    const tree = MerkleTree.fromEventHashes(events.map((e) => e.hash));
    const head = signTreeHead(
      { tenantId: TENANT, treeSize: 4, rootHash: toHex(tree.root()), headHash: events[3]?.hash ?? '', issuedAt: ISSUED_AT },
      EXAMPLE_SECRET_KEY,
    );
    const parts = { episodeId: EPISODE, publicKey: x.publicKey, events: events.slice(1), steps: steps as never[], rows: [] };
    return buildProofBundle(parts, tree, head);
  };
  const forgottenRow = { stepNumber: 1, forgotten: true, kept };
  const publicKey = x.publicKey;
  return [
    {
      name: 'forgotten: the step forgotten, vouched for by its steps.forgotten event',
      bundle: bundleOf(logged, [forgottenRow]),
      publicKey,
      expected: { ok: true, problems: [], stepsForgotten: 1 },
    },
    {
      name: 'forgotten: the content still there after its steps.forgotten event (it verifies as kept)',
      bundle: bundleOf(logged, [x.stepRow]),
      publicKey,
      expected: { ok: true, problems: [], stepsForgotten: 0 },
    },
    {
      name: 'forgotten: a step row marked forgotten that no steps.forgotten event names',
      bundle: { ...x.bundle, steps: [forgottenRow] },
      publicKey,
      expected: { ok: false, problems: ['step-mismatch'], stepsForgotten: 0 },
    },
    {
      name: 'forgotten: the steps.forgotten event names another hash than the one logged',
      bundle: bundleOf('e'.repeat(64), [forgottenRow]),
      publicKey,
      expected: { ok: false, problems: ['step-mismatch'], stepsForgotten: 0 },
    },
    {
      name: 'forgotten: a forgotten row with a member more',
      bundle: bundleOf(logged, [{ ...forgottenRow, observation: null }]),
      publicKey,
      expected: { ok: false, problems: ['malformed', 'step-missing'], stepsForgotten: 0 },
    },
    {
      name: 'forgotten: what the step keeps (its tokens) edited after it was forgotten',
      bundle: bundleOf(logged, [{ ...forgottenRow, kept: { ...kept, tokens: 70000 } }]),
      publicKey,
      expected: { ok: false, problems: ['step-mismatch'], stepsForgotten: 0 },
    },
    {
      name: 'forgotten: a forgotten row without what it keeps, where the event hashed it',
      bundle: bundleOf(logged, [{ stepNumber: 1, forgotten: true }]),
      publicKey,
      expected: { ok: false, problems: ['step-mismatch'], stepsForgotten: 0 },
    },
    {
      name: 'forgotten: an entry without keptHash (written before it) vouches for the number alone',
      bundle: bundleOf(logged, [{ stepNumber: 1, forgotten: true }], false),
      publicKey,
      expected: { ok: true, problems: [], stepsForgotten: 1 },
    },
    {
      name: 'forgotten: a forgotten step row in a v2 bundle (a v3 row, §9)',
      bundle: { ...bundleOf(logged, [forgottenRow]), format: 'episodic.bundle.v2', blobs: undefined },
      publicKey,
      expected: { ok: false, problems: ['malformed', 'step-missing'], stepsForgotten: 0 },
    },
  ];
}

/**
 * Forgetting a whole episode (§3.4): the episode with rows forgotten by an episode.forgotten event
 * (seq 6) naming each value it deleted with its hash; the retrieval's row (not the episode's) stays.
 */
function forgottenEpisodeVectors() {
  const { events: kept, rows } = episodeWithRows();
  const named = rows
    .filter((r) => !r.kind.startsWith('retrieval.') && !SERVED_COPY_KINDS.has(r.kind))
    .map((r) => ({ kind: r.kind, id: r.id, hash: contentHash(r.value) }));
  // The context pack's hashes are not forgotten (§3.4): its row stays; reward_score goes with the reward.
  const pack = rows.filter((r) => r.kind === 'episode.context_pack');
  const build = (names: typeof named) => {
    const forgotten = entry(6, 'episode.forgotten', { rows: names, reason: 'customer deletion request', byKeyId: FORGETTER_KEY }, ROWS_EPISODE);
    const events = link([...kept.map(({ prevHash: _p, hash: _h, ...e }) => e), forgotten]);
    const tree = MerkleTree.fromEventHashes(events.map((e) => e.hash));
    const head = signTreeHead(
      { tenantId: TENANT, treeSize: 6, rootHash: toHex(tree.root()), headHash: events[5]?.hash ?? '', issuedAt: ISSUED_AT },
      EXAMPLE_SECRET_KEY,
    );
    return { events, tree, head };
  };
  const publicKey = toHex(publicKeyFromPrivate(EXAMPLE_SECRET_KEY));
  const bundleOf = (names: typeof named, bundleRows: HashedRow[]) => {
    const { events, tree, head } = build(names);
    const parts = { episodeId: ROWS_EPISODE, publicKey, events: events.filter((e) => e.episodeId === ROWS_EPISODE), steps: [], rows: bundleRows };
    return buildProofBundle(parts, tree, head);
  };
  const critique = rows.find((r) => r.kind === 'episode.critique') as HashedRow;
  const otherHash = named.map((n) => (n.kind === 'episode.critique' ? { ...n, hash: 'e'.repeat(64) } : n));
  const bundles = [
    {
      name: 'forgotten episode: every value named, no row carried',
      bundle: bundleOf(named, pack),
      publicKey,
      expected: { ok: true, problems: [], rowsForgotten: 6 },
    },
    {
      name: 'forgotten episode: a forgotten value still carried as a row',
      bundle: bundleOf(named, [...pack, critique]),
      publicKey,
      expected: { ok: false, problems: ['malformed'], rowsForgotten: 6 },
    },
    {
      name: 'forgotten episode: the event names another hash for the critique (the critique is missing)',
      bundle: bundleOf(otherHash, pack),
      publicKey,
      expected: { ok: false, problems: ['row-mismatch'], rowsForgotten: 5 },
    },
  ];
  const { events, head } = build(named);
  const header = { format: EXPORT_FORMAT, tenantId: TENANT, afterSeq: 0, toSeq: null };
  const results = rows.filter((r) => r.kind.startsWith('retrieval.') || r.kind === 'episode.context_pack');
  const lines = (withRows: HashedRow[], evs = events, h = head) => [header, { checkpoint: h }, ...evs, ...withRows.map((row) => ({ row }))];
  const other = build(otherHash);
  const exports = [
    { name: 'forgotten episode: the retrieval rows and the context pack alone', lines: lines(results), publicKey, expected: { ok: true, rowsForgotten: 6 } },
    {
      name: 'forgotten episode: a forgotten value still carried as a row line',
      lines: lines([...results, critique]),
      publicKey,
      expected: { ok: false, problem: 'malformed', rowsForgotten: 6 },
    },
    {
      name: 'forgotten episode: the event names another hash for the critique',
      lines: lines(results, other.events, other.head),
      publicKey,
      expected: { ok: false, problem: 'row-mismatch', firstBadSeq: 3, rowsForgotten: 5 },
    },
  ];
  return { bundles, exports };
}
const FORGETTER_KEY = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

/**
 * Blobs (§3.3): a step row whose observation is kept as a blob, the blob's bytes, and the verdict a
 * verifier that fetches the blob reaches by re-hashing them.
 */
function blobVectors(x: ReturnType<typeof exampleLedger>) {
  const content = 'line of output\n'.repeat(3);
  const hash = toHex(hashBytes(utf8.encode(content)));
  const row = {
    ...x.stepRow,
    observation: content.slice(0, 8),
    contentRefs: { observation: { hash, sizeBytes: utf8.encode(content).length, stored: true } },
  };
  const publicKey = x.publicKey;
  const bundles = [
    { name: 'blobs: the blob carried as stored', bundle: rebuiltBundle(x, row, [{ hash, content }]), publicKey, expected: { ok: true, problems: [] } },
    {
      name: 'blobs: "forged" prepended to the carried blob',
      bundle: rebuiltBundle(x, row, [{ hash, content: `forged${content}` }]),
      publicKey,
      expected: { ok: false, problems: ['step-mismatch'] },
    },
    { name: 'blobs: the referenced blob left out', bundle: rebuiltBundle(x, row), publicKey, expected: { ok: false, problems: ['step-mismatch'] } },
    {
      name: 'blobs: a blob no step references',
      bundle: rebuiltBundle(x, x.stepRow, [{ hash, content }]),
      publicKey,
      expected: { ok: false, problems: ['malformed'] },
    },
  ];
  return {
    step: { row, hash: stepRowHash(row) },
    cases: [
      { name: 'the blob as stored', hash, content, expected: { ok: true } },
      { name: '"forged" prepended to the stored blob', hash, content: `forged${content}`, expected: { ok: false, problem: 'step-mismatch' } },
    ],
    bundles,
  };
}

export function buildVectors() {
  const x = exampleLedger();
  return {
    about:
      'Conformance vectors for docs/LEDGER.md (format v1). Generated by test/ledger/vectors.test.ts from the server code; hex is lowercase; seq and treeSize are JSON numbers.',
    example: { secretKey: x.secretKey, publicKey: x.publicKey, keyId: x.keyId, note: 'publicly derived: never use it for real' },
    canonical: canonicalVectors(),
    steps: [{ row: x.stepRow, hash: x.prepared.contentHash }, blobVectors(x).step],
    blobs: blobVectors(x).cases,
    merkle: merkleVectors(),
    signatures: signatureVectors(x.signed),
    chains: chainVectors(x.events),
    bundles: [...bundleVectors(x), ...rowVectors().bundles, ...forgottenVectors(x), ...forgottenEpisodeVectors().bundles, ...blobVectors(x).bundles],
    exports: [...exportVectors(), ...rowVectors().exports, ...forgottenEpisodeVectors().exports],
  };
}
