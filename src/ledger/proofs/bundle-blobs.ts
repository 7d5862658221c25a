// The blobs a v3 bundle carries (docs/LEDGER.md §3.3, §6.1): the bytes of every blob a kept step row's
// contentRefs names as stored, so that an offline verifier re-hashes them as verifyLedger does
// (blob-check.ts). A blob is content-addressed: hash = hex(BLAKE3(utf8(content))), no tag. A blob
// missing or no longer hashing to its key is a step-mismatch at the steps.logged event of the first
// step that references it; a blob no kept step references is malformed.
import { isForgottenStepRow } from '../format/forgotten.ts';
import { hashBytes, isHashHex, toHex } from '../format/hash.ts';
import type { StepRow } from '../format/step-hash.ts';
import type { Failure } from './verify.ts';

export interface BundleBlob {
  hash: string;
  content: string;
}

export function isBundleBlob(value: unknown): value is BundleBlob {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const b = value as Record<string, unknown>;
  return Object.keys(b).length === 2 && isHashHex(b.hash) && typeof b.content === 'string';
}

/** The blob hashes a step row's contentRefs names as stored ({field: {hash, sizeBytes, stored}}). */
export function storedBlobRefs(row: unknown): string[] {
  if (isForgottenStepRow(row)) return [];
  const refs = (row as Partial<StepRow> | null)?.contentRefs;
  if (typeof refs !== 'object' || refs === null) return [];
  return Object.values(refs as Record<string, { hash?: unknown; stored?: unknown } | null>).flatMap((r) =>
    r && r.stored === true && typeof r.hash === 'string' ? [r.hash] : [],
  );
}

const utf8 = new TextEncoder();

/**
 * Each stored blob the kept step rows reference is carried and re-hashes to its key; each carried
 * blob is referenced. `steps` are [step number, row, seq of the steps.logged event covering it].
 */
export function blobFailures(
  steps: ReadonlyArray<[number, unknown, number]>,
  blobs: readonly BundleBlob[],
): Array<Failure & { seq?: number; stepNumber?: number }> {
  const byHash = new Map(blobs.map((b) => [b.hash, b]));
  const referenced = new Set<string>();
  const failures: Array<Failure & { seq?: number; stepNumber?: number }> = [];
  for (const [n, row, seq] of steps) {
    for (const hash of storedBlobRefs(row)) {
      if (referenced.has(hash)) continue;
      referenced.add(hash);
      const blob = byHash.get(hash);
      const reason = !blob
        ? `blob ${hash} that step ${n} references is not in the bundle`
        : toHex(hashBytes(utf8.encode(blob.content))) !== hash
          ? `blob ${hash} that step ${n} references no longer hashes to its key`
          : undefined;
      if (reason) failures.push({ seq, stepNumber: n, problem: 'step-mismatch', reason });
    }
  }
  for (const b of blobs)
    if (!referenced.has(b.hash)) failures.push({ problem: 'malformed', reason: `blob ${b.hash} is referenced by no kept step row of the bundle` });
  return failures;
}
