// The two jobs of a verification that run off the main thread (verify-workers.ts) or inline:
// a page's chain checked from its event rows, with what the events say besides (verify-chain.ts,
// event-facts.ts), and a batch of step rows checked (step-check.ts). Pure, so that the worker
// thread (verify-worker.ts) and the inline path run the same code; the byte arrays travel by
// transfer, not copy.
import type { FieldRows } from './copy-rows.ts';
import { type EventFacts, eventFacts } from './event-facts.ts';
import type { StepBatch, StepVerdict } from './step-check.ts';
import { chainOfPage, type PageChain } from './verify-chain.ts';

export interface ChainJob {
  kind: 'chain';
  rows: FieldRows;
  firstSeq: number;
  tenantId: string;
}

export interface StepsJob {
  kind: 'steps';
  batch: StepBatch;
}

export type Job = ChainJob | StepsJob;

/** A page's chain when its rows passed on their own, its facts either way, and its rows back. */
export interface ChainResult {
  rows: FieldRows;
  chain: PageChain | undefined;
  facts: EventFacts;
}

export function chainJob({ rows, firstSeq, tenantId }: ChainJob): ChainResult {
  const chain = chainOfPage(rows, firstSeq, tenantId);
  return { rows, chain, facts: chain?.facts ?? eventFacts(rows) };
}

/** A batch's verdict, and its row bytes back. */
export interface StepsResult {
  verdict: StepVerdict;
  bytes: Uint8Array;
}

/** The array buffers a job or its result moves to the other thread (shared ones are shared, not moved). */
export function transferOf(value: Job | ChainResult | StepsResult): ArrayBuffer[] {
  return buffersOf(value).filter((buffer): buffer is ArrayBuffer => buffer instanceof ArrayBuffer);
}

function buffersOf(value: Job | ChainResult | StepsResult): ArrayBufferLike[] {
  if ('batch' in value) return [value.batch.bytes.buffer, value.batch.hashes.buffer, value.batch.logged.buffer];
  if ('kind' in value) return [value.rows.bytes.buffer];
  if ('verdict' in value) return [value.bytes.buffer];
  const { facts } = value;
  const buffers = [
    value.rows.bytes.buffer,
    facts.events.buffer,
    facts.episodeOf.buffer,
    facts.ns.buffer,
    facts.hashes.buffer,
    facts.logged.buffer,
    facts.stepsLogged.buffer,
  ];
  if (value.chain) buffers.push(value.chain.index.hashes.buffer);
  return buffers;
}
