// The hand-written migrations must produce exactly what schema.prisma declares: tables, columns,
// types, nullability, primary keys, unique constraints and indexes. The only exceptions are the
// raw-SQL objects Prisma cannot express, listed in prisma/raw-sql.json: each must exist exactly
// as listed, and nothing else may be missing from schema.prisma.
import { readFile } from 'node:fs/promises';
import prismaInternals from '@prisma/internals';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { createMigratedDatabase, type MigratedDatabase } from '../support/db.ts';

const { getDMMF } = prismaInternals;
type Dmmf = Awaited<ReturnType<typeof getDMMF>>['datamodel'];
type Model = Dmmf['models'][number];
type Field = Model['fields'][number];

interface RawSql {
  columns: Array<{ table: string; column: string; type: string }>;
  indexes: Array<{ table: string; name: string; columns: string[]; method: string }>;
}

let database: MigratedDatabase;
let dmmf: Dmmf;
let raw: RawSql;

beforeAll(async () => {
  database = await createMigratedDatabase();
  dmmf = (await getDMMF({ datamodel: await readFile('prisma/schema.prisma', 'utf8') })).datamodel;
  raw = JSON.parse(await readFile('prisma/raw-sql.json', 'utf8'));
});

const isRawColumn = (table: string, column: string) => raw.columns.some((c) => c.table === table && c.column === column);
const isRawIndex = (table: string, name: string) => raw.indexes.some((i) => i.table === table && i.name === name);
afterAll(() => database.drop());

const tableOf = (m: Model) => m.dbName ?? m.name;
const columnOf = (f: Field) => f.dbName ?? f.name;

/** The PostgreSQL type Prisma's migrate would create for a scalar field. */
function expectedType(f: Field): string {
  const native = f.nativeType?.[0];
  const base =
    native === 'Uuid'
      ? 'uuid'
      : native === 'Timestamptz'
        ? 'timestamptz'
        : must(
            (
              {
                String: 'text',
                Int: 'int4',
                BigInt: 'int8',
                Float: 'float8',
                Boolean: 'bool',
                DateTime: 'timestamp',
                Json: 'jsonb',
                Decimal: 'numeric',
              } as Record<string, string>
            )[f.type],
          );
  return f.isList ? `_${base}` : base;
}

function expectedIndexes(): string[] {
  return dmmf.indexes
    .map((ix) => {
      const model = must(dmmf.models.find((m) => m.name === ix.model));
      const cols = ix.fields.map((f) => columnOf(must(model.fields.find((x) => x.name === f.name))));
      const table = tableOf(model);
      const name = ix.dbName ?? (ix.type === 'id' ? `${table}_pkey` : `${table}_${cols.join('_')}_${ix.type === 'unique' ? 'key' : 'idx'}`);
      const method = ((ix as { algorithm?: string }).algorithm ?? 'BTree').toLowerCase();
      return `${table}:${name}:${ix.type === 'normal' ? 'index' : 'unique'}:${cols.join(',')}:${method}`;
    })
    .sort();
}

describe('migrated database matches schema.prisma', () => {
  it('has exactly the declared tables', async () => {
    const { rows } = await database.db.pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    );
    expect(rows.map((r) => r.table_name).sort()).toEqual(dmmf.models.map(tableOf).sort());
  });

  it('has exactly the declared columns, types and nullability', async () => {
    const { rows } = await database.db.pool.query<{
      table_name: string;
      column_name: string;
      udt_name: string;
      is_nullable: string;
      datetime_precision: number | null;
    }>(
      `SELECT table_name, column_name, udt_name, is_nullable, datetime_precision FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    );
    const actual = rows
      .filter((r) => !isRawColumn(r.table_name, r.column_name))
      .map(
        (r) =>
          `${r.table_name}.${r.column_name}:${r.udt_name}:${r.is_nullable === 'YES' ? 'null' : 'not null'}${r.datetime_precision !== null && r.udt_name.startsWith('timestamp') ? `(${r.datetime_precision})` : ''}`,
      )
      .sort();
    const expected = dmmf.models
      .flatMap((m) =>
        m.fields
          .filter((f) => f.kind === 'scalar' || f.kind === 'enum')
          .map((f) => {
            const nullable = !f.isRequired || f.isList;
            const precision = f.type === 'DateTime' ? `(${f.nativeType?.[1]?.[0] ?? 3})` : '';
            return `${tableOf(m)}.${columnOf(f)}:${expectedType(f)}:${nullable ? 'null' : 'not null'}${precision}`;
          }),
      )
      .sort();
    expect(actual).toEqual(expected);
  });

  it('has exactly the declared primary keys, unique constraints and indexes', async () => {
    const { rows } = await database.db.pool.query<{ table_name: string; index_name: string; is_unique: boolean; columns: string[]; method: string }>(
      `SELECT t.relname AS table_name, i.relname AS index_name, ix.indisunique AS is_unique,
              array_agg(a.attname::text ORDER BY k.ord) AS columns, am.amname AS method
         FROM pg_index ix
         JOIN pg_class t ON t.oid = ix.indrelid
         JOIN pg_class i ON i.oid = ix.indexrelid
         JOIN pg_am am ON am.oid = i.relam
         JOIN pg_namespace n ON n.oid = t.relnamespace
         CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE n.nspname = 'public' AND t.relname <> '_prisma_migrations'
        GROUP BY t.relname, i.relname, ix.indisunique, am.amname`,
    );
    const actual = rows
      .filter((r) => !isRawIndex(r.table_name, r.index_name))
      .map((r) => `${r.table_name}:${r.index_name}:${r.is_unique ? 'unique' : 'index'}:${r.columns.join(',')}:${r.method}`)
      .sort();
    expect(actual).toEqual(expectedIndexes());
  });

  it('has each raw-SQL object of prisma/raw-sql.json, exactly as listed', async () => {
    expect(raw.columns.length + raw.indexes.length).toBeGreaterThan(0);
    for (const c of raw.columns) {
      const { rows } = await database.db.pool.query(
        `SELECT udt_name, is_generated FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 AND column_name = $2`,
        [c.table, c.column],
      );
      expect(rows, `${c.table}.${c.column}`).toEqual([{ udt_name: c.type, is_generated: 'ALWAYS' }]);
    }
    for (const ix of raw.indexes) {
      const { rows } = await database.db.pool.query(
        `SELECT t.relname AS table_name, am.amname AS method, array_agg(a.attname::text ORDER BY k.ord) AS columns
           FROM pg_index x
           JOIN pg_class i ON i.oid = x.indexrelid
           JOIN pg_class t ON t.oid = x.indrelid
           JOIN pg_am am ON am.oid = i.relam
           CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
           JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
          WHERE i.relname = $1
          GROUP BY t.relname, am.amname`,
        [ix.name],
      );
      expect(rows, ix.name).toEqual([{ table_name: ix.table, method: ix.method, columns: ix.columns }]);
    }
  });
});
