// A route that fails outside GraphQL costs its request, not the server: Node ends the process on an
// unhandled rejection, so before requestListener caught them one such failure took every client
// down (this test then fails on the rejection vitest reports).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { requestListener } from '../../src/http/listener.ts';

const lines: Array<Record<string, unknown>> = [];
const log = pino(
  { level: 'error' },
  new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  }),
);

let server: Server;
let base: string;

beforeAll(async () => {
  const route = async (req: { url?: string }, res: { writeHead(status: number): unknown; write(text: string): unknown; end(text: string): unknown }) => {
    if (req.url === '/before-headers') throw new Error('failed before answering');
    if (req.url === '/after-headers') {
      res.writeHead(200);
      res.write('partial');
      await new Promise((r) => setTimeout(r, 10));
      throw new Error('failed mid-answer');
    }
    res.end('ok');
  };
  server = createServer(requestListener(route as never, new Set(), () => false, log));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A request left unanswered (the regression: the failure escaped) fails in seconds, not at the test timeout. */
const answerWithin = () => AbortSignal.timeout(10_000);

it('answers 500 with the request id when a route fails before answering, and logs the error with it', async () => {
  const res = await fetch(`${base}/before-headers`, { headers: { 'x-request-id': 'req-before-1' }, signal: answerWithin() });
  expect(res.status).toBe(500);
  expect(res.headers.get('x-request-id')).toBe('req-before-1');
  expect(await res.json()).toEqual({ error: 'internal error', requestId: 'req-before-1' });
  expect(lines.find((l) => l.requestId === 'req-before-1')).toMatchObject({ err: { message: 'failed before answering' } });
});

it('closes the connection when a route fails mid-answer, and the server goes on answering', async () => {
  await expect(fetch(`${base}/after-headers`, { headers: { 'x-request-id': 'req-after-1' }, signal: answerWithin() }).then((r) => r.text())).rejects.toThrow();
  expect(lines.find((l) => l.requestId === 'req-after-1')).toMatchObject({ err: { message: 'failed mid-answer' } });
  const ok = await fetch(`${base}/fine`, { signal: answerWithin() });
  expect(await ok.text()).toBe('ok');
});
