// Pure preparation of a step for storage: redacted parameters with a hash of the original,
// the result split into kind and body, and the bytes it adds to its episode.

import { randomBytes } from 'node:crypto';
import { canonicalId } from '../core/ids.ts';
import { contentHash } from '../ledger/format/hash.ts';
import { jsonBytes } from '../validation/json.ts';
import type { BlobToStore, ContentRefs } from './large-content.ts';
import type { StepInput } from './limits.ts';
import { redact } from './redact.ts';

export interface PreparedStep {
  kind: string;
  tool: string | null;
  action: string | null;
  parameters: unknown;
  argsHash: string | null;
  resultKind: string | null;
  result: unknown;
  observation: string | null;
  latencyMs: number | null;
  tokens: number;
  cost: number;
  sideEffectKey: string | null;
  worldBefore: unknown;
  worldAfter: unknown;
  metadata: unknown;
  sizeBytes: number;
  /** Fields kept as blobs or truncated (large-content.ts); null when every field is inline. */
  contentRefs: ContentRefs | null;
  /** ISO 8601 times the step really ran (imported runs); null when journaled live. */
  startedAt: string | null;
  endedAt: string | null;
  /**
   * Random hex hashed with the content (docs/LEDGER.md §3.4): forgetting the step deletes it with
   * the content, so the logged hash no longer confirms a guess of what was forgotten.
   */
  salt: string | null;
}

const orNull = <T>(v: T | undefined | null): T | null => (v === undefined ? null : v);

const isoOrNull = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function prepareStep(step: StepInput, redactKeys: readonly string[], contentRefs: ContentRefs | null = null): PreparedStep {
  const hasParams = step.parameters !== undefined && step.parameters !== null;
  const { kind: resultKind, ...resultBody } = step.result ?? { kind: null };
  return {
    kind: step.kind,
    tool: orNull(step.tool),
    action: orNull(step.action),
    parameters: hasParams ? redact(step.parameters, redactKeys) : null,
    argsHash: hasParams ? contentHash(step.parameters) : null,
    resultKind,
    result: step.result ? resultBody : null,
    observation: orNull(step.observation),
    latencyMs: orNull(step.latencyMs),
    tokens: step.tokens ?? 0,
    cost: step.cost ?? 0,
    sideEffectKey: orNull(step.sideEffectKey),
    worldBefore: orNull(step.worldBefore),
    worldAfter: orNull(step.worldAfter),
    metadata: orNull(step.metadata),
    sizeBytes: jsonBytes(step),
    contentRefs,
    startedAt: isoOrNull(step.startedAt),
    endedAt: isoOrNull(step.endedAt),
    salt: null,
  };
}

const SALT_BYTES = 16;

/** A fresh salt: 128 random bits as lowercase hex, enough that no guess of the content can be checked without it. */
export function newStepSalt(): string {
  return randomBytes(SALT_BYTES).toString('hex');
}

/**
 * Fresh salts for `count` steps, drawn from the CSPRNG in one call: one randomBytes per step was 3 %
 * of the server's CPU in logSteps (bench/ingest.ts). Each salt is its own 16 bytes, never shared.
 */
function stepSalts(count: number): () => string {
  const hex = randomBytes(SALT_BYTES * count).toString('hex');
  let next = 0;
  return () => {
    if (next >= count) return newStepSalt();
    const salt = hex.slice(next * SALT_BYTES * 2, (next + 1) * SALT_BYTES * 2);
    next += 1;
    return salt;
  };
}

/** A prepared step with its content hash, and the blobs it references that are to be stored with it. */
export type HashedStep = PreparedStep & { contentHash: string; blobs: BlobToStore[] };

/** A step as prepareSteps takes it: offloaded already, with the references and blobs that produced. */
export interface StepToPrepare {
  step: StepInput;
  refs: ContentRefs | null;
  blobs: BlobToStore[];
}

/**
 * A call's validated steps, prepared for storage, each given a fresh salt (`salt`: fixed only by
 * the spec's worked example) and hashed for their episode. Done before the call joins a group
 * commit, outside its transaction.
 */
export function prepareSteps(
  episodeId: string,
  steps: readonly (StepInput | StepToPrepare)[],
  redactKeys: readonly string[],
  salt: () => string = stepSalts(steps.length),
): HashedStep[] {
  const id = canonicalId(episodeId); // hashed as the uuid column holds it
  return steps.map((s) => {
    const { step: input, refs, blobs } = 'step' in s ? s : { step: s, refs: null, blobs: [] };
    const step = { ...prepareStep(input, redactKeys, refs), salt: salt() };
    return { ...step, contentHash: stepContentHash(id, step), blobs };
  });
}

/**
 * Hash of the step as stored, bound to its episode (a lowercase uuid). The steps.logged event binds
 * it to its step number ({n, hash}), so the hash needs no number and is computed before one is
 * assigned, off the commit path; an edited, moved or renumbered row is still detected.
 */
export function stepContentHash(episodeId: string, s: PreparedStep): string {
  return contentHash({
    episodeId,
    kind: s.kind,
    tool: s.tool,
    action: s.action,
    parameters: s.parameters,
    argsHash: s.argsHash,
    resultKind: s.resultKind,
    result: s.result,
    observation: s.observation,
    latencyMs: s.latencyMs,
    tokens: s.tokens,
    cost: s.cost,
    sideEffectKey: s.sideEffectKey,
    worldBefore: s.worldBefore,
    worldAfter: s.worldAfter,
    metadata: s.metadata,
    // Present only when set, so the hash of every step stored before these fields is unchanged.
    ...(s.contentRefs ? { contentRefs: s.contentRefs } : {}),
    ...(s.startedAt ? { startedAt: s.startedAt } : {}),
    ...(s.endedAt ? { endedAt: s.endedAt } : {}),
    ...(s.salt ? { salt: s.salt } : {}),
  });
}

const isoOfColumn = (v: Date | string | null | undefined) => (v == null ? null : new Date(v).toISOString());

/** The columns of a stored `steps` row that its content hash covers (as node-postgres reads them). */
export interface StepRow {
  kind: string;
  tool: string | null;
  action: string | null;
  parameters: unknown;
  args_hash: string | null;
  result_kind: string | null;
  result: unknown;
  observation: string | null;
  latency_ms: number | null;
  tokens: number;
  cost: number;
  side_effect_key: string | null;
  world_before: unknown;
  world_after: unknown;
  metadata: unknown;
  size_bytes: number;
  content_refs?: ContentRefs | null;
  started_at?: Date | string | null;
  ended_at?: Date | string | null;
  salt?: string | null;
}

/** A stored `steps` row back as the step that was hashed. */
export function rowToPreparedStep(r: StepRow): PreparedStep {
  return {
    kind: r.kind,
    tool: r.tool,
    action: r.action,
    parameters: r.parameters,
    argsHash: r.args_hash,
    resultKind: r.result_kind,
    result: r.result,
    observation: r.observation,
    latencyMs: r.latency_ms,
    tokens: r.tokens,
    cost: r.cost,
    sideEffectKey: r.side_effect_key,
    worldBefore: r.world_before,
    worldAfter: r.world_after,
    metadata: r.metadata,
    sizeBytes: r.size_bytes,
    contentRefs: r.content_refs ?? null,
    startedAt: isoOfColumn(r.started_at),
    endedAt: isoOfColumn(r.ended_at),
    salt: r.salt ?? null,
  };
}
