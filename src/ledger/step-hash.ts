// The step content hash of docs/LEDGER.md §3.2 as the spec states it, for verifiers: computed from
// a step row (an exported one or a database row), independently of the server's write path
// (src/steps/prepare.ts). test/ledger-api/coverage.test.ts checks both agree on stored rows, so a
// change to either side without the other (and the spec) fails.
import { contentHash } from './hash.ts';

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
 * the references of fields kept as blobs or truncated, and the times an imported step really ran.
 */
export const STEP_OPTIONAL_FIELDS = ['contentRefs', 'startedAt', 'endedAt'] as const;

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

/** contentHash of exactly the hashed members of the row. */
export function stepRowHash(row: Record<string, unknown>): string {
  return contentHash(stepHashedMembers(row));
}
