// Retrievals paced by their count at every door (issue 50): while another key is active, one key's
// relevantEpisodes start no faster than PACED_RETRIEVALS_PER_SECOND, whether they are aliases of one
// GraphQL request or calls of an MCP batch (the charge is in the use case both doors call); a key
// alone is not paced. The assertions read the schedule each turn was given (src/core/paced-work.ts
// publishes it), not the wall time, so load cannot change them. Real server, real PostgreSQL.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { pacedTurns } from '../../src/core/paced-work.ts';
import { type TenantKeys, type TestApp, useApp } from '../support/app.ts';

let t: TestApp;
/** PACED_RETRIEVALS_PER_SECOND of this server: a retrieval every 50 ms while another key is active. */
const RATE = 20;
/** Retrievals in the request or batch under test. */
const N = 6;
useApp((app) => (t = app), { PACED_RETRIEVALS_PER_SECOND: String(RATE) });

interface Turn {
  keyId: string;
  units: number;
  paced: boolean;
  startsAt: number;
}

let turns: Turn[] = [];
const record = (message: unknown) => void turns.push(message as Turn);
beforeEach(() => {
  turns = [];
  pacedTurns.subscribe(record);
});
afterEach(() => void pacedTurns.unsubscribe(record));

const aliased = `{ ${Array.from({ length: N }, (_, i) => `r${i}: relevantEpisodes(task: { description: "paced retrieval ${i}" }) { ... on RelevantEpisodes { episodes { failed } } }`).join(' ')} }`;

/** Another tenant's key asking `{ viewer { id } }` every 100 ms while `work` runs: it stays active (it retrieves nothing). */
let bystander: Promise<TenantKeys> | undefined;
async function besideAnotherKey<T>(work: () => Promise<T>): Promise<T> {
  bystander ??= t.addTenant('retrieval-bystander');
  const other = await bystander;
  await t.gql('{ viewer { id } }', {}, other.read);
  let running = true;
  const loop = (async () => {
    while (running) {
      await t.gql('{ viewer { id } }', {}, other.read);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    return await work();
  } finally {
    running = false;
    await loop;
  }
}

/** The turns the retrievals were given: one per retrieval, all of one key. */
function turnsOfOneKey(): Turn[] {
  expect(turns).toHaveLength(N);
  expect(new Set(turns.map((turn) => turn.keyId)).size).toBe(1);
  return turns;
}

/** Every retrieval took a paced turn, each starting at least 1/RATE s after the one before: the last (N-1)/RATE s after the first. */
function expectPacedOneByOne(paced: Turn[]): void {
  expect(paced.every((turn) => turn.paced)).toBe(true);
  const starts = paced.map((turn) => turn.startsAt).sort((a, b) => a - b);
  const gaps = starts.slice(1).map((start, i) => start - (starts[i] ?? start));
  for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(1000 / RATE - 0.001);
  expect(gaps.reduce((sum, gap) => sum + gap, 0)).toBeGreaterThanOrEqual(((N - 1) / RATE) * 1000 - 0.001);
}

it('answers a key alone its aliased retrievals unpaced', async () => {
  const answer = await t.gql(aliased, {}, t.keys.read);
  expect(answer.errors).toBeUndefined();
  expect(Object.keys(answer.data ?? {})).toHaveLength(N);
  expect(turnsOfOneKey().some((turn) => turn.paced)).toBe(false);
});

it('paces the aliased retrievals of one request beside another key, each a turn, every answer given', async () => {
  const answer = await besideAnotherKey(() => t.gql(aliased, {}, t.keys.read));
  expect(answer.errors).toBeUndefined();
  expect(Object.keys(answer.data ?? {})).toHaveLength(N);
  expectPacedOneByOne(turnsOfOneKey());
});

it('paces the relevant_episodes calls of an MCP batch on the same schedule, one turn each', async () => {
  const keys = await t.addTenant('mcp-paced');
  const call = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'relevant_episodes', arguments: { task: `paced call ${id}` } },
  });
  const res = await besideAnotherKey(() =>
    fetch(t.url.replace(/\/graphql$/, '/mcp'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-03-26',
        authorization: `Bearer ${keys.read}`,
      },
      body: JSON.stringify(Array.from({ length: N }, (_, i) => call(i))),
    }),
  );
  expect(res.status).toBe(200);
  const answers = (await res.json()) as Array<{ result?: { isError?: boolean } }>;
  expect(answers).toHaveLength(N);
  for (const answer of answers) expect(answer.result?.isError).toBeFalsy();
  expectPacedOneByOne(turnsOfOneKey());
});
