// A stopping server still answers a request that arrives on a keep-alive connection it already
// has (a client may have sent it just before the signal), as that connection's last; it accepts
// no new connection.
import net from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { stopServices } from '../../src/services.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

let t: TestApp | undefined;
// The test stops the HTTP server itself; the rest of TestApp.stop() follows here.
afterAll(async () => {
  if (!t) return;
  await stopServices(t.services);
  await t.database.drop();
});

/** Reads one HTTP/1.1 response (a kept-alive one: with a Content-Length) from the socket. */
function readResponse(socket: net.Socket): Promise<{ head: string; body: string }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = text.slice(0, end);
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (Buffer.byteLength(text.slice(end + 4)) < length) return;
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve({ head, body: text.slice(end + 4, end + 4 + length) });
    };
    const onClose = () => reject(new Error(`the connection closed before a whole response; read: ${JSON.stringify(text)}`));
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}

const request = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n';

it('answers a request sent on an idle keep-alive connection after stop() began, with Connection: close, and refuses new connections', async () => {
  t = await startTestApp({ SHUTDOWN_DRAIN_MS: '3000' });
  const port = Number(new URL(t.url).port);
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(request);
  const first = await readResponse(socket);
  expect(first.head).toMatch(/^HTTP\/1\.1 200/);
  expect(first.head).toMatch(/connection: keep-alive/i);

  // The connection's last response: read it whole, up to the server closing the connection.
  let rest = '';
  socket.on('data', (chunk: Buffer) => {
    rest += chunk.toString('utf8');
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  // The connection is idle now; a server that cut idle connections at stop() would drop the next request.
  const stopped = t.app.stop();
  await new Promise((resolve) => setTimeout(resolve, 100));
  socket.write(request);
  await closed;
  const [head = '', body = ''] = rest.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 200/);
  expect(head).toMatch(/connection: close/i);
  expect(body).toContain('"status":"alive"');

  const refused = await new Promise<string>((resolve) => {
    const late = net.connect(port, '127.0.0.1');
    late.once('connect', () => {
      late.destroy();
      resolve('connected');
    });
    late.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
  expect(refused).toBe('ECONNREFUSED');
  await stopped;
});
