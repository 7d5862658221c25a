// Date.prototype.toISOString's text for a time of a four-digit year, written as bytes: the chain
// check formats every event's created_at (verify-chain.ts), and a Date and its string per event
// cost more than the rest of the event's members. Consecutive events mostly share a day, so the
// date part is kept from the last call.

const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the times whose ISO text has a four-digit year. */
export const EARLIEST_ISO_MS = -62_167_219_200_000;
export const LATEST_ISO_MS = 253_402_300_799_999;

let lastDay = Number.NaN;
const date = new Uint8Array(10); // YYYY-MM-DD of lastDay

/** Writes `n` as `width` decimal digits at out[at..]. */
function digits(out: Uint8Array, at: number, n: number, width: number): void {
  for (let i = width - 1; i >= 0; i--, n = Math.floor(n / 10)) out[at + i] = 48 + (n % 10);
}

/** The proleptic Gregorian date of a day count from 1970-01-01 (H. Hinnant's civil_from_days). */
function setDate(day: number): void {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  digits(date, 0, yoe + era * 400 + (month <= 2 ? 1 : 0), 4);
  date[4] = 45;
  digits(date, 5, month, 2);
  date[7] = 45;
  digits(date, 8, doy - Math.floor((153 * mp + 2) / 5) + 1, 2);
  lastDay = day;
}

/**
 * Writes new Date(ms).toISOString() (24 bytes) at out[at..] for ms within
 * [EARLIEST_ISO_MS, LATEST_ISO_MS] (the caller checks); a fraction of a millisecond is dropped as
 * a Date drops it.
 */
export function isoTimeInto(ms: number, out: Uint8Array, at: number): void {
  const t = Math.trunc(ms);
  const day = Math.floor(t / DAY_MS);
  if (day !== lastDay) setDate(day);
  out.set(date, at);
  let rest = t - day * DAY_MS;
  out[at + 10] = 84; // T
  digits(out, at + 11, Math.floor(rest / 3_600_000), 2);
  rest %= 3_600_000;
  out[at + 13] = 58; // :
  digits(out, at + 14, Math.floor(rest / 60_000), 2);
  rest %= 60_000;
  out[at + 16] = 58;
  digits(out, at + 17, Math.floor(rest / 1000), 2);
  out[at + 19] = 46; // .
  digits(out, at + 20, rest % 1000, 3);
  out[at + 23] = 90; // Z
}
