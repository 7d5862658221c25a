// The episodes of one retrieval answer, read with one query instead of one per scored episode.
// graphql-js resolves the items of a list one after another in the same tick, all with the same
// selection, so the ids asked for before the next microtask are read together (through the
// request's tenant-scoped client, like the single read they replace). Concurrent answers of one
// tenant that read the same rows share the read (sharedRun: one that starts after each asked).
import { sharedRun } from './shared-rankings.ts';

type FindMany<Row> = (args: { where: { id: { in: string[] } } }) => Promise<Row[]>;

interface Batch<Row> {
  ids: string[];
  rows: Promise<Map<string, Row>>;
}

/** Per request (the key) and selection: the batch still gathering ids. */
const gathering = new WeakMap<object, Map<string, Batch<unknown>>>();

/**
 * The row of `id`, read with the other ids asked for with the same `query` in this tick.
 * Throws as findUniqueOrThrow does when the row is gone (deleted since it was ranked).
 */
export async function loadInBatch<Row>(request: object, query: object, id: string, findMany: FindMany<Row>): Promise<Row> {
  const shape = JSON.stringify(query);
  let byShape = gathering.get(request);
  if (!byShape) gathering.set(request, (byShape = new Map()));
  let batch = byShape.get(shape) as Batch<Row> | undefined;
  if (!batch) {
    const ids: string[] = [];
    const started = byShape;
    const rows = Promise.resolve().then(async () => {
      started.delete(shape);
      const found = await findMany({ ...query, where: { id: { in: ids } } });
      return new Map(found.map((row) => [(row as { id: string }).id, row]));
    });
    batch = { ids, rows };
    byShape.set(shape, batch as Batch<unknown>);
  }
  batch.ids.push(id);
  const row = (await batch.rows).get(id);
  if (!row) throw new Error(`episode ${id} not found`);
  return row;
}

/** `findMany` shared by the concurrent reads of the same rows of one tenant (of one database: `scope`). */
export function sharedRows<Row>(scope: object, tenantId: string, findMany: FindMany<Row>): FindMany<Row> {
  return (args) => sharedRun(scope, JSON.stringify(['rows', tenantId, args]), () => findMany(args));
}
