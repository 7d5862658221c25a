// The step content hash of docs/LEDGER.md §3.2 as the spec states it, for verifiers: computed from
// a step row (an exported one or a database row), independently of the server's write path
// (src/steps/prepare.ts). test/ledger-api/coverage.test.ts checks both agree on stored rows, so a
// change to either side without the other (and the spec) fails.
import { canonicalJson, canonicalString, canonicalTextHash } from './hash.ts';

/** The hashed members of a step, in the spec's order (JCS sorts them anyway). */
export const STEP_HASH_FIELDS = [
  'episodeId',
  'kind',
  'tool',
  'action',
  'parameters',
  'argsHash',
  'resultKind',
  'result',
  'observation',
  'latencyMs',
  'tokens',
  'cost',
  'sideEffectKey',
  'worldBefore',
  'worldAfter',
  'metadata',
] as const;

/**
 * Members hashed only when set (non-null), so steps stored before they existed keep their hash:
 * the references of fields kept as blobs or truncated, the times an imported step really ran, and
 * the salt (random hex deleted with the content when it is forgotten, §3.4, so that the logged
 * hash cannot confirm a guess of what was forgotten).
 */
export const STEP_OPTIONAL_FIELDS = ['contentRefs', 'startedAt', 'endedAt', 'salt'] as const;

/** A step row as exported in a bundle: the hashed members plus its number. */
export type StepRow = Record<(typeof STEP_HASH_FIELDS)[number], unknown> & { stepNumber: number } & Partial<
    Record<(typeof STEP_OPTIONAL_FIELDS)[number], unknown>
  >;

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
// Column names computed once: verifyLedger converts every step row of a ledger.
const HASH_COLUMNS = STEP_HASH_FIELDS.map((field) => [field, snake(field)] as const);
const OPTIONAL_COLUMNS = STEP_OPTIONAL_FIELDS.map((field) => [field, snake(field)] as const);
const TIME_FIELDS: ReadonlySet<string> = new Set(['startedAt', 'endedAt']);

/** A `steps` table row (snake_case columns) as the exported step row; times as toISOString(). */
export function stepRowFromColumns(row: Record<string, unknown>): StepRow {
  return stepRowFrom(row, HASH_COLUMNS, OPTIONAL_COLUMNS);
}

/** The same from a record with the members' own names (a Prisma Step). */
export function stepRowFromRecord(record: Record<string, unknown>): StepRow {
  return stepRowFrom(record, SAME_NAMES, SAME_OPTIONAL_NAMES);
}

const SAME_NAMES = STEP_HASH_FIELDS.map((field) => [field, field] as const);
const SAME_OPTIONAL_NAMES = STEP_OPTIONAL_FIELDS.map((field) => [field, field] as const);

function stepRowFrom(
  row: Record<string, unknown>,
  hashed: ReadonlyArray<readonly [string, string]>,
  optional: ReadonlyArray<readonly [string, string]>,
): StepRow {
  const step: Record<string, unknown> = { stepNumber: row.step_number ?? row.stepNumber };
  for (const [field, column] of hashed) step[field] = row[column] ?? null;
  for (const [field, column] of optional) {
    const value = row[column];
    if (value == null) continue;
    step[field] = TIME_FIELDS.has(field) ? new Date(value as string | Date).toISOString() : value;
  }
  return step as StepRow;
}

/** Exactly the members contentHash covers (§3.2): stepNumber and any other member left out, unset optional members absent. */
export function stepHashedMembers(row: Record<string, unknown>): Record<string, unknown> {
  const hashed: Record<string, unknown> = Object.fromEntries(STEP_HASH_FIELDS.map((f) => [f, row[f] ?? null]));
  for (const field of STEP_OPTIONAL_FIELDS) if (row[field] != null) hashed[field] = row[field];
  return hashed;
}

/**
 * The members a forgotten step keeps (§3.4): which episode, what kind of step, how it ended, what
 * it cost and when it ran. Its steps.forgotten entry carries `keptHash`, contentHash of these as
 * they are hashed here (optional ones only when set), so they stay covered once the salt is gone.
 */
export const STEP_KEPT_FIELDS: readonly string[] = ['episodeId', 'kind', 'resultKind', 'latencyMs', 'tokens', 'cost', 'sideEffectKey', 'startedAt', 'endedAt'];

/** The kept members of a step row (§3.4), as hashed. */
export function stepKeptMembers(row: Record<string, unknown>): Record<string, unknown> {
  const hashed = stepHashedMembers(row);
  return Object.fromEntries(STEP_KEPT_FIELDS.filter((f) => f in hashed).map((f) => [f, hashed[f]]));
}

/** Every hashed member (required and optional) in RFC 8785 order, with whether it is optional. */
export const STEP_CANONICAL_FIELDS: ReadonlyArray<{ field: string; optional: boolean }> = [
  ...STEP_HASH_FIELDS.map((field) => ({ field, optional: false })),
  ...STEP_OPTIONAL_FIELDS.map((field) => ({ field, optional: true })),
].sort((a, b) => (a.field < b.field ? -1 : 1));

const CANONICAL_KEYS = STEP_CANONICAL_FIELDS.map(({ field }) => canonicalString(field));

/**
 * canonicalJson(stepHashedMembers(row)) written out member by member in the fixed order, from
 * the members' values in STEP_CANONICAL_FIELDS order (from `offset` on): no object is built or
 * sorted per step (a verification converts every step row of a ledger). Unset optional members
 * are left out.
 */
function stepCanonicalText(values: readonly unknown[], offset = 0): string {
  let out = '';
  for (let i = 0; i < CANONICAL_KEYS.length; i++) {
    const v = values[offset + i];
    const optional = STEP_CANONICAL_FIELDS[i]?.optional;
    if ((optional && v == null) || typeof v === 'symbol') continue;
    out += `${out === '' ? '{' : ','}${CANONICAL_KEYS[i]}:${canonicalJson(v ?? null)}`;
  }
  return `${out === '' ? '{' : out}}`;
}

/** contentHash of exactly the hashed members of the row. */
export function stepRowHash(row: Record<string, unknown>): string {
  return canonicalTextHash(stepCanonicalText(STEP_CANONICAL_FIELDS.map(({ field }) => row[field])));
}
