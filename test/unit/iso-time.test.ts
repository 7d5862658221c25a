// isoTimeInto (src/ledger/iso-time.ts), which the chain check uses to write each event's
// created_at: the bytes of Date.prototype.toISOString for every time of a four-digit year,
// fractions of a millisecond dropped as a Date drops them, the cached day never leaking into the
// next call.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EARLIEST_ISO_MS, isoTimeInto, LATEST_ISO_MS } from '../../src/ledger/iso-time.ts';

const latin1 = new TextDecoder('latin1');

function written(ms: number): string {
  const out = new Uint8Array(30);
  isoTimeInto(ms, out, 3);
  return latin1.decode(out.subarray(3, 27));
}

describe('isoTimeInto', () => {
  it('writes what toISOString writes, at the bounds, around the epoch and on leap days', () => {
    const times = [EARLIEST_ISO_MS, LATEST_ISO_MS, 0, -1, -0.5, 0.999, Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(1900, 1, 28), -62_162_035_200_000];
    for (const ms of times) expect(written(ms), String(ms)).toBe(new Date(ms).toISOString());
  });

  it('writes what toISOString writes for any time of a four-digit year, in any order', () => {
    const time = fc.oneof(fc.integer({ min: EARLIEST_ISO_MS, max: LATEST_ISO_MS }), fc.double({ min: EARLIEST_ISO_MS, max: LATEST_ISO_MS, noNaN: true }));
    fc.assert(
      fc.property(fc.array(time, { minLength: 1, maxLength: 20 }), (list) => {
        for (const ms of list) expect(written(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 300 },
    );
  });
});
