// isoTimeInto (src/ledger/format/iso-time.ts), which the chain check uses to write each event's
// created_at: exactly the bytes of Date.prototype.toISOString for every time of a four-digit year
// (EARLIEST_ISO_MS to LATEST_ISO_MS, both included), before and after 1970, on leap days and the
// days around them, fractions of a millisecond dropped as a Date drops them (towards zero), and
// the date it keeps from the last call never leaking into the next one; nothing written outside
// its 24 bytes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EARLIEST_ISO_MS, isoTimeInto, LATEST_ISO_MS } from '../../src/ledger/format/iso-time.ts';

const latin1 = new TextDecoder('latin1');

/** What isoTimeInto writes at offset 3 of a buffer of 0xee bytes; the bytes around it must stay. */
function written(ms: number): string {
  const out = new Uint8Array(30).fill(0xee);
  isoTimeInto(ms, out, 3);
  expect([...out.subarray(0, 3), ...out.subarray(27)]).toEqual(new Array(6).fill(0xee));
  return latin1.decode(out.subarray(3, 27));
}

const DAY_MS = 86_400_000;
/** Leap days (year 0, 1600 and 2000 are leap years; 1900 is not) and the bounds. */
const DAYS = ['0000-02-29', '0000-03-01', '1600-02-29', '1900-02-28', '1900-03-01', '1972-02-29', '2000-02-29', '2024-02-29', '9996-02-29'];

describe('isoTimeInto', () => {
  it('writes what toISOString writes at the bounds, around the epoch and around leap days', () => {
    const times = [EARLIEST_ISO_MS, EARLIEST_ISO_MS + 0.5, LATEST_ISO_MS, LATEST_ISO_MS - 0.25, 0, -0, -1, -0.5, -1.5, 0.999, 1.999, -DAY_MS, DAY_MS - 1];
    for (const day of DAYS) {
      const midnight = Date.parse(`${day}T00:00:00.000Z`);
      times.push(midnight, midnight - 1, midnight - 0.5, midnight + DAY_MS - 1, midnight + DAY_MS - 0.001);
    }
    for (const ms of times) expect(written(ms), String(ms)).toBe(new Date(ms).toISOString());
  });

  it('writes what toISOString writes for any time of a four-digit year, whole or fractional, in any order', () => {
    const time = fc.oneof(
      fc.integer({ min: EARLIEST_ISO_MS, max: LATEST_ISO_MS }),
      fc.double({ min: EARLIEST_ISO_MS, max: LATEST_ISO_MS, noNaN: true }),
      fc.double({ min: -DAY_MS, max: DAY_MS, noNaN: true }),
    );
    // Times far apart, and times a moment to two days apart (the same day, or the next or the last).
    const near = fc
      .tuple(time, fc.array(fc.integer({ min: -2 * DAY_MS, max: 2 * DAY_MS }), { maxLength: 6 }))
      .map(([base, steps]) => steps.map((step) => Math.min(LATEST_ISO_MS, Math.max(EARLIEST_ISO_MS, base + step))));
    fc.assert(
      fc.property(fc.oneof(fc.array(time, { minLength: 1, maxLength: 4 }), near), (list) => {
        for (const ms of list) expect(written(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 2000 },
    );
  });
});
