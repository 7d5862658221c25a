// The one idiom for raw SQL: each value is placed where the statement uses it (`${p.add(value)}`),
// never by counting positional placeholders (a row to insert is one record, `insertInto`; many rows
// are one array per column, `unnestAs`), and the caller names the type of the rows it reads
// (`queryRows<Pick<SomeRow, ...>>(...)`, the row types of rows.ts).
import type pg from 'pg';
import { preparedStatementNames } from './statement-names.ts';

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

/** A value and its SQL type (`uuid`, `text[]`, ...): what a statement needs when no column gives the type. */
export type TypedValue = readonly [value: unknown, type: string];

/**
 * `INSERT INTO table (columns) SELECT $1::type, ... WHERE when`: one row, written only where the
 * condition holds (a part of a larger statement, as the ledger's one-statement append).
 */
export function insertWhere(p: Params, table: string, row: Readonly<Record<string, TypedValue>>, when: string): string {
  const columns = Object.keys(row);
  const values = Object.values(row).map(([value, type]) => `${p.add(value)}::${type}`);
  return `INSERT INTO ${table} (${columns.join(', ')}) SELECT ${values.join(', ')} WHERE ${when}`;
}

/**
 * A column of a multi-row statement: one value per row and their SQL type (`uuid`, `jsonb`, ...),
 * or jsonb values given as the values themselves (JsonValuesColumn).
 */
export type UnnestColumn = readonly [values: readonly unknown[], type: string] | JsonValuesColumn;

/**
 * A jsonb column given as the values themselves (not their JSON texts): sent as one JSON array, its
 * elements unnested in order. A JSON text per row went through an array literal's escaping of every
 * quote in it, as costly as the ledger event's chaining for a group commit's events (issue 55).
 * null and undefined are SQL NULL (a value that is JSON null too), unless `nulls` is 'json': then a
 * null is stored as jsonb null (a NOT NULL column, as JSON.stringify(null) was).
 */
export interface JsonValuesColumn {
  json: readonly unknown[];
  nulls?: 'sql' | 'json';
}

/** The jsonb array of a JsonValuesColumn, in row order. */
function jsonValues(p: Params, { json: values, nulls = 'sql' }: JsonValuesColumn): string {
  const doc = p.add(JSON.stringify(values.map((v) => (v === undefined ? null : v))));
  const value = nulls === 'sql' ? `nullif(e.v, 'null'::jsonb)` : 'e.v';
  return `ARRAY(SELECT ${value} FROM jsonb_array_elements(${doc}::jsonb) WITH ORDINALITY AS e(v, i) ORDER BY e.i)`;
}

/**
 * `unnest($1::uuid[], $2::int[], ...) AS alias(column, ...)` from one record of column name to its
 * values: the rows of a multi-row insert or update, one array per column, in one order. With
 * `ordinality`, a last column of that name numbers the rows from 1.
 */
export function unnestAs(p: Params, alias: string, columns: Readonly<Record<string, UnnestColumn>>, options: { ordinality?: string } = {}): string {
  const arrays = Object.values(columns).map((column) => {
    if ('json' in column) return jsonValues(p, column);
    const [values, type] = column;
    return `${p.add(arrayLiteral(values, type))}::${type}[]`;
  });
  const names = [...Object.keys(columns), ...(options.ordinality ? [options.ordinality] : [])];
  return `unnest(${arrays.join(', ')})${options.ordinality ? ' WITH ORDINALITY' : ''} AS ${alias}(${names.join(', ')})`;
}

/**
 * A column's values as the PostgreSQL array literal pg would send for them, when they are all
 * strings, numbers, booleans, nulls or (for timestamptz, an instant either way) valid dates; otherwise (nested arrays, objects) the values
 * themselves, for pg to encode. pg escapes every element with two regular-expression passes and a
 * concatenation per element: the steps' outputs and a batch's 8,000 postings made it a tenth of an
 * import's server CPU (docs/BENCHMARKS.md, issue 55). Same literal, element for element: a string is
 * quoted with its backslashes and quotes escaped (only scanned for them once), the rest unquoted.
 */
export function arrayLiteral(values: readonly unknown[], type: string): unknown {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) parts[i] = 'NULL';
    else if (typeof v === 'string') parts[i] = NEEDS_ESCAPE.test(v) ? `"${v.replace(ESCAPED, '\\$&')}"` : `"${v}"`;
    else if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') parts[i] = String(v);
    else if (v instanceof Date && type === 'timestamptz' && !Number.isNaN(v.getTime())) parts[i] = `"${v.toISOString()}"`;
    else return values;
  }
  return `{${parts.join(',')}}`;
}

const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;

const namedStatement = preparedStatementNames('episodic_sql_');

/**
 * queryRows as a named prepared statement: parsed and planned once per connection, then only bound.
 * For the hot reads whose text has a few shapes (a retrieval's ranking: a query a client waits on).
 */
export async function queryPrepared<Row extends pg.QueryResultRow>(client: pg.ClientBase | pg.Pool, sql: string, p: Params): Promise<Row[]> {
  return (await client.query<Row>({ name: namedStatement(sql), text: sql, values: p.values })).rows;
}

/** The rows of a statement built with Params, typed by the caller. */
export async function queryRows<Row extends pg.QueryResultRow>(client: pg.ClientBase | pg.Pool, sql: string, p: Params): Promise<Row[]> {
  return (await client.query<Row>(sql, p.values)).rows;
}
