// The stdio line guard (src/mcp/stdio-lines.ts) on its own: lines within the limit pass whole and one
// at a time, however stdin cut them; a longer line is never passed on and its request is answered
// with the typed refusal (a tools/call as the tool's error, another request as a JSON-RPC error).
import { PassThrough, Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { guardLines, oversizedAnswer } from '../../src/mcp/stdio-lines.ts';

async function through(chunks: string[], limit: number): Promise<{ passed: string[]; answered: string }> {
  let answered = '';
  const out = new Writable({
    write(chunk, _encoding, done) {
      answered += String(chunk);
      done();
    },
  });
  const input = new PassThrough();
  const guard = input.pipe(guardLines(out, limit));
  const passed: string[] = [];
  guard.on('data', (line: Buffer) => passed.push(line.toString('utf8')));
  const ended = new Promise((resolve) => guard.on('end', resolve));
  for (const chunk of chunks) input.write(chunk);
  input.end();
  await ended;
  return { passed, answered };
}

it('passes lines within the limit whole, one at a time, across chunk boundaries', async () => {
  const { passed, answered } = await through(['{"a":1}\n{"b"', ':2}\n', '{"c":3}\n'], 20);
  expect(passed).toEqual(['{"a":1}\n', '{"b":2}\n', '{"c":3}\n']);
  expect(answered).toBe('');
});

it('answers an oversized tools/call with the tool error naming the limit, and passes the next line', async () => {
  const big = `{"method":"tools/call","params":{"name":"log_steps","arguments":{"x":"${'x'.repeat(200)}","id":9}},"jsonrpc":"2.0","id":7}`;
  const { passed, answered } = await through([big.slice(0, 50), big.slice(50), '\n{"ok":1}\n'], 100);
  expect(passed).toEqual(['{"ok":1}\n']);
  const answer = JSON.parse(answered);
  expect(answer).toMatchObject({ jsonrpc: '2.0', id: 7, result: { isError: true } });
  expect(answer.result.content[0].text).toBe(
    `InputLimitError: arguments: the message is ${big.length} bytes; the limit is 100 bytes (one line of episodic mcp's stdin). Nothing was written.`,
  );
});

it('answers another request with a JSON-RPC error, finds an id written first, and answers no notification', () => {
  const error = JSON.parse(oversizedAnswer('{"jsonrpc":"2.0","id":"a-1","method":"ping","params":{"x":"', 'xxx"}}', 500, 100) ?? '');
  expect(error).toMatchObject({ id: 'a-1', error: { code: -32600, data: { field: 'message', limit: '100 bytes' } } });
  expect(oversizedAnswer('{"jsonrpc":"2.0","method":"notifications/x","params":{"id":3,"y":"', 'yy"}}', 500, 100)).toBeNull();
});
