// The monitor's queries (web/src/query.ts) against a real HTTP server that sheds them as the
// service does (503 or 429, a Retry-After, one coded error): a shed query is asked again after its
// Retry-After, capped at 10 s, at most five times, and then the refusal is shown; any other error
// is shown at once. The first test sleeps for real (1 s twice); the others count the sleeps on a
// clock of their own.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { graphqlQuery } from '../../web/src/query.ts';

interface Answer {
  status: number;
  retryAfter?: string;
  body: unknown;
}

const shed = (code: string, retryAfter?: string, status = 503): Answer => ({
  status,
  retryAfter,
  body: { errors: [{ message: `shed: ${code}`, extensions: { code } }] },
});
const served: Answer = { status: 200, body: { data: { viewer: { id: 'k1' } } } };

let server: Server;
let url: string;
/** What the server answers next, in order (then `served`), and the requests it has seen. */
let script: Answer[] = [];
let requests: Array<{ authorization?: string; query: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      requests.push({ authorization: req.headers.authorization, query: (JSON.parse(text) as { query: string }).query });
      const answer = script.shift() ?? served;
      res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.retryAfter ? { 'retry-after': answer.retryAfter } : {}) });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/graphql`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  script = [];
  requests = [];
});

/** A clock of the test's own: each sleep is recorded and over at once. */
function countedSleeps() {
  const sleeps: number[] = [];
  return { sleeps, wait: async (ms: number) => void sleeps.push(ms) };
}

it('asks a shed query again after its Retry-After and returns the data', async () => {
  script = [shed('OVERLOADED', '1'), shed('RATE_LIMITED', '1', 429)];
  const query = graphqlQuery(url, 'Bearer epk_test');
  expect(await query('{ viewer { id } }')).toEqual({ viewer: { id: 'k1' } });
  expect(requests).toEqual(Array(3).fill({ authorization: 'Bearer epk_test', query: '{ viewer { id } }' }));
});

it('shows the refusal after five retries', async () => {
  script = Array.from({ length: 6 }, () => shed('DATABASE_UNAVAILABLE', '2'));
  const { sleeps, wait } = countedSleeps();
  await expect(graphqlQuery(url, 'Bearer k', wait)('{ viewer { id } }')).rejects.toThrow('shed: DATABASE_UNAVAILABLE');
  expect(requests).toHaveLength(6);
  expect(sleeps).toEqual([2000, 2000, 2000, 2000, 2000]);
  // Five refusals then an answer: the data.
  script = Array.from({ length: 5 }, () => shed('OVERLOADED', '1'));
  expect(await graphqlQuery(url, 'Bearer k', wait)('{ viewer { id } }')).toEqual({ viewer: { id: 'k1' } });
});

it('caps a Retry-After at 10 s, and backs off without one', async () => {
  script = [shed('OVERLOADED', '3600'), shed('OVERLOADED'), shed('OVERLOADED'), shed('OVERLOADED', 'soon')];
  const { sleeps, wait } = countedSleeps();
  expect(await graphqlQuery(url, 'Bearer k', wait)('{ viewer { id } }')).toEqual({ viewer: { id: 'k1' } });
  expect(sleeps).toEqual([10_000, 1000, 2000, 4000]);
});

it('shows any other error at once', async () => {
  script = [{ status: 200, body: { errors: [{ message: 'Unknown field', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] } }];
  const { sleeps, wait } = countedSleeps();
  await expect(graphqlQuery(url, 'Bearer k', wait)('{ nope }')).rejects.toThrow('Unknown field');
  expect([requests.length, sleeps]).toEqual([1, []]);
  script = [{ status: 500, body: {} }];
  await expect(graphqlQuery(url, 'Bearer k', wait)('{ viewer { id } }')).rejects.toThrow('HTTP 500');
});
