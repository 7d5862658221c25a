const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a row, so callers answer "not found" without a query. */
export function isUuid(id: unknown): id is string {
  return typeof id === 'string' && UUID.test(id);
}
