// Episode proof bundles (docs/LEDGER.md §6): an episode's events with inclusion proofs against a
// signed tree head, and its step rows, checkable offline with a public key the caller trusts.
// Verification never throws on bad data: a bundle is untrusted input.
import { type ForgottenStepRow, type ForgottenSteps, forgottenStepsOf, isForgottenStepRow } from '../format/forgotten.ts';
import { contentHash, fromHex, isHashHex, type StoredLedgerEvent, toHex } from '../format/hash.ts';
import { checkHashedRows, claimList, collectClaims, forgottenClaimList, type HashedRow, isHashedRow } from '../format/hashed-rows.ts';
import { eventLeafHash, type MerkleTree, verifyInclusion } from '../format/merkle.ts';
import { hasExactly, hasOnly, isUuid } from '../format/shape.ts';
import { isSignedTreeHead, type SignedTreeHead, type TreeHead, verifyTreeHead } from '../format/signed-head.ts';
import { STEP_HASH_FIELDS, STEP_OPTIONAL_FIELDS, type StepRow, stepRowHash } from '../format/step-hash.ts';
import { type BundleBlob, blobFailures, isBundleBlob } from './bundle-blobs.ts';
import { contentFailure, eventShapeFailure, type Failure, type LedgerProblem } from './verify.ts';

/**
 * v4 adds the rows of served copies (§3.3: reward_score, the context pack hashes, results_hash).
 * v3 added what forgetting brought (§3.4, §9): the step member `salt` and forgotten step rows (v1
 * and v2 files have neither: there they are malformed). v2 added `rows`, the values the events
 * hash (§6.1); v1 to v3 bundles still verify (v1: no rows to check).
 */
const BUNDLE_FORMAT = 'episodic.bundle.v4';
const BUNDLE_V3 = 'episodic.bundle.v3';
const BUNDLE_V2 = 'episodic.bundle.v2';
const BUNDLE_V1 = 'episodic.bundle.v1';
const BUNDLE_FORMATS: readonly unknown[] = [BUNDLE_FORMAT, BUNDLE_V3, BUNDLE_V2, BUNDLE_V1];
/** Formats with forgetting (salts, forgotten rows) and blobs. */
const isV3OrLater = (format: unknown) => format === BUNDLE_FORMAT || format === BUNDLE_V3;

/** Inclusion proof of one event, as carried in a bundle. */
export interface EventInclusionProof {
  seq: number;
  leafIndex: number; // always seq - 1
  auditPath: string[]; // hex, deepest sibling first
}

/** Everything an auditor needs to check one episode's events and steps offline. */
export interface ProofBundle {
  format: typeof BUNDLE_FORMAT | typeof BUNDLE_V3 | typeof BUNDLE_V2 | typeof BUNDLE_V1;
  tenantId: string;
  episodeId: string;
  /** The key the server signs with, for information: verifiers never trust it (§6). */
  publicKey: string;
  events: StoredLedgerEvent[];
  /** Step rows; a forgotten step is `{stepNumber, forgotten: true}` (§3.4). */
  steps: Array<StepRow | ForgottenStepRow>;
  proofs: EventInclusionProof[];
  treeHead: SignedTreeHead;
  /** v2: the stored values the events hash (§3.3). */
  rows?: HashedRow[];
  /** v3: the bytes of the blobs the kept step rows reference (§3.3). */
  blobs?: BundleBlob[];
}

const BUNDLE_V1_MEMBERS = ['format', 'tenantId', 'episodeId', 'publicKey', 'events', 'steps', 'proofs', 'treeHead'];
const BUNDLE_V2_MEMBERS = [...BUNDLE_V1_MEMBERS, 'rows'];
const BUNDLE_MEMBERS = [...BUNDLE_V2_MEMBERS, 'blobs'];
const PROOF_MEMBERS = ['seq', 'leafIndex', 'auditPath'];
const STEP_MEMBERS = ['stepNumber', ...STEP_HASH_FIELDS];

export interface BundleProblem {
  seq?: number;
  stepNumber?: number;
  problem: LedgerProblem;
  reason: string;
}

export interface BundleReport {
  ok: boolean;
  signatureValid: boolean;
  /** Events whose hash and inclusion proof both verified. */
  eventsChecked: number;
  /** Step rows whose hash matched their steps.logged entry. */
  stepsChecked: number;
  /** Steps without content that a steps.forgotten event of the bundle names with their logged hash (§3.4). */
  stepsForgotten: number;
  /** Hashed values (outcome, critique, ...) recomputed from the bundle's rows (v2). */
  rowsChecked: number;
  /** Hashed values an episode.forgotten event of the bundle names with their claimed hash: deleted, not checked (§3.4). */
  rowsForgotten: number;
  problems: BundleProblem[];
}

/** Assembles a bundle for events already covered by `treeHead` (producer side; throws on misuse). */
export function buildProofBundle(
  parts: {
    episodeId: string;
    publicKey: string;
    events: StoredLedgerEvent[];
    steps: Array<StepRow | ForgottenStepRow>;
    rows: HashedRow[];
    blobs?: BundleBlob[];
  },
  tree: MerkleTree,
  treeHead: SignedTreeHead,
): ProofBundle {
  const proofs = parts.events.map((e) => ({
    seq: e.seq,
    leafIndex: e.seq - 1,
    auditPath: tree.inclusionProof(e.seq - 1, treeHead.treeSize).map(toHex),
  }));
  return {
    format: BUNDLE_FORMAT,
    tenantId: treeHead.tenantId,
    episodeId: parts.episodeId,
    publicKey: parts.publicKey,
    events: parts.events,
    steps: parts.steps,
    proofs,
    treeHead,
    rows: parts.rows,
    blobs: parts.blobs ?? [],
  };
}

function isProof(value: unknown): value is EventInclusionProof {
  if (typeof value !== 'object' || value === null || !hasExactly(value, PROOF_MEMBERS)) return false;
  const p = value as Record<string, unknown>;
  return Number.isSafeInteger(p.seq) && Number.isSafeInteger(p.leafIndex) && Array.isArray(p.auditPath) && p.auditPath.every(isHashHex);
}

function isStepRow(value: unknown): value is StepRow | ForgottenStepRow {
  if (isForgottenStepRow(value)) return true;
  return isKeptStepRow(value);
}

/** A step row of a v1 or v2 bundle: written before forgetting, so never forgotten and without a salt (§9). */
function isEarlyStepRow(value: unknown): value is StepRow {
  return isKeptStepRow(value) && !('salt' in (value as object));
}

function isKeptStepRow(value: unknown): value is StepRow {
  if (typeof value !== 'object' || value === null || !hasOnly(value, STEP_MEMBERS, STEP_OPTIONAL_FIELDS)) return false;
  const s = value as Record<string, unknown>;
  if (STEP_OPTIONAL_FIELDS.some((f) => f in s && s[f] === null)) return false; // present only when set
  return Number.isSafeInteger(s.stepNumber) && (s.stepNumber as number) >= 1 && isUuid(s.episodeId);
}

/** Why the bundle's envelope is unusable (version, members, head), or undefined. */
function envelopeFailure(value: unknown): Failure | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'malformed', reason: 'a bundle is a JSON object' };
  const b = value as Record<string, unknown>;
  if (!BUNDLE_FORMATS.includes(b.format)) {
    return typeof b.format === 'string'
      ? { problem: 'unsupported-version', reason: `format "${b.format}" is not ${BUNDLE_FORMAT} (or ${BUNDLE_V3}, ${BUNDLE_V2}, ${BUNDLE_V1})` }
      : { problem: 'malformed', reason: `format must be "${BUNDLE_FORMAT}"` };
  }
  const members = b.format === BUNDLE_V1 ? BUNDLE_V1_MEMBERS : b.format === BUNDLE_V2 ? BUNDLE_V2_MEMBERS : BUNDLE_MEMBERS;
  if (!hasExactly(b, members)) return { problem: 'malformed', reason: `a bundle has exactly the members ${members.join(', ')}` };
  if (b.format !== BUNDLE_V1 && (!Array.isArray(b.rows) || !b.rows.every(isHashedRow)))
    return { problem: 'malformed', reason: 'rows must be {kind, id, value} of known kinds' };
  if (isV3OrLater(b.format) && (!Array.isArray(b.blobs) || !b.blobs.every(isBundleBlob)))
    return { problem: 'malformed', reason: 'blobs must be {hash, content} with a lowercase hex hash' };
  if (!isUuid(b.tenantId) || !isUuid(b.episodeId)) return { problem: 'malformed', reason: 'tenantId and episodeId must be lowercase uuids' };
  if (!isHashHex(b.publicKey)) return { problem: 'malformed', reason: 'publicKey must be 64 lowercase hex digits' };
  if (!Array.isArray(b.events) || !Array.isArray(b.steps) || !Array.isArray(b.proofs))
    return { problem: 'malformed', reason: 'events, steps and proofs must be arrays' };
  if (!isSignedTreeHead(b.treeHead)) return { problem: 'malformed', reason: 'treeHead is not a signed tree head (§5)' };
  return undefined;
}

function proofFailure(e: StoredLedgerEvent, proof: EventInclusionProof | undefined, head: TreeHead): Failure | undefined {
  if (e.seq > head.treeSize) return { problem: 'proof-invalid', reason: `seq ${e.seq} is beyond the tree head (size ${head.treeSize})` };
  if (proof === undefined) return { problem: 'proof-missing', reason: `no inclusion proof for seq ${e.seq}` };
  if (proof.leafIndex !== e.seq - 1) {
    return { problem: 'proof-invalid', reason: `proof for seq ${e.seq} names leaf ${proof.leafIndex}, expected ${e.seq - 1}` };
  }
  const included = verifyInclusion({
    leafIndex: proof.leafIndex,
    treeSize: head.treeSize,
    leafHash: eventLeafHash(e.hash),
    auditPath: proof.auditPath.map((hex) => fromHex(hex)),
    rootHash: fromHex(head.rootHash),
  });
  if (!included) return { problem: 'proof-invalid', reason: `inclusion proof for seq ${e.seq} does not lead to the signed root` };
  if (e.seq === head.treeSize && e.hash !== head.headHash) {
    return { problem: 'head-hash-mismatch', reason: `seq ${e.seq} is the head but its hash is not the head hash` };
  }
  return undefined;
}

/** The episode an event concerns: its episodeId, or for lease.charged the payload's (§10). */
function concernedEpisode(e: StoredLedgerEvent): string | null {
  if (e.type === 'lease.charged' && typeof e.payload === 'object' && e.payload !== null) {
    const id = (e.payload as Record<string, unknown>).episodeId;
    return typeof id === 'string' ? id : null;
  }
  return e.episodeId;
}

function bundleEventFailure(
  e: StoredLedgerEvent,
  bundle: ProofBundle,
  eventsBySeq: Map<number, StoredLedgerEvent>,
  proofsBySeq: Map<number, EventInclusionProof>,
): Failure | undefined {
  if (e.tenantId !== bundle.tenantId) return { problem: 'tenant-mismatch', reason: `seq ${e.seq} belongs to tenant ${e.tenantId}` };
  if (concernedEpisode(e) !== bundle.episodeId) return { problem: 'malformed', reason: `seq ${e.seq} does not concern episode ${bundle.episodeId}` };
  const content = contentFailure(e);
  if (content) return content;
  // Bundled events are usually scattered; where two are adjacent their link is checkable too.
  const previous = eventsBySeq.get(e.seq - 1);
  if (previous !== undefined && previous.hash !== e.prevHash) {
    return { problem: 'prev-hash-mismatch', reason: `seq ${e.seq}: prevHash is not the hash of seq ${e.seq - 1}` };
  }
  return proofFailure(e, proofsBySeq.get(e.seq), bundle.treeHead);
}

function indexEvents(items: unknown[], problems: BundleProblem[]): Map<number, StoredLedgerEvent> {
  const bySeq = new Map<number, StoredLedgerEvent>();
  items.forEach((item, index) => {
    const shape = eventShapeFailure(item, `event at position ${index}`);
    if (shape) problems.push(shape);
    else if (bySeq.has((item as StoredLedgerEvent).seq))
      problems.push({ seq: (item as StoredLedgerEvent).seq, problem: 'malformed', reason: 'duplicate event' });
    else bySeq.set((item as StoredLedgerEvent).seq, item as StoredLedgerEvent);
  });
  return bySeq;
}

function indexBy<T>(items: unknown[], isItem: (v: unknown) => v is T, key: (item: T) => number, what: string, problems: BundleProblem[]): Map<number, T> {
  const byKey = new Map<number, T>();
  items.forEach((item, index) => {
    if (!isItem(item)) problems.push({ problem: 'malformed', reason: `${what} at position ${index} is malformed` });
    else if (byKey.has(key(item)))
      problems.push({ ...(what === 'step' ? { stepNumber: key(item) } : { seq: key(item) }), problem: 'malformed', reason: `duplicate ${what} ${key(item)}` });
    else byKey.set(key(item), item);
  });
  return byKey;
}

/**
 * §6 step rule: every steps.logged entry has its row and hash, every row has exactly one entry; a
 * forgotten row stands for its entry only where a steps.forgotten event of the bundle names it
 * with the logged hash (§3.4).
 */
function checkSteps(
  bundle: ProofBundle,
  events: StoredLedgerEvent[],
  problems: BundleProblem[],
): { checked: number; forgotten: number; logged: Array<[number, unknown, number]> } {
  const rows = indexBy(bundle.steps, isV3OrLater(bundle.format) ? isStepRow : isEarlyStepRow, (s) => s.stepNumber, 'step', problems);
  const forgottenSteps = forgottenStepsOf(events);
  const covered = new Set<number>();
  const counts = { checked: 0, forgotten: 0, logged: [] as Array<[number, unknown, number]> };
  for (const e of events) {
    if (e.type !== 'steps.logged') continue;
    const entries = (e.payload as { steps?: unknown }).steps;
    for (const entry of Array.isArray(entries) ? entries : []) {
      const { n, hash } = (entry ?? {}) as { n?: unknown; hash?: unknown };
      if (typeof n !== 'number' || !isHashHex(hash) || covered.has(n)) {
        problems.push({ seq: e.seq, problem: 'malformed', reason: `seq ${e.seq}: step entry ${JSON.stringify(entry)} is malformed or repeated` });
        continue;
      }
      covered.add(n);
      const row = rows.get(n);
      if (row) counts.logged.push([n, row, e.seq]);
      if (!row) problems.push({ seq: e.seq, stepNumber: n, problem: 'step-missing', reason: `step ${n} logged by seq ${e.seq} is not in the bundle` });
      else if (isForgottenStepRow(row)) {
        const reason = forgottenRowFailure(row, forgottenSteps, bundle.episodeId, hash);
        if (!reason) counts.forgotten++;
        else problems.push({ seq: e.seq, stepNumber: n, problem: 'step-mismatch', reason: `step ${n} ${reason} (seq ${e.seq} logged it)` });
      } else if (row.episodeId !== bundle.episodeId || stepRowHash(row) !== hash)
        problems.push({ seq: e.seq, stepNumber: n, problem: 'step-mismatch', reason: `step ${n} does not hash to what seq ${e.seq} logged` });
      else counts.checked++;
    }
  }
  for (const n of rows.keys()) {
    if (!covered.has(n)) problems.push({ stepNumber: n, problem: 'step-uncovered', reason: `step ${n} is covered by no steps.logged event in the bundle` });
  }
  return counts;
}

/**
 * Why a forgotten row does not stand for its entry (§3.4), or undefined: a steps.forgotten event
 * must name it with the logged hash and, where that event hashed what the step keeps (keptHash),
 * the row's `kept` members must hash to it.
 */
function forgottenRowFailure(row: ForgottenStepRow, forgotten: ForgottenSteps, episodeId: string, hash: string): string | undefined {
  const named = forgotten.get(episodeId)?.get(row.stepNumber);
  if (!named || named.hash !== hash) return 'is marked forgotten but no steps.forgotten event of the bundle names it with its logged hash';
  if (named.keptHash === undefined) return undefined;
  if (!row.kept || row.kept.episodeId !== episodeId || contentHash(row.kept) !== named.keptHash)
    return 'keeps members (kind, result kind, latency, tokens, cost, side-effect key, times) that do not hash to the keptHash of its steps.forgotten event';
  return undefined;
}

/**
 * Verifies an episode proof bundle against `publicKey`, a key the caller trusts (never the
 * bundle's own): the head's signature, each event's hash, inclusion in the signed root and links
 * between adjacent events, and every step row against its steps.logged entry.
 */
export function verifyProofBundle(value: unknown, publicKey: Uint8Array): BundleReport {
  const envelope = envelopeFailure(value);
  if (envelope)
    return { ok: false, signatureValid: false, eventsChecked: 0, stepsChecked: 0, stepsForgotten: 0, rowsChecked: 0, rowsForgotten: 0, problems: [envelope] };
  const bundle = value as ProofBundle;
  const problems: BundleProblem[] = [];
  const signatureValid = verifyTreeHead(bundle.treeHead, publicKey);
  if (!signatureValid) problems.push({ problem: 'signature', reason: 'tree head signature does not verify with the trusted key' });
  if (bundle.treeHead.tenantId !== bundle.tenantId) {
    problems.push({ problem: 'tenant-mismatch', reason: `tree head is for tenant ${bundle.treeHead.tenantId}` });
  }
  const eventsBySeq = indexEvents(bundle.events, problems);
  const proofsBySeq = indexBy(bundle.proofs, isProof, (p) => p.seq, 'proof', problems);
  let eventsChecked = 0;
  for (const e of eventsBySeq.values()) {
    const failure = bundleEventFailure(e, bundle, eventsBySeq, proofsBySeq);
    if (failure) problems.push({ seq: e.seq, ...failure });
    else eventsChecked++;
  }
  for (const seq of proofsBySeq.keys()) {
    if (!eventsBySeq.has(seq)) problems.push({ seq, problem: 'malformed', reason: `proof for seq ${seq} has no event` });
  }
  const steps = checkSteps(bundle, [...eventsBySeq.values()], problems);
  if (isV3OrLater(bundle.format)) problems.push(...blobFailures(steps.logged, bundle.blobs ?? []));
  const claims = collectClaims(eventsBySeq.values());
  const rows = bundle.rows ? checkHashedRows(claimList(claims, bundle.format === BUNDLE_FORMAT), bundle.rows) : { checked: 0 };
  if (rows.failure) problems.push(rows.failure);
  return {
    ok: problems.length === 0,
    signatureValid,
    eventsChecked,
    stepsChecked: steps.checked,
    stepsForgotten: steps.forgotten,
    rowsChecked: rows.checked,
    rowsForgotten: forgottenClaimList(claims).length,
    problems,
  };
}
