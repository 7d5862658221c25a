// An invariant the type system cannot see (an index known in range, a map entry set just before):
// the value comes back typed as present, and a broken invariant fails loudly here instead of as an
// undefined read further on. Used in place of TypeScript's non-null assertion `!`.
export function must<T>(value: T | null | undefined, what = 'value'): T {
  if (value === null || value === undefined) throw new Error(`invariant: ${what} is missing`);
  return value;
}
