// One tenant's row by id, read without the ORM: the read a GraphQL field that resolves one row by
// id makes (`viewer`, a payload's episode, Pothos' fallback for a relation). Prisma 7's client
// spends about 300 µs of CPU on such a query (request pipeline, query plan, interpreter, result
// mapping) where pg with a prepared statement spends about 50 µs (docs/BENCHMARKS.md, "The one-row
// read"), so the read is taken before the call reaches Prisma at all. Only two shapes are taken:
// `where: { id }` (findUnique) or `where: { id: { in: ids } }` (findMany: a retrieval answer's
// episodes) with scalar fields selected (or none: all scalars), on a model whose every
// selected column pg reads into what Prisma returns; anything else goes to Prisma. The tenant
// filter is in the statement, as tenant-scope.ts adds it to Prisma's.
import type pg from 'pg';
import { isUuid } from '../core/ids.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import { preparedStatementNames } from './statement-names.ts';

/** A field as this read needs it: its column and how pg's value becomes Prisma's. */
interface Column {
  field: string;
  /** The SELECT expression, aliased to the field's name. */
  select: string;
  convert?: (value: unknown) => unknown;
}

/** Prisma scalar types pg already returns as Prisma does (lists included); the others are converted or refused. */
const AS_IS = new Set(['String', 'Int', 'Float', 'Boolean', 'Json']);

/** Epoch milliseconds read the same from timestamp and timestamptz columns (Prisma's timestamp is UTC). */
const toDate = (value: unknown) => (value === null ? null : new Date(value as number));
const toBigInt = (value: unknown) => (value === null ? null : BigInt(value as string));
/** Prisma answers a NULL list column (its migrations allow NULL) as an empty list. */
const toList = (value: unknown) => value ?? [];

/** Model name to table and field names, as Prisma maps them (its runtime data model). */
export interface TableNames {
  models: Record<string, { dbName: string | null; fields: ReadonlyArray<{ name: string; dbName?: string | null }> }>;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function columnOf(field: { name: string; type: string; isList: boolean }, column: string): Column | undefined {
  const name = quote(field.name);
  if (AS_IS.has(field.type)) return { field: field.name, select: `${quote(column)} AS ${name}`, ...(field.isList ? { convert: toList } : {}) };
  if (field.isList) return undefined;
  if (field.type === 'DateTime') return { field: field.name, select: `(extract(epoch FROM ${quote(column)}) * 1000)::float8 AS ${name}`, convert: toDate };
  if (field.type === 'BigInt') return { field: field.name, select: `${quote(column)}::text AS ${name}`, convert: toBigInt };
  return undefined;
}

interface Table {
  name: string;
  /** The column that holds the row's tenant: `tenant_id`, or `id` for the tenants table itself. */
  tenantColumn: string;
  /** Scalar fields this read can return, by name; a field missing here sends the query to Prisma. */
  columns: Map<string, Column>;
  /** Every scalar field, in the model's order: what Prisma returns without a select. */
  scalars: string[];
}

/**
 * The models with an `id` field that belong to a tenant (a `tenantId` field), and Tenant itself (a
 * tenant reads its own row only), from Pothos' datamodel and Prisma's names.
 */
export function byIdTables(names: TableNames | undefined): Map<string, Table> {
  const tables = new Map<string, Table>();
  if (!names?.models) return tables; // a Prisma without its runtime data model: everything goes to Prisma
  for (const [model, { fields }] of Object.entries(getDatamodel().datamodel.models)) {
    const mapped = names.models[model];
    const scalars = fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum');
    const owned = scalars.some((f) => f.name === 'tenantId');
    if (!mapped || !scalars.some((f) => f.name === 'id') || !(owned || model === 'Tenant')) continue;
    const columnNames = new Map(mapped.fields.map((f) => [f.name, f.dbName ?? f.name]));
    const columns = new Map<string, Column>();
    for (const field of scalars) {
      const column = columnOf(field, columnNames.get(field.name) ?? field.name);
      if (column) columns.set(field.name, column);
    }
    const tenantColumn = owned ? (columnNames.get('tenantId') ?? 'tenantId') : 'id';
    tables.set(model, { name: mapped.dbName ?? model, tenantColumn, columns, scalars: scalars.map((f) => f.name) });
  }
  return tables;
}

/** The fields a `select` asks for when every one is a plain `true` on a scalar; undefined otherwise. */
function selectedFields(table: Table, args: Record<string, unknown>): string[] | undefined {
  const select = args.select;
  if (select === undefined) return table.scalars;
  if (typeof select !== 'object' || select === null) return undefined;
  const fields = Object.entries(select);
  if (fields.some(([field, wanted]) => wanted !== true || !table.scalars.includes(field))) return undefined;
  return fields.map(([field]) => field);
}

/** The id of `where: { id }`, or the ids of `where: { id: { in: [...] } }` (nothing else); else undefined. */
function idOf(args: Record<string, unknown>): string | string[] | undefined {
  const where = args.where as Record<string, unknown> | undefined;
  if (!where || Object.keys(where).length !== 1) return undefined;
  if (typeof where.id === 'string') return where.id;
  const id = where.id as Record<string, unknown> | null | undefined;
  if (typeof id !== 'object' || id === null || Object.keys(id).length !== 1 || !Array.isArray(id.in)) return undefined;
  return id.in.every((v) => typeof v === 'string') ? (id.in as string[]) : undefined;
}

interface ByIdStatement {
  sql: string;
  /** One id (a findUnique), or a list (a findMany by ids: the rows found, in no set order). */
  id: string | string[];
  columns: Column[];
}

/** The statement for a findUnique of this shape, or undefined when Prisma must answer it. */
export function byIdStatement(tables: Map<string, Table>, model: string, args: unknown): ByIdStatement | undefined {
  const table = tables.get(model);
  if (!table || typeof args !== 'object' || args === null) return undefined;
  const given = args as Record<string, unknown>;
  if (Object.keys(given).some((key) => key !== 'where' && key !== 'select')) return undefined;
  const id = idOf(given);
  const fields = selectedFields(table, given);
  if (id === undefined || !fields?.length) return undefined;
  // Prisma's findMany of tenants is not confined (tenant-scope.ts scopes tenant-owned models): only those are taken.
  if (Array.isArray(id) && table.tenantColumn === 'id') return undefined;
  const columns: Column[] = [];
  for (const field of fields) {
    const column = table.columns.get(field);
    if (!column) return undefined;
    columns.push(column);
  }
  const byId = typeof id === 'string' ? 'id = $1::uuid' : 'id = ANY($1::uuid[])';
  const sql = `SELECT ${columns.map((c) => c.select).join(', ')} FROM ${quote(table.name)} WHERE ${byId} AND ${quote(table.tenantColumn)} = $2::uuid`;
  return { sql, id, columns };
}

/** One name per statement text in this process; the texts are bounded by the models' shapes. */
const statementName = preparedStatementNames('episodic_by_id_');

/**
 * The rows (none when the tenant has none with that id), or undefined when an id is no UUID (Prisma
 * then answers, with its own error for a malformed id).
 */
async function readById(pool: pg.Pool, statement: ByIdStatement, tenantId: string): Promise<Record<string, unknown>[] | undefined> {
  if (!(typeof statement.id === 'string' ? isUuid(statement.id) : statement.id.every(isUuid))) return undefined;
  const name = statementName(statement.sql);
  const { rows } = await pool.query<Record<string, unknown>>({ name, text: statement.sql, values: [statement.id, tenantId] });
  for (const row of rows) for (const { field, convert } of statement.columns) if (convert) row[field] = convert(row[field]);
  return rows;
}

type Operation = 'findUnique' | 'findUniqueOrThrow' | 'findMany';
type Delegate = Record<Operation, (args: unknown) => Promise<unknown>>;

interface ByIdReads {
  pool: pg.Pool;
  tables: Map<string, Table>;
  tenantId: string;
}

/**
 * The delegate with findUnique, findUniqueOrThrow and findMany by ids read by id first; a miss of
 * OrThrow goes to Prisma for its error.
 */
function byIdDelegate(delegate: Delegate, model: string, reads: ByIdReads): Delegate {
  const read = async (operation: Operation, args: unknown) => {
    const statement = byIdStatement(reads.tables, model, args);
    const many = operation === 'findMany';
    // Each operation takes only its own shape: one id for the single reads, a list for findMany.
    const rows = statement && many === Array.isArray(statement.id) ? await readById(reads.pool, statement, reads.tenantId) : undefined;
    if (rows && many) return rows;
    const row = rows?.[0] ?? (rows ? null : undefined);
    if (row || (row === null && operation === 'findUnique')) return row;
    return delegate[operation](args);
  };
  const wrapped: Delegate = {
    findUnique: (args) => read('findUnique', args),
    findUniqueOrThrow: (args) => read('findUniqueOrThrow', args),
    findMany: (args) => read('findMany', args),
  };
  return new Proxy(delegate, {
    get: (target, property) =>
      property === 'findUnique' || property === 'findUniqueOrThrow' || property === 'findMany' ? wrapped[property] : Reflect.get(target, property),
  });
}

/** The client with the by-id read in front of the delegates of the tables' models (client.episode, ...). */
export function withByIdReads<Client extends object>(client: Client, reads: ByIdReads): Client {
  const delegates = new Map<string, Delegate>();
  return new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof property !== 'string') return value;
      const model = property.charAt(0).toUpperCase() + property.slice(1);
      if (!reads.tables.has(model)) return value;
      let delegate = delegates.get(property);
      if (!delegate) delegates.set(property, (delegate = byIdDelegate(value as Delegate, model, reads)));
      return delegate;
    },
  });
}
