// Strings of any code points, lone surrogates included, as fast-check's `unit: 'binary'` makes them.
// That unit, on its first use in a process, maps each of its 1.1 million code points back to an
// index (to shrink the "dangerous strings" it mixes in): 2.4 s of CPU in every test worker that used
// it, 7-10 s of a whole run. A mapped integer has no such table; the default `fc.string()` beside it
// in the tests still brings those dangerous strings (`__proto__`, `constructor`, ...).
import fc from 'fast-check';

/** One code point from U+0000 to U+10FFFF, lone surrogates (U+D800-U+DFFF) among them. */
export const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp));

/** `fc.string({ unit: 'binary', ...constraints })` without the 2.4 s table. */
export function binaryString(constraints: Omit<fc.StringConstraints, 'unit'> = {}): fc.Arbitrary<string> {
  return fc.string({ ...constraints, unit: anyCodePoint });
}
