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

it('writes a streamed text where its marker stands, read piece by piece as the answer is written, escaped as JSON.stringify does', async () => {
  // The last two pieces cut a surrogate pair: each piece is escaped as it arrives, each half as JSON.stringify escapes it.
  const pieces = [`"\\\n${'😀'.repeat(140_000)}`, 'x'.repeat(300_000), 'é€ end \ud83d', '\ude00'];
  const read: string[] = [];
  async function* source(): AsyncGenerator<string> {
    for (const piece of pieces) {
      read.push(piece);
      yield piece;
    }
  }
  const marker = '\u0001streamed-test';
  const value = { data: { blob: { hash: 'h', content: marker, sizeBytes: 3 }, note: marker.slice(1) } };
  const out: Buffer[] = [];
  let before = 0;
  for await (const piece of jsonSlices(value, async () => void (before = read.length), new Map([[marker, source]]))) out.push(piece);
  // Each slice is paced after its piece was fetched, and only the marker itself was replaced.
  expect(before).toBe(pieces.length);
  expect(JSON.parse(Buffer.concat(out).toString('utf8'))).toEqual({ data: { ...value.data, blob: { ...value.data.blob, content: pieces.join('') } } });
});
