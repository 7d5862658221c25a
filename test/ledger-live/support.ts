// Helpers for the live-ledger tests: writes through the GraphQL API, subscription collectors for
// graphql-ws and SSE, and the ledger as stored.
import type { Client } from 'graphql-ws';
import { expect } from 'vitest';
import { must } from '../../src/core/must.ts';
import type { StoredLedgerEvent } from '../../src/ledger/format/hash.ts';
import { readEvents } from '../../src/ledger/store/read.ts';
import type { TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

const START = `mutation($input: StartEpisodeInput!) {
  startEpisode(input: $input) { __typename ... on Error { message } ... on StartEpisodePayload { episode { id } } }
}`;
const LOG_STEPS = `mutation($id: ID!, $steps: [StepInput!]!) {
  logSteps(episodeId: $id, steps: $steps) { __typename ... on Error { message } ... on LogStepsPayload { accepted } }
}`;

export const LEDGER_EVENTS = `subscription($afterSeq: BigInt, $filter: LedgerEventFilter) {
  ledgerEvents(afterSeq: $afterSeq, filter: $filter) { seq type episodeId hash prevHash tenantId }
}`;

export async function startEpisode(t: TestApp, token = t.keys.write, task = 'watch the ledger'): Promise<string> {
  const res = await t.gql(START, { input: { taskDescription: task, taskType: 'test' } }, token);
  expect(res.data?.startEpisode?.__typename, JSON.stringify(res)).toBe('StartEpisodePayload');
  return res.data.startEpisode.episode.id;
}

/** One logSteps call: one steps.logged event covering `count` steps. */
export async function logSteps(t: TestApp, episodeId: string, count = 1, token = t.keys.write): Promise<void> {
  const steps = Array.from({ length: count }, (_, i) => ({ tool: 'shell', action: `step ${i}` }));
  const res = await t.gql(LOG_STEPS, { id: episodeId, steps }, token);
  expect(res.data?.logSteps?.accepted, JSON.stringify(res)).toBe(count);
}

/** The tenant's whole ledger as stored, in seq order. */
export async function storedLedger(t: TestApp, tenantId = t.keys.tenantId): Promise<StoredLedgerEvent[]> {
  return readEvents(t.services.db.pool, tenantId, { afterSeq: 0, limit: 1_000_000 });
}

export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface Watch<T = Json> {
  /** Every `next` payload, in arrival order. */
  results: Array<{ data?: Json; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> }>;
  /** The field's values of the results that carried one. */
  values: T[];
  error: unknown;
  done: boolean;
  stop(): void;
}

/** Subscribes over graphql-ws and records what arrives. */
export function watch<T = Json>(client: Client, query: string, variables: Record<string, unknown> = {}): Watch<T> {
  const w: Watch<T> = {
    results: [],
    values: [],
    error: undefined,
    done: false,
    stop: () => undefined,
  };
  w.stop = client.subscribe(
    { query, variables },
    {
      next: (result) => {
        w.results.push(result as Watch['results'][number]);
        const value = result.data && Object.values(result.data)[0];
        if (value) w.values.push(value as T);
      },
      error: (error) => {
        w.error = error;
        w.done = true;
      },
      complete: () => {
        w.done = true;
      },
    },
  );
  return w;
}

export const seqsOf = (events: Array<{ seq: string | number }>) => events.map((e) => Number(e.seq));

/** 1..n */
export const range = (n: number, from = 1) => Array.from({ length: n - from + 1 }, (_, i) => from + i);

/** Reads `event: next` payloads from a graphql-sse (distinct connections) response. */
export async function* sseEvents(res: Response): AsyncGenerator<{ event: string; data: Json }> {
  const decoder = new TextDecoder();
  const reader = must(res.body).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: ?(.*)$/m.exec(block)?.[1] ?? 'message';
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.replace(/^data: ?/, ''))
        .join('\n');
      yield { event, data: data ? JSON.parse(data) : null };
    }
  }
}
