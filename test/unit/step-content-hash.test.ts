// What a step's content hash covers, field by field: every stored field of a prepared step except
// its size changes the hash (a field left out would let an edited row pass verification), and
// prepareStep maps the input exactly (missing fields stored as null, not dropped).
import { describe, expect, it } from 'vitest';
import { contentHash } from '../../src/ledger/format/hash.ts';
import type { ContentRefs } from '../../src/steps/large-content.ts';
import { type PreparedStep, prepareStep, rowToPreparedStep, type StepRow, stepContentHash } from '../../src/steps/prepare.ts';

const EPISODE = '3f1d9c2e-8a4b-4c5d-9e0f-0123456789ab';

const FULL = {
  kind: 'tool_call',
  tool: 'bash',
  action: 'ls',
  parameters: { dir: '/src', apiKey: 'secret' },
  result: { kind: 'success' as const, output: 'a.ts' },
  observation: 'one file',
  latencyMs: 12,
  tokens: 30,
  cost: 0.25,
  sideEffectKey: 'ls-1',
  worldBefore: { cwd: '/' },
  worldAfter: { cwd: '/src' },
  metadata: { attempt: 1 },
  startedAt: new Date('2026-11-20T10:00:00.000Z'),
  endedAt: new Date('2026-11-20T10:00:02.500Z'),
};
/** The observation kept as a blob: the hash covers the reference too. */
const REFS: ContentRefs = { observation: { hash: 'ab'.repeat(32), sizeBytes: 20_000, stored: true } };

/** A value of the same kind that differs from `value`. */
function changed(value: unknown): unknown {
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'string') return `${value}x`;
  return { changed: value ?? null };
}

/** The salt prepareSteps gives every step (§3.4): hashed like the content. */
const SALT = 'ab'.repeat(16);

describe('stepContentHash', () => {
  const full = { ...prepareStep(FULL, ['apiKey'], REFS), salt: SALT };
  const hash = stepContentHash(EPISODE, full);

  it.each(Object.keys(full).filter((field) => field !== 'sizeBytes'))('changes when %s changes', (field) => {
    const edited = { ...full, [field]: changed(full[field as keyof PreparedStep]) };
    expect(stepContentHash(EPISODE, edited)).not.toBe(hash);
  });

  it('covers all 19 stored fields (the salt too), and not the size (derived from the input)', () => {
    expect(Object.keys(full)).toHaveLength(20);
    expect(stepContentHash(EPISODE, { ...full, sizeBytes: full.sizeBytes + 1 })).toBe(hash);
  });

  it('changes with the episode it is bound to', () => {
    expect(stepContentHash('0b8e2f4a-1c3d-4e5f-8a9b-c0d1e2f3a4b5', full)).not.toBe(hash);
  });
});

describe('prepareStep', () => {
  it('stores every field of a full step, the parameters redacted with a hash of the original', () => {
    expect(prepareStep(FULL, ['apiKey'])).toStrictEqual({
      kind: 'tool_call',
      tool: 'bash',
      action: 'ls',
      parameters: { dir: '/src', apiKey: '[REDACTED]' },
      argsHash: contentHash(FULL.parameters),
      resultKind: 'success',
      result: { output: 'a.ts' },
      observation: 'one file',
      latencyMs: 12,
      tokens: 30,
      cost: 0.25,
      sideEffectKey: 'ls-1',
      worldBefore: { cwd: '/' },
      worldAfter: { cwd: '/src' },
      metadata: { attempt: 1 },
      sizeBytes: Buffer.byteLength(JSON.stringify(FULL)),
      contentRefs: null,
      startedAt: '2026-11-20T10:00:00.000Z',
      endedAt: '2026-11-20T10:00:02.500Z',
      salt: null,
    });
  });

  it('stores missing fields as null, and missing tokens and cost as 0', () => {
    expect(prepareStep({ kind: 'thought' }, [])).toStrictEqual({
      kind: 'thought',
      tool: null,
      action: null,
      parameters: null,
      argsHash: null,
      resultKind: null,
      result: null,
      observation: null,
      latencyMs: null,
      tokens: 0,
      cost: 0,
      sideEffectKey: null,
      worldBefore: null,
      worldAfter: null,
      metadata: null,
      sizeBytes: Buffer.byteLength('{"kind":"thought"}'),
      contentRefs: null,
      startedAt: null,
      endedAt: null,
      salt: null,
    });
  });

  it('keeps explicit nulls as null and has no parameter hash without parameters', () => {
    const step = prepareStep({ kind: 'thought', tool: null, parameters: null, result: null, tokens: null, cost: null }, []);
    expect(step).toMatchObject({ tool: null, parameters: null, argsHash: null, resultKind: null, result: null, tokens: 0, cost: 0 });
  });

  it('keeps falsy values that are not missing: 0, empty text, false parameters', () => {
    const step = prepareStep({ kind: 'tool_call', tool: '', latencyMs: 0, parameters: false, observation: '' }, []);
    expect(step).toMatchObject({ tool: '', latencyMs: 0, parameters: false, argsHash: contentHash(false), observation: '' });
  });
});

describe('rowToPreparedStep', () => {
  /** The stored row of a prepared step, as node-postgres reads it (timestamps as Dates). */
  function rowOf(p: PreparedStep): StepRow {
    return {
      kind: p.kind,
      tool: p.tool,
      action: p.action,
      parameters: p.parameters,
      args_hash: p.argsHash,
      result_kind: p.resultKind,
      result: p.result,
      observation: p.observation,
      latency_ms: p.latencyMs,
      tokens: p.tokens,
      cost: p.cost,
      side_effect_key: p.sideEffectKey,
      world_before: p.worldBefore,
      world_after: p.worldAfter,
      metadata: p.metadata,
      size_bytes: p.sizeBytes,
      content_refs: p.contentRefs,
      started_at: p.startedAt === null ? null : new Date(p.startedAt),
      ended_at: p.endedAt === null ? null : new Date(p.endedAt),
      salt: p.salt,
    };
  }

  it('gives back the step that was hashed, timestamps as ISO text, so the hash recomputes', () => {
    const full = { ...prepareStep(FULL, ['apiKey'], REFS), salt: SALT };
    expect(rowToPreparedStep(rowOf(full))).toStrictEqual(full);
    expect(stepContentHash(EPISODE, rowToPreparedStep(rowOf(full)))).toBe(stepContentHash(EPISODE, full));
    // Timestamps read as text (another driver setting) are normalised the same way.
    const asText = { ...rowOf(full), started_at: '2026-11-20 10:00:00+00', ended_at: '2026-11-20T12:00:02.5+02:00' };
    expect(rowToPreparedStep(asText)).toMatchObject({ startedAt: '2026-11-20T10:00:00.000Z', endedAt: '2026-11-20T10:00:02.500Z' });
  });

  it('reads missing optional columns (rows stored before them) as null', () => {
    const bare = prepareStep({ kind: 'thought' }, []);
    const { content_refs: _refs, started_at: _start, ended_at: _end, salt: _salt, ...oldRow } = rowOf(bare);
    expect(rowToPreparedStep(oldRow)).toStrictEqual(bare);
    expect(rowToPreparedStep(rowOf(bare))).toStrictEqual(bare);
    expect(stepContentHash(EPISODE, rowToPreparedStep(oldRow))).toBe(stepContentHash(EPISODE, bare));
  });
});
