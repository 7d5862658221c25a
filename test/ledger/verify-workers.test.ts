// The step check off the main thread (src/ledger/verification/verify-workers.ts): a batch large enough to go to
// a worker gets the verdict the same check gives inline (step-check.ts), on good rows, on rows
// whose content or content_hash column was changed, on missing rows, and the same error on a row
// that is not the row the read asks for. Verifications of small ledgers check inline, so this is
// what exercises the worker.
import { describe, expect, it } from 'vitest';
import { STEP_CANONICAL_FIELDS, stepRowHash } from '../../src/ledger/format/step-hash.ts';
import { checkStepBatch, STEP_COLUMN_KINDS, type StepBatch, type StepColumnKind } from '../../src/ledger/verification/step-check.ts';
import { checkSteps, verifyWorkersReady } from '../../src/ledger/verification/verify-workers.ts';
import { copyRow, type Field } from '../support/copy-binary.ts';

const episodeId = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9';
const utf8 = new TextEncoder();

const utf8Field = (text: string): Field => utf8.encode(text);
const int4Field = (n: number): Field => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setInt32(0, n);
  return b;
};

/** A member's column as binary COPY sends it (step-check.ts): text, jsonb, int4, float8 or timestamptz. */
function column(kind: StepColumnKind, v: unknown): Field {
  if (v === null || v === undefined) return null;
  const b = new Uint8Array(8);
  const view = new DataView(b.buffer);
  if (kind === 'text') return utf8Field(v as string);
  if (kind === 'jsonb') return new Uint8Array([1, ...utf8.encode(JSON.stringify(v, null, 1))]);
  if (kind === 'int4') return int4Field(v as number);
  if (kind === 'float8') view.setFloat64(0, v as number);
  else view.setBigInt64(0, BigInt(Date.parse(v as string) - Date.UTC(2000, 0, 1)) * 1000n);
  return b;
}

/** Step n's row: the hashed record, and the row as the step read gets it; `edit` may change the record's columns. */
function step(
  n: number,
  edit: (record: Record<string, unknown>) => void = () => undefined,
  editFields: (members: Field[]) => void = () => undefined,
): { hash: string; row: Uint8Array } {
  const record: Record<string, unknown> = {
    episodeId,
    kind: 'tool_call',
    tool: 'bash',
    action: `run ${n} "quoted"\t`,
    parameters: { command: `grep -rn "x${n}" src/`, flags: [n, 1.5, true] },
    argsHash: null,
    resultKind: 'success',
    result: { output: `line\n${'é'.repeat(n % 5)}`, exitCode: 0 },
    observation: n % 2 ? null : `seen\u0001 ${'ü'.repeat(n % 3)}`,
    latencyMs: n,
    tokens: 100 + n,
    cost: n / 1000,
    sideEffectKey: null,
    worldBefore: null,
    worldAfter: { cwd: '/repo' },
    metadata: null,
    ...(n % 3 === 0 ? { startedAt: new Date(1_700_000_000_000 + n).toISOString() } : {}),
  };
  const hash = stepRowHash(record);
  edit(record);
  const members = STEP_CANONICAL_FIELDS.map(({ field }, i) => column(STEP_COLUMN_KINDS[i] as StepColumnKind, record[field]));
  editFields(members);
  return { hash, row: copyRow([int4Field(0), int4Field(n), utf8Field((record.contentHash as string) ?? hash), ...members]) };
}

/** A batch of `count` steps; `edit` may change a row or logged hash, or drop the row (null). */
function batch(count: number, edit: (n: number, row: { hash: string; row: Uint8Array }) => { hash: string; row: Uint8Array } | null = (_, r) => r): StepBatch {
  const rows = Array.from({ length: count }, (_, i) => edit(i + 1, step(i + 1)));
  const bytes = new Uint8Array(rows.reduce((n, r) => n + (r?.row.length ?? 0), 0));
  const starts = new Int32Array(count);
  const ends = new Int32Array(count);
  let at = 0;
  rows.forEach((r, k) => {
    starts[k] = r ? at : -1;
    ends[k] = r ? at + r.row.length : -1;
    if (r) bytes.set(r.row, at);
    at += r?.row.length ?? 0;
  });
  const hashes = new Uint8Array(32 * count);
  rows.forEach((r, k) => hashes.set(Buffer.from(r?.hash ?? step(k + 1).hash, 'hex'), 32 * k));
  return { bytes, starts, ends, hashes, logged: new Uint8Array(count).fill(1) };
}

/** The verdict inline (on copies: the worker takes the batch's arrays). */
const inline = (b: StepBatch) => checkStepBatch({ ...b, bytes: b.bytes.slice(), hashes: b.hashes.slice(), logged: b.logged.slice() });

/**
 * A row built, hashed and checked twice (inline and on the worker) takes about 0.2 ms idle, 6.4 ms
 * alone at load 20 on 2 cores, and more than 20 ms there beside four other test files (10,000 rows
 * ran past 200 s): 50 ms a row.
 */
const ROW_BUDGET_MS = 50;
/** Rows the verdict test builds and checks twice. */
const VERDICT_ROWS = 4 * 2_500;
const VERDICT_BUDGET_MS = VERDICT_ROWS * ROW_BUDGET_MS;
/** Rows the bad-row test builds and checks twice (the error comes at row 3, after the batch is built). */
const BAD_ROW_BUDGET_MS = 2_500 * ROW_BUDGET_MS;

describe('step checks on the worker thread', () => {
  it('starts the worker', async () => {
    expect(await verifyWorkersReady()).toBe(true);
  });

  it('gives the inline verdict on good, changed and missing rows', { timeout: VERDICT_BUDGET_MS }, async () => {
    const cases: StepBatch[] = [
      batch(2_500),
      batch(2_500, (n, r) => (n === 1_777 ? { ...r, row: step(n, (s) => void (s.action = 'ran')).row } : r)),
      batch(2_500, (n, r) => (n === 2_001 ? { ...r, row: step(n, (s) => void (s.contentHash = r.hash.replace(/^./, 'f'))).row } : r)),
      batch(2_500, (n, r) => (n === 2_400 ? null : r)),
    ];
    const verdicts = [
      { checked: 2_500 },
      { checked: 1_776, bad: { entry: 1_776, problem: 'content-differs' } },
      { checked: 2_000, bad: { entry: 2_000, problem: 'column-differs' } },
      { checked: 2_399, bad: { entry: 2_399, problem: 'step-missing' } },
    ];
    for (const [i, b] of cases.entries()) {
      const expected = inline(b);
      expect(expected).toEqual(verdicts[i]);
      const rows = b.bytes.slice();
      expect(await checkSteps(b)).toEqual(expected);
      expect(b.hashes.byteLength).toBe(0); // moved to the worker, not copied
      expect(b.bytes).toEqual(rows); // the row bytes come back with the verdict
    }
  });

  it('fails with the inline error on a row that is not a step row', { timeout: BAD_ROW_BUDGET_MS }, async () => {
    const b = batch(2_500, (n, r) => (n === 3 ? { ...r, row: copyRow([int4Field(0), int4Field(3), utf8Field('x')]) } : r));
    expect(() => inline(b)).toThrow('row has not 23 fields');
    await expect(checkSteps(b)).rejects.toThrow('row has not 23 fields');
  });

  it('refuses an entry whose logged hash was no hash, whatever its row holds', () => {
    const b = batch(3);
    b.logged[1] = 0;
    expect(checkStepBatch(b)).toEqual({ checked: 1, bad: { entry: 1, problem: 'content-differs' } });
  });

  it('recomputes every kind of column as the driver made it: escaped text, jsonb, times, NULLs', () => {
    const ok = batch(30);
    expect(checkStepBatch(ok)).toEqual({ checked: 30 });
    // A row cut short, a jsonb field of another version and text that is not UTF-8 are errors, not verdicts.
    const cut = batch(3, (n, r) => (n === 2 ? { ...r, row: r.row.subarray(0, r.row.length - 3) } : r));
    expect(() => checkStepBatch(cut)).toThrow('row ends early');
    const worldAfter = STEP_CANONICAL_FIELDS.findIndex(({ field }) => field === 'worldAfter');
    const version = batch(3, (n, r) => (n === 2 ? step(n, undefined, (m) => void (m[worldAfter] = new Uint8Array([2, 123, 125]))) : r));
    expect(() => checkStepBatch(version)).toThrow('not a jsonb field');
    const changed = batch(3, (n, r) => (n === 2 ? { ...r, row: step(n, (s) => void (s.worldAfter = null)).row } : r));
    expect(checkStepBatch(changed)).toEqual({ checked: 1, bad: { entry: 1, problem: 'content-differs' } });
    const bad = step(2);
    const action = utf8.encode('run 2');
    const at = bad.row.findIndex((_, i) => action.every((c, j) => bad.row[i + j] === c));
    bad.row[at] = 0xff;
    const malformed = batch(3, (n, r) => (n === 2 ? bad : r));
    expect(() => checkStepBatch(malformed)).toThrow('not well-formed UTF-8');
  });
});
