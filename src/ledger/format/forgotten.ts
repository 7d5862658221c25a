// Forgotten steps (docs/LEDGER.md §3.4): a steps.forgotten event names each step whose content was
// deleted, with the hash steps.logged gave it. A verifier accepts a step without its content only
// where such an event names it with exactly its logged hash, and reports it as forgotten: content
// deleted without that event is still step-missing or step-mismatch.
import { isHashHex, type StoredLedgerEvent } from './hash.ts';

export const STEPS_FORGOTTEN = 'steps.forgotten';

/**
 * The step members forgetting deletes (everything the agent told, and the salt that hashed it). A
 * stored row a steps.forgotten event names must have none of them, or content was written into a
 * forgotten step and would be served unverified: step-mismatch.
 */
export const FORGOTTEN_MEMBERS: readonly string[] = [
  'tool',
  'action',
  'parameters',
  'argsHash',
  'result',
  'observation',
  'worldBefore',
  'worldAfter',
  'metadata',
  'contentRefs',
  'salt',
];

/**
 * A bundle's row of a forgotten step: its number and, since the steps.forgotten entries carry
 * keptHash, the members it keeps (step-hash.ts STEP_KEPT_FIELDS) as `kept`.
 */
export interface ForgottenStepRow {
  stepNumber: number;
  forgotten: true;
  kept?: Record<string, unknown>;
}

const KEPT_REQUIRED = ['episodeId', 'kind', 'resultKind', 'latencyMs', 'tokens', 'cost', 'sideEffectKey'];
const KEPT_OPTIONAL = ['startedAt', 'endedAt'];

function isKept(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const kept = value as Record<string, unknown>;
  const names = Object.keys(kept);
  return KEPT_REQUIRED.every((m) => m in kept) && names.every((m) => KEPT_REQUIRED.includes(m) || (KEPT_OPTIONAL.includes(m) && kept[m] !== null));
}

export function isForgottenStepRow(value: unknown): value is ForgottenStepRow {
  if (typeof value !== 'object' || value === null) return false;
  const row = value as Record<string, unknown>;
  const members = Object.keys(row).length;
  const shaped = members === 2 || (members === 3 && isKept(row.kept));
  return shaped && row.forgotten === true && Number.isSafeInteger(row.stepNumber) && (row.stepNumber as number) >= 1;
}

/** Episode id -> step number -> {hash it was forgotten with, the hash of what it keeps (absent in early events), seq of the event}. */
export type ForgottenSteps = Map<string, Map<number, { hash: string; keptHash?: string; seq: number }>>;

/** The steps forgotten by these events (later events do not replace an earlier naming). */
export function forgottenStepsOf(events: Iterable<StoredLedgerEvent>): ForgottenSteps {
  const out: ForgottenSteps = new Map();
  for (const e of events) {
    if (e.type !== STEPS_FORGOTTEN || e.episodeId === null) continue;
    const entries = (e.payload as { steps?: unknown } | null)?.steps;
    if (!Array.isArray(entries)) continue;
    let steps = out.get(e.episodeId);
    if (!steps) out.set(e.episodeId, (steps = new Map()));
    for (const entry of entries) {
      const { n, hash, keptHash } = (entry ?? {}) as { n?: unknown; hash?: unknown; keptHash?: unknown };
      if (!Number.isSafeInteger(n) || !isHashHex(hash) || steps.has(n as number)) continue;
      steps.set(n as number, { hash, seq: e.seq, ...(isHashHex(keptHash) ? { keptHash } : {}) });
    }
  }
  return out;
}

export const EPISODE_FORGOTTEN = 'episode.forgotten';

/** Row key (`kind:id`, hashed-rows.ts rowKey) -> the hash an episode.forgotten event forgot it with, and its seq. */
export type ForgottenRows = Map<string, { hash: string; seq: number }>;

/**
 * Adds the rows an episode.forgotten event names (`rows: [{kind, id, hash}]`) to `into`: each row
 * whose value it deleted, with the hash of the value it deleted (an earlier naming is kept).
 */
export function addForgottenRows(into: ForgottenRows, e: StoredLedgerEvent): void {
  if (e.type !== EPISODE_FORGOTTEN || e.episodeId === null) return;
  const rows = (e.payload as { rows?: unknown } | null)?.rows;
  if (!Array.isArray(rows)) return;
  for (const row of rows) {
    const { kind, id, hash } = (row ?? {}) as { kind?: unknown; id?: unknown; hash?: unknown };
    if (typeof kind !== 'string' || typeof id !== 'string' || !isHashHex(hash)) continue;
    const key = `${kind}:${id}`;
    if (!into.has(key)) into.set(key, { hash, seq: e.seq });
  }
}

export function forgottenRowsOf(events: Iterable<StoredLedgerEvent>): ForgottenRows {
  const out: ForgottenRows = new Map();
  for (const e of events) addForgottenRows(out, e);
  return out;
}

/** Whether the row was forgotten with exactly the hash its latest claim carries. */
export function isRowForgotten(forgotten: ForgottenRows, row: { kind: string; id: string; hash: string }): boolean {
  return forgotten.get(`${row.kind}:${row.id}`)?.hash === row.hash;
}
