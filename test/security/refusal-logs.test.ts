// A client's mistakes refused before execution (graphql-armor's limits, CSRF prevention) are logged
// once per request, below error level, with the request id (issue 29: they were logged at error
// level, twice). The server's own logger is read as JSON lines.
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

const lines: string[] = [];
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({}, { logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) });
});
afterAll(() => t?.stop());

/** The log lines written while `act` ran that mention `text`, parsed. */
async function logged(text: string, act: () => Promise<unknown>): Promise<Array<{ level: number; msg: string; requestId?: string }>> {
  lines.length = 0;
  await act();
  return lines.filter((l) => l.includes(text)).map((l) => JSON.parse(l));
}

it('logs an armor refusal once, at info, with its request id', async () => {
  const deep = `{ ${'episodes { edges { node { '.repeat(8)} id ${'} } }'.repeat(8)} }`;
  const found = await logged('Query depth limit', () => t.gql(deep, {}, t.keys.read));
  expect(found).toHaveLength(1);
  expect(found[0]?.level).toBeLessThan(50);
  expect(found[0]?.requestId).toMatch(/^[0-9a-f-]{36}$/);
});

it('logs a CSRF refusal once, at info', async () => {
  const found = await logged('CSRF', () =>
    fetch(`${t.url}?query=${encodeURIComponent('{ viewer { id } }')}`, { headers: { authorization: `Bearer ${t.keys.read}` } }),
  );
  expect(found).toHaveLength(1);
  expect(found[0]?.level).toBeLessThan(50);
});
