// The one idiom for raw SQL: each value is placed where the statement uses it (`${p.add(value)}`),
// never by counting positional placeholders, and the caller names the type of the rows it reads
// (`client.query<SomeRow>(...)`).
import type pg from 'pg';

/** A statement's values, each added where it is used; `add` answers its placeholder ($1, $2, ...). */
export class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** `INSERT INTO table (columns) VALUES (...)` from one record of column name to value, in one order. */
export function insertInto(p: Params, table: string, row: Readonly<Record<string, unknown>>): string {
  const columns = Object.keys(row);
  const placeholders = columns.map((column) => p.add(row[column]));
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders.join(', ')})`;
}

/** The rows of a statement built with Params, typed by the caller. */
export async function queryRows<Row extends pg.QueryResultRow>(client: pg.ClientBase | pg.Pool, sql: string, p: Params): Promise<Row[]> {
  return (await client.query<Row>(sql, p.values)).rows;
}
