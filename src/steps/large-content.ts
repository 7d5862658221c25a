// Step text past its inline limit: kept whole as a content-addressed blob (BLAKE3 of the UTF-8
// bytes), or truncated (head + tail, the original size and hash recorded), as the caller asks.
// Either way the inline field holds a preview that fits its limit, and the step records a
// reference {hash, sizeBytes, stored} that its content hash covers. Pure: no I/O.
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { utf8Bytes } from '../validation/violations.ts';
import { STEP_LIMITS, type StepInput } from './limits.ts';

export const BLOB_LIMITS = {
  // A field may go to a blob up to this size; a request body holds at most MAX_BODY_BYTES (16 MB by default) anyway.
  blobBytes: 16 * 1024 * 1024,
  // What stays inline of a field kept as a blob or truncated: head and tail, at most this many bytes each.
  previewBytes: 4 * 1024,
} as const;

export type LargeContentMode = 'refuse' | 'blob' | 'truncate';

export interface ContentRef {
  hash: string;
  sizeBytes: number;
  /** true: the whole text is a blob; false: truncated, only its hash and size are kept. */
  stored: boolean;
}

/** By field path: action, observation, result.output, result.message. */
export type ContentRefs = Record<string, ContentRef>;

export interface BlobToStore {
  hash: string;
  content: string;
  sizeBytes: number;
}

export interface Offloaded {
  step: StepInput;
  refs: ContentRefs | null;
  blobs: BlobToStore[];
}

const encoder = new TextEncoder();

/** BLAKE3 of the text's UTF-8 bytes, lowercase hex: a blob's address. */
export function blobHash(text: string): string {
  return bytesToHex(blake3(encoder.encode(text)));
}

/** The longest prefix of `bytes` that ends on a character boundary, at most `max` bytes. */
function boundary(bytes: Uint8Array, at: number): number {
  let n = at;
  while (n > 0 && n < bytes.length && ((bytes[n] ?? 0) & 0xc0) === 0x80) n -= 1;
  return n;
}

/** Head and tail of `text`, with a marker naming what was left out; fits `limitBytes`. */
export function preview(text: string, limitBytes: number, ref: ContentRef): string {
  const bytes = encoder.encode(text);
  const marker = `\n…[${ref.sizeBytes} bytes, BLAKE3 ${ref.hash}, ${ref.stored ? 'kept whole as a blob' : 'truncated'}; middle omitted]…\n`;
  const room = Math.max(0, limitBytes - utf8Bytes(marker));
  const each = Math.min(BLOB_LIMITS.previewBytes, Math.floor(room / 2));
  const head = boundary(bytes, each);
  let tail = bytes.length - each;
  while (tail < bytes.length && ((bytes[tail] ?? 0) & 0xc0) === 0x80) tail += 1;
  const decoder = new TextDecoder();
  return decoder.decode(bytes.subarray(0, head)) + marker + decoder.decode(bytes.subarray(tail));
}

interface TextField {
  path: string;
  limit: number;
  get(step: StepInput): string | null | undefined;
  set(step: StepInput, value: string): StepInput;
}

const TEXT_FIELDS: TextField[] = [
  { path: 'action', limit: STEP_LIMITS.actionBytes, get: (s) => s.action, set: (s, action) => ({ ...s, action }) },
  { path: 'observation', limit: STEP_LIMITS.observationBytes, get: (s) => s.observation, set: (s, observation) => ({ ...s, observation }) },
  {
    path: 'result.output',
    limit: STEP_LIMITS.resultOutputBytes,
    get: (s) => (s.result && s.result.kind !== 'timeout' ? s.result.output : null),
    set: (s, output) => (s.result && s.result.kind !== 'timeout' ? { ...s, result: { ...s.result, output } } : s),
  },
  {
    path: 'result.message',
    limit: STEP_LIMITS.errorMessageBytes,
    get: (s) => (s.result?.kind === 'error' ? s.result.message : null),
    set: (s, message) => (s.result?.kind === 'error' ? { ...s, result: { ...s.result, message } } : s),
  },
];

/**
 * Moves every text field past its inline limit (and within BLOB_LIMITS.blobBytes) out of the step:
 * 'blob' keeps it whole, 'truncate' keeps its hash and size; 'refuse' changes nothing, so the
 * validators refuse it as before.
 */
export function offloadLargeContent(step: StepInput, mode: LargeContentMode): Offloaded {
  if (mode === 'refuse') return { step, refs: null, blobs: [] };
  let out = step;
  const refs: ContentRefs = {};
  const blobs: BlobToStore[] = [];
  for (const field of TEXT_FIELDS) {
    const text = field.get(out);
    if (text == null) continue;
    const sizeBytes = utf8Bytes(text);
    // NUL cannot be stored in text: such a field stays as it is and the validators name it.
    if (sizeBytes <= field.limit || sizeBytes > BLOB_LIMITS.blobBytes || text.includes('\u0000')) continue;
    const ref: ContentRef = { hash: blobHash(text), sizeBytes, stored: mode === 'blob' };
    refs[field.path] = ref;
    if (ref.stored) blobs.push({ hash: ref.hash, content: text, sizeBytes });
    out = field.set(out, preview(text, field.limit, ref));
  }
  return { step: out, refs: Object.keys(refs).length ? refs : null, blobs };
}
