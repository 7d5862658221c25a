// The hand-written migrations must produce exactly what schema.prisma declares: tables, columns,
// types, nullability, primary keys, unique constraints and indexes.
import { readFile } from 'node:fs/promises';
import prismaInternals from '@prisma/internals';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigratedDatabase, type MigratedDatabase } from '../support/db.ts';

const { getDMMF } = prismaInternals;
type Dmmf = Awaited<ReturnType<typeof getDMMF>>['datamodel'];
type Model = Dmmf['models'][number];
type Field = Model['fields'][number];

let database: MigratedDatabase;
let dmmf: Dmmf;

beforeAll(async () => {
  database = await createMigratedDatabase();
  dmmf = (await getDMMF({ datamodel: await readFile('prisma/schema.prisma', 'utf8') })).datamodel;
});
afterAll(() => database.drop());

const tableOf = (m: Model) => m.dbName ?? m.name;
const columnOf = (f: Field) => f.dbName ?? f.name;

/** The PostgreSQL type Prisma's migrate would create for a scalar field. */
function expectedType(f: Field): string {
  const native = f.nativeType?.[0];
  const base =
    native === 'Uuid' ? 'uuid'
    : native === 'Timestamptz' ? 'timestamptz'
    : ({ String: 'text', Int: 'int4', BigInt: 'int8', Float: 'float8', Boolean: 'bool', DateTime: 'timestamp', Json: 'jsonb', Decimal: 'numeric' } as Record<string, string>)[f.type]!;
  return f.isList ? `_${base}` : base;
}

function expectedIndexes(): string[] {
  return dmmf.indexes.map((ix) => {
    const model = dmmf.models.find((m) => m.name === ix.model)!;
    const cols = ix.fields.map((f) => columnOf(model.fields.find((x) => x.name === f.name)!));
    const table = tableOf(model);
    const name = ix.dbName ?? (ix.type === 'id' ? `${table}_pkey` : `${table}_${cols.join('_')}_${ix.type === 'unique' ? 'key' : 'idx'}`);
    return `${table}:${name}:${ix.type === 'normal' ? 'index' : 'unique'}:${cols.join(',')}`;
  }).sort();
}

describe('migrated database matches schema.prisma', () => {
  it('has exactly the declared tables', async () => {
    const { rows } = await database.db.pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    );
    expect(rows.map((r) => r.table_name).sort()).toEqual(dmmf.models.map(tableOf).sort());
  });

  it('has exactly the declared columns, types and nullability', async () => {
    const { rows } = await database.db.pool.query<{ table_name: string; column_name: string; udt_name: string; is_nullable: string; datetime_precision: number | null }>(
      `SELECT table_name, column_name, udt_name, is_nullable, datetime_precision FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    );
    const actual = rows.map((r) => `${r.table_name}.${r.column_name}:${r.udt_name}:${r.is_nullable === 'YES' ? 'null' : 'not null'}${r.datetime_precision !== null && r.udt_name.startsWith('timestamp') ? `(${r.datetime_precision})` : ''}`).sort();
    const expected = dmmf.models.flatMap((m) =>
      m.fields
        .filter((f) => f.kind === 'scalar' || f.kind === 'enum')
        .map((f) => {
          const nullable = !f.isRequired || f.isList;
          const precision = f.type === 'DateTime' ? `(${f.nativeType?.[1]?.[0] ?? 3})` : '';
          return `${tableOf(m)}.${columnOf(f)}:${expectedType(f)}:${nullable ? 'null' : 'not null'}${precision}`;
        }),
    ).sort();
    expect(actual).toEqual(expected);
  });

  it('has exactly the declared primary keys, unique constraints and indexes', async () => {
    const { rows } = await database.db.pool.query<{ table_name: string; index_name: string; is_unique: boolean; columns: string[] }>(
      `SELECT t.relname AS table_name, i.relname AS index_name, ix.indisunique AS is_unique,
              array_agg(a.attname::text ORDER BY k.ord) AS columns
         FROM pg_index ix
         JOIN pg_class t ON t.oid = ix.indrelid
         JOIN pg_class i ON i.oid = ix.indexrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE n.nspname = 'public' AND t.relname <> '_prisma_migrations'
        GROUP BY t.relname, i.relname, ix.indisunique`,
    );
    const actual = rows.map((r) => `${r.table_name}:${r.index_name}:${r.is_unique ? 'unique' : 'index'}:${r.columns.join(',')}`).sort();
    expect(actual).toEqual(expectedIndexes());
  });
});
