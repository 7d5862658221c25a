// logSteps over many calls: splits the steps into chunks of at most MAX_BATCH, sends them in
// order, and adds the answers up as if one call had taken them all (indexes are positions in the
// caller's array). It stops at the first chunk that stops the episode or is refused: the steps
// after it are counted as notSent, never silently dropped.

import { must } from '../core/must.ts';
import { isErrorResult } from './errors.ts';
import type { LogStepsPayload, LogStepsResult, StepInput } from './types.ts';

export const MAX_BATCH = 500;

export interface LogStepsOptions {
  /** Steps per call, 1..500; default 500. */
  batchSize?: number;
  /** After each call: steps sent so far and the total. */
  onProgress?: (sent: number, total: number, payload: LogStepsPayload) => void;
  /** Text past its inline limit: REFUSE (default), BLOB (kept whole) or TRUNCATE (head + tail, hash and size kept). */
  largeContent?: 'REFUSE' | 'BLOB' | 'TRUNCATE';
  /** REJECT_STEP: a step that breaks a limit is rejected alone (with its violations); REFUSE_CALL (default): the call is refused. */
  onInvalidStep?: 'REFUSE_CALL' | 'REJECT_STEP';
}

export interface BatchedLogSteps extends LogStepsPayload {
  batches: number;
  /** Steps never sent because an earlier chunk exhausted the budget or was refused. */
  notSent: number;
  /** The refusal that stopped a later chunk (the first chunk's refusal is returned as the result). */
  stoppedBy: Exclude<LogStepsResult, LogStepsPayload> | null;
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export async function logStepsBatched(
  send: (steps: StepInput[]) => Promise<LogStepsResult>,
  steps: readonly StepInput[],
  options: LogStepsOptions = {},
): Promise<BatchedLogSteps | Exclude<LogStepsResult, LogStepsPayload>> {
  const size = Math.max(1, Math.min(MAX_BATCH, Math.floor(options.batchSize ?? MAX_BATCH)));
  const chunks = chunk(steps, size);
  if (!chunks.length) chunks.push([]);
  let total = null as BatchedLogSteps | null;
  let offset = 0;
  for (const part of chunks) {
    const result = await send(part);
    if (isErrorResult(result)) {
      if (!total) return result as Exclude<LogStepsResult, LogStepsPayload>;
      total.stoppedBy = result as Exclude<LogStepsResult, LogStepsPayload>;
      break;
    }
    const payload = result as LogStepsPayload;
    const results = payload.results.map((r) => ({ ...r, index: r.index + offset }));
    if (!total) {
      total = { ...payload, results, batches: 1, notSent: 0, stoppedBy: null };
    } else {
      total.accepted += payload.accepted;
      total.duplicates += payload.duplicates;
      total.rejected += payload.rejected;
      total.budgetExhausted ??= payload.budgetExhausted;
      total.results.push(...results);
      total.episode = payload.episode;
      total.batches += 1;
    }
    offset += part.length;
    options.onProgress?.(offset, steps.length, payload);
    if (payload.budgetExhausted || payload.episode.status !== 'RUNNING') break;
  }
  must(total).notSent = steps.length - offset;
  return must(total);
}
