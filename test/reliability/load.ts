// Write load for the fault scenarios: many concurrent logStep/logSteps calls over several
// episodes, every step with a unique side-effect key, and a record of what the API acknowledged.
// A call is ACKNOWLEDGED when it got a full successful answer; then each of its steps is stored
// under the step number the answer named (accepted, or duplicate of an earlier commit). A call
// without an answer (reset, refused connection, timeout) is IN DOUBT: it may or may not have
// committed, and a retry with the same keys settles it without a duplicate.
import type { EpisodicClient, StepInput } from '../../src/client/index.ts';
import { EpisodicError, unwrap } from '../../src/client/index.ts';
import { must } from '../../src/core/must.ts';
import { sleep } from './harness.ts';

export const LOG_STEPS = `mutation LogSteps($episodeId: ID!, $steps: [StepInput!]!) {
  result: logSteps(episodeId: $episodeId, steps: $steps) { __typename ... on Error { message } ... on LogStepsPayload { results { index status stepNumber reason } } } }`;
export const LOG_STEP = `mutation LogStep($episodeId: ID!, $step: StepInput!) {
  result: logStep(episodeId: $episodeId, step: $step) { __typename ... on Error { message } ... on LogStepPayload { result { index status stepNumber reason } } } }`;

interface ItemAnswer {
  index: number;
  status: 'ACCEPTED' | 'DUPLICATE' | 'REJECTED';
  stepNumber: number | null;
  reason: string | null;
}

type Answer = { __typename: string; message?: string; results?: ItemAnswer[]; result?: ItemAnswer };

export type CallOutcome = 'acked' | 'refused' | 'no-answer';

export interface CallRecord {
  episodeId: string;
  steps: StepInput[];
  /** logStep (one step) or logSteps. */
  single: boolean;
  sentAt: number;
  endedAt: number;
  outcome: CallOutcome;
  /** refused: extensions.code, HTTP status or the result's __typename; no-answer: the transport message. */
  code?: string;
  message?: string;
}

export interface StoredAt {
  episodeId: string;
  stepNumber: number;
}

export interface StepLoadOptions {
  client: EpisodicClient;
  episodeIds: string[];
  concurrency: number;
  /** Steps per logSteps call are 2..maxBatch; about a third of the calls are logStep (one step). */
  maxBatch: number;
  /** Prefix of every side-effect key (unique per run). */
  keyPrefix: string;
  /** Steps reserved per episode at most (an episode holds 1,000). */
  perEpisode?: number;
  /** Pause of each worker between calls (0: as fast as answers come). */
  paceMs?: number;
  /** Pause after a call that was not acknowledged, so an outage does not become a busy loop. */
  backoffMs?: number;
  /** Bytes of filler in each step's parameters. */
  payloadBytes?: number;
  /** Starts another episode when every one is full, for long runs; without it a worker stops there. */
  moreEpisodes?: () => Promise<string>;
}

/** A deterministic generator, so a run's mix can be reproduced from its seed. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

export async function startEpisodes(client: EpisodicClient, n: number, task = 'reliability'): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const started = unwrap(await client.startEpisode({ taskDescription: `${task} ${i}`, taskType: 'reliability' }));
    ids.push(started.episode.id);
  }
  return ids;
}

export class StepLoad {
  readonly calls: CallRecord[] = [];
  /** Calls sent again by retry(), kept apart from the load's own. */
  readonly retries: CallRecord[] = [];
  /** Side-effect key -> where the API said it is stored. */
  readonly acked = new Map<string, StoredAt>();
  /** Items the server answered REJECTED (by reason). */
  readonly rejectedItems = new Map<string, number>();
  inFlight = 0;
  private issuing = false;
  private readonly workers: Promise<void>[] = [];
  private readonly reserved: Map<string, number>;
  private readonly episodeIds: string[];
  private adding: Promise<void> | null = null;
  private nextCall = 0;
  private readonly random: () => number;
  private readonly filler: string;
  private readonly listeners: Array<(record: CallRecord) => void> = [];

  constructor(
    private readonly o: StepLoadOptions,
    seed = Date.now(),
  ) {
    this.episodeIds = [...o.episodeIds];
    this.reserved = new Map(o.episodeIds.map((id) => [id, 0]));
    this.random = rng(seed);
    this.filler = 'x'.repeat(o.payloadBytes ?? 64);
  }

  start(): this {
    this.issuing = true;
    for (let w = 0; w < this.o.concurrency; w++) this.workers.push(this.worker());
    return this;
  }

  /** No new calls from now on; calls already sent still get their answer (see settled). */
  stopIssuing(): void {
    this.issuing = false;
  }

  /** Every call sent has ended (answered or failed). */
  async settled(): Promise<void> {
    await Promise.all(this.workers);
  }

  async stop(): Promise<void> {
    this.stopIssuing();
    await this.settled();
  }

  onCall(listener: (record: CallRecord) => void): void {
    this.listeners.push(listener);
  }

  get ackedSteps(): number {
    return this.acked.size;
  }

  count(outcome: CallOutcome): number {
    return this.calls.filter((c) => c.outcome === outcome).length;
  }

  /** Refusals by code (OVERLOADED, DATABASE_UNAVAILABLE, ...). */
  refusals(): Record<string, number> {
    const by: Record<string, number> = {};
    for (const c of this.calls) if (c.outcome === 'refused') by[c.code ?? '?'] = (by[c.code ?? '?'] ?? 0) + 1;
    return by;
  }

  inDoubt(): CallRecord[] {
    return this.calls.filter((c) => c.outcome === 'no-answer');
  }

  /** Sends one call again with the same steps (and keys), e.g. to a restarted server: settles an in-doubt call. */
  async retry(call: CallRecord, client = this.o.client): Promise<CallRecord> {
    return this.send(call.episodeId, call.steps, call.single, client, this.retries);
  }

  private pickEpisode(size: number): string | null {
    const cap = this.o.perEpisode ?? 900;
    const open = this.episodeIds.filter((id) => must(this.reserved.get(id)) + size <= cap);
    if (!open.length) return null;
    const id = must(open[Math.floor(this.random() * open.length)]);
    this.reserved.set(id, must(this.reserved.get(id)) + size);
    return id;
  }

  /** One start at a time, shared by every worker that found the episodes full; a failed start is retried after a pause. */
  private addEpisode(start: () => Promise<string>): Promise<void> {
    this.adding ??= start()
      .then((id) => {
        this.episodeIds.push(id);
        this.reserved.set(id, 0);
      })
      .catch(() => sleep(this.o.backoffMs ?? 50))
      .finally(() => (this.adding = null));
    return this.adding;
  }

  private steps(n: number): StepInput[] {
    const call = this.nextCall++;
    return Array.from({ length: n }, (_, i) => ({
      kind: 'tool_call',
      tool: 'shell',
      action: `call ${call} step ${i}`,
      parameters: { call, i, filler: this.filler },
      result: { kind: 'SUCCESS', output: 'ok' },
      tokens: 1,
      sideEffectKey: `${this.o.keyPrefix}-${call}-${i}`,
    })) as StepInput[];
  }

  private async worker(): Promise<void> {
    while (this.issuing) {
      const single = this.random() < 1 / 3;
      const size = single ? 1 : 2 + Math.floor(this.random() * (this.o.maxBatch - 1));
      const episodeId = this.pickEpisode(size);
      if (!episodeId && this.o.moreEpisodes) {
        await this.addEpisode(this.o.moreEpisodes);
        continue;
      }
      if (!episodeId) return;
      const record = await this.send(episodeId, this.steps(size), single);
      const pause = record.outcome === 'acked' ? (this.o.paceMs ?? 0) : (this.o.backoffMs ?? 50);
      if (pause) await sleep(pause);
    }
  }

  private async send(episodeId: string, steps: StepInput[], single: boolean, client = this.o.client, log = this.calls): Promise<CallRecord> {
    const record: CallRecord = { episodeId, steps, single, sentAt: Date.now(), endedAt: 0, outcome: 'no-answer' };
    log.push(record);
    this.inFlight += 1;
    try {
      const answer = single
        ? await client.request<Answer>(LOG_STEP, { episodeId, step: steps[0] })
        : await client.request<Answer>(LOG_STEPS, { episodeId, steps });
      const items = single ? (answer.result ? [answer.result] : null) : (answer.results ?? null);
      if (!items) {
        record.outcome = 'refused';
        record.code = answer.__typename;
        record.message = answer.message;
      } else {
        record.outcome = 'acked';
        for (const item of items) {
          const key = must(must(steps[item.index]).sideEffectKey);
          if (item.status === 'REJECTED' || item.stepNumber === null) {
            this.rejectedItems.set(item.reason ?? '?', (this.rejectedItems.get(item.reason ?? '?') ?? 0) + 1);
          } else {
            this.acked.set(key, { episodeId, stepNumber: item.stepNumber });
          }
        }
      }
    } catch (err) {
      const e = err as EpisodicError;
      if (e instanceof EpisodicError && e.kind !== 'transport') {
        record.outcome = 'refused';
        record.code = e.code ?? (e.status ? `HTTP ${e.status}` : e.kind);
      } else {
        record.outcome = 'no-answer';
      }
      record.message = e.message;
    } finally {
      record.endedAt = Date.now();
      this.inFlight -= 1;
    }
    for (const listener of this.listeners) listener(record);
    return record;
  }
}
