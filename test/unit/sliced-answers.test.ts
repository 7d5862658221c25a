// A large answer is sent in slices (src/http/sliced-answers.ts): the pieces, joined, are the same
// JSON a client parses, whatever the strings hold and wherever a slice ends.
import { expect, it } from 'vitest';
import { jsonSlices } from '../../src/http/sliced-answers.ts';

async function joined(value: unknown): Promise<{ text: string; pieces: number }> {
  const pieces: Buffer[] = [];
  for await (const piece of jsonSlices(value)) pieces.push(piece);
  return { text: Buffer.concat(pieces).toString('utf8'), pieces: pieces.length };
}

it('slices long strings and leaves the rest whole: the joined pieces parse to the same value', async () => {
  // A surrogate pair cut by the 256 Ki-character slice, quotes, backslashes and control characters.
  const emoji = `a${'😀'.repeat(200_000)}`;
  const escapes = `"\\\n\u0001é€${'x'.repeat(300_000)}"`;
  const value = {
    data: { blob: { hash: 'h', content: emoji }, other: { content: escapes, short: 'ok "q"' }, list: [1, null, true] },
    errors: [{ message: 'm' }],
  };
  const { text, pieces } = await joined(value);
  expect(JSON.parse(text)).toEqual(value);
  expect(pieces).toBeGreaterThan(4);
  // Only strings of a slice or more are cut: a small answer is one piece, the text JSON.stringify writes.
  const small = { data: { viewer: { id: 'v' } } };
  expect(await joined(small)).toEqual({ text: JSON.stringify(small), pieces: 1 });
});

it('writes an ASCII answer byte for byte as JSON.stringify does', async () => {
  const value = { data: { a: 'b'.repeat(600_000), b: 'c'.repeat(262_144) } };
  expect((await joined(value)).text).toBe(JSON.stringify(value));
});
