// Numbers in hashed JSON are IEEE 754 doubles (docs/LEDGER.md §2.1): past 2^53 - 1 a double no
// longer holds every integer, so 12345678901234567890 would be stored and hashed as
// 12345678901234567000. Such numbers are refused at the API instead of silently rounded.

const MAX_EXACT = Number.MAX_SAFE_INTEGER;

/** The JSON path of the first number whose magnitude exceeds 2^53 - 1 (or is not finite), if any. */
export function firstInexactNumber(value: unknown, path = '$'): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && Math.abs(value) <= MAX_EXACT ? undefined : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstInexactNumber(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, member] of Object.entries(value)) {
      const found = firstInexactNumber(member, `${path}.${key}`);
      if (found) return found;
    }
  }
  return undefined;
}

export function inexactNumberMessage(path: string): string {
  return `JSON number at ${path} is beyond ±(2^53 - 1) = ±${MAX_EXACT} and cannot be stored exactly: send it as a string (docs/LEDGER.md §2.1)`;
}
