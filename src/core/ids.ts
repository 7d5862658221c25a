const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a row, so callers answer "not found" without a query. */
export function isUuid(id: unknown): id is string {
  return typeof id === 'string' && UUID.test(id);
}

/** Whether two UUIDs name the same row: PostgreSQL reads a UUID in any letter case, so must we. */
export function sameId(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** A UUID as PostgreSQL prints it (lower case), so that payloads and comparisons see one spelling; anything else as given. */
export function canonicalId(id: string | number): string {
  const text = String(id);
  return isUuid(text) ? text.toLowerCase() : text;
}
