// Large answers (issue 50): 64 concurrent blob(hash) reads of a 7.9 MB blob by one key held the
// event loop ~45 ms per answer (one JSON.stringify ~32 ms, its UTF-8 copy ~10 ms), and another
// tenant's one-row read waited behind each. Now:
// - a request the byte budget measured as large before it ran (useResponseBudget: its blobs and
//   step pages hold LARGE_READ_BYTES or more) runs only with a large-read permit, one per key and
//   at most four in the process, fewer when together they would hold more memory than LARGE_READS_MEMORY_BYTES (FairPermits,
//   round-robin between keys), held until its answer is sent, so one key's large reads queue behind
//   each other and the server's memory for large answers is bounded whatever the concurrency;
// - an answer that carries large content (LARGE_READ_BYTES or more charged to the budget) is
//   serialised and sent in slices, with the event loop free between them. The JSON is the same
//   text a client parses; only its long strings are escaped a slice at a time;
// - while another key is active, a key's slices are paced by their bytes (PacedWork): the stream of
//   one key's large reads, one after another, kept both cores busy and another tenant's one-row
//   read ran ~4x slower beside it.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { setTimeout as pause } from 'node:timers/promises';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { PacedWork } from '../core/paced-work.ts';
import type { Context } from '../graphql/context.ts';
import type { ResponseBudget } from '../steps/read-budget.ts';
import { allowStreamedText, streamedTexts, type TextSource } from '../steps/streamed-text.ts';
import { FairPermits } from './fair-permits.ts';

/** Bytes of stored content from which a read is large: it takes a permit, and its answer is sent in slices. */
export const LARGE_READ_BYTES = 1024 * 1024;
/** Large reads at once per API key, and at most in the process (fewer when the memory budget holds fewer). */
const LARGE_READS_PER_KEY = 1;
const LARGE_READS_AT_MOST = 4;
/** What a blob streamed into an answer holds at a time: its ~1 MiB slice from pg (src/steps/blob-text.ts), the slice's string and UTF-8, the socket's buffer. */
const STREAMED_BLOB_HELD_BYTES = 4 * 1024 * 1024;
/** How long an answer being sent keeps its permit at most (a 7.9 MB answer leaves in ~0.1 s). */
const LARGE_READ_HOLD_MS = 10_000;
/** Characters of a long string escaped per turn of the event loop (~1 ms); bytes of a streamed text written per turn. */
const SLICE_CHARS = 256 * 1024;
/** What JSON.stringify escapes in a string: a quote, a backslash, a control character, a surrogate (a lone one is escaped; a pair is left to it). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
/** The pause before each slice: a large answer takes at most about half of the loop, however fast its client reads. */
const SLICE_PAUSE_MS = 1;
const pauseBeforeSlice = () => pause(SLICE_PAUSE_MS);
/** Answers yoga sends as events or parts, not as one JSON text: their content is not streamed. */
const STREAMED_ELSEWHERE = /text\/event-stream|multipart\/mixed/;

/**
 * The JSON text of `value` in UTF-8 pieces: the small parts at once, each string of SLICE_CHARS or
 * more escaped a slice per turn, and each marker of `streamed` replaced by the text its source
 * yields, read piece by piece as the answer is written (src/steps/streamed-text.ts), each piece
 * escaped and encoded as it arrives. A slice may
 * end inside a surrogate pair: JSON.stringify escapes each half (\ud83d, \ude00), and the two
 * escapes parse back to the one character.
 */
export async function* jsonSlices(
  value: unknown,
  beforeSlice: (chars: number) => Promise<void> = pauseBeforeSlice,
  streamed?: ReadonlyMap<string, TextSource>,
): AsyncGenerator<Buffer> {
  const marker = `\u0001sliced-${randomUUID()}-`;
  const long: Array<{ pieces: () => AsyncIterable<string> | Iterable<string>; streamed: boolean }> = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'string') return v;
    const source = streamed?.get(v);
    if (source) long.push({ pieces: source, streamed: true });
    else if (v.length >= SLICE_CHARS) long.push({ pieces: () => [v], streamed: false });
    else return v;
    return `${marker}${long.length - 1}`;
  });
  // JSON.stringify writes the marker's \u0001 as the six characters \u0001.
  const parts = text.split(new RegExp(`"${JSON.stringify(marker).slice(1, -1).replaceAll('\\', '\\\\')}(\\d+)"`));
  for (let i = 0; i < parts.length; i++) {
    if (i % 2 === 0) {
      yield Buffer.from(parts[i] as string);
      continue;
    }
    const string = long[Number(parts[i])] as (typeof long)[number];
    yield Buffer.from('"');
    for await (const piece of string.pieces()) {
      if (string.streamed) yield* pacedBytes(escapedUtf8(piece), beforeSlice);
      else yield* pacedSlices(piece, beforeSlice);
    }
    yield Buffer.from('"');
  }
}

/** A string's text inside a JSON string, in UTF-8. Most content needs no escape: encoded as it is, without a second copy. */
function escapedUtf8(text: string): Buffer {
  return Buffer.from(NEEDS_ESCAPE.test(text) ? JSON.stringify(text).slice(1, -1) : text);
}

/** A string the answer holds anyway (a value of the result), escaped and encoded a slice of SLICE_CHARS per turn. */
async function* pacedSlices(text: string, beforeSlice: (chars: number) => Promise<void>): AsyncGenerator<Buffer> {
  for (let at = 0; at < text.length; at += SLICE_CHARS) {
    const slice = text.length <= SLICE_CHARS ? text : text.slice(at, at + SLICE_CHARS);
    await beforeSlice(slice.length);
    yield escapedUtf8(slice);
  }
}

/**
 * A streamed text's piece, already escaped and encoded as it arrived, written SLICE_CHARS bytes per
 * turn. Encoded at once, the piece's string is garbage while still young, and a scavenge frees it:
 * held across the slices' turns (as pacedSlices holds its text), 64 concurrent blob reads' ~512 KiB
 * strings were promoted, and the heap grew by hundreds of MB of them between two full collections
 * (the RSS peak of bench:fairness blob64, issue 50). A Buffer's bytes are outside the heap, and V8
 * collects early when they grow.
 */
async function* pacedBytes(bytes: Buffer, beforeSlice: (bytes: number) => Promise<void>): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += SLICE_CHARS) {
    const slice = bytes.subarray(at, at + SLICE_CHARS);
    await beforeSlice(slice.length);
    yield slice;
  }
}

/** What a large read reads, measured from stored sizes before it runs (useResponseBudget). */
export interface LargeRead {
  /** Bytes of the blobs it names, and how many. */
  blobBytes: number;
  blobs: number;
  /** Bytes of the step pages' inline content it reads. */
  pageBytes: number;
}

/** Requests (their GraphQL context) the byte budget measured as large before they ran. */
const largeReads = new WeakMap<object, LargeRead>();

/** Marks the operation of `context` as a large read (useResponseBudget, before admission). */
export function markLargeRead(context: object, read: LargeRead): void {
  largeReads.set(context, read);
}

/**
 * The memory a large read holds while it runs and its answer is sent: ~3x the content it holds
 * whole (the UTF-16 string, then its JSON's UTF-8 pieces), and about a slice per blob whose text
 * is streamed into the answer.
 */
function largeReadHeldBytes(read: LargeRead, streamed: boolean): number {
  const blobs = streamed ? Math.min(3 * read.blobBytes, read.blobs * STREAMED_BLOB_HELD_BYTES) : 3 * read.blobBytes;
  return 3 * read.pageBytes + blobs;
}

/**
 * After admission: a large read waits for its permit, held until the answer is sent; a large answer
 * leaves in slices, paced by their bytes while other keys are active (Admission.pacedBytes, one schedule with downloads).
 */
export function useLargeAnswers(paced: PacedWork, memoryBytes: number): Plugin {
  const permits = new FairPermits(LARGE_READS_PER_KEY, memoryBytes);
  const keys = new WeakMap<Request, string>();
  const budgets = new WeakMap<Request, ResponseBudget>();
  const contexts = new WeakMap<Request, object>();
  return {
    onExecute({ args }) {
      const ctx = args.contextValue as unknown as Context & { request?: Request; res?: ServerResponse };
      if (ctx.request) budgets.set(ctx.request, ctx.budget);
      if (ctx.request) contexts.set(ctx.request, ctx);
      if (ctx.request && ctx.viewer) keys.set(ctx.request, ctx.viewer.keyId);
      const read = largeReads.get(ctx);
      // Not a large read (nearly every request): no permit, no promise.
      if (!read || !ctx.viewer) return undefined;
      // Over HTTP the answer is JSON in slices: its large blobs are read as it is written, not held whole.
      const streamed = Boolean(ctx.res && ctx.request && !STREAMED_ELSEWHERE.test(ctx.request.headers.get('accept') ?? ''));
      return permits.take(ctx.viewer.keyId, Math.max(largeReadHeldBytes(read, streamed), memoryBytes / LARGE_READS_AT_MOST)).then((release) => {
        if (!ctx.res || ctx.res.closed) return { onExecuteDone: release };
        if (streamed) allowStreamedText(ctx);
        // Over HTTP the permit is held until the answer has left (or the client went away), for at
        // most LARGE_READ_HOLD_MS: a client that reads its answer slowly does not keep the permit.
        const timer = setTimeout(release, LARGE_READ_HOLD_MS);
        timer.unref();
        ctx.res.once('close', () => {
          clearTimeout(timer);
          release();
        });
        return undefined;
      });
    },
    onResultProcess({ request, result, setResult }) {
      if (Array.isArray(result) || isAsyncIterable(result) || (budgets.get(request)?.used ?? 0) < LARGE_READ_BYTES) return;
      // processRegularResult hands the stringifier the result without internal error fields and
      // makes the Response of what it returns: a Readable is streamed with backpressure.
      const keyId = keys.get(request);
      const context = contexts.get(request);
      const streamed = context ? streamedTexts(context) : undefined;
      const stringify = (sanitized: unknown) =>
        Readable.from(jsonSlices(sanitized, (chars) => paced.turn(keyId, chars, pauseBeforeSlice), streamed)) as unknown as string;
      setResult({ ...result, stringify } as typeof result);
    },
  };
}
