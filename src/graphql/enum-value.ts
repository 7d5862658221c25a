// The API's enums are the domain's values in UPPER_CASE. A stored value is mapped to its enum value
// with a check, not a cast: the database holds only domain values, so one the enum lacks is a bug
// to surface (masked to the client, logged), never a value to pass on.

export function enumValue<const V extends readonly string[]>(values: V, stored: string): V[number] {
  const upper = stored.toUpperCase();
  const value = values.find((v) => v === upper);
  if (value === undefined) throw new Error(`"${stored}" is not one of ${values.join(', ')}`);
  return value;
}
