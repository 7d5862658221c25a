// unnestAs for the hot multi-row writes (a group commit's steps, the ledger's events), with the
// arrays encoded here instead of by node-postgres. Its encoder runs two regular expressions over
// every element and, for a jsonb column, over a JSON text full of quotes that it escapes once
// more; for a 100-step batch that was most of the Node CPU of building the insert
// (docs/BENCHMARKS.md, issue 55, branch h/ingest55). The statement's meaning does not change:
// the same rows reach the same columns.
import type { Params } from './sql.ts';

/**
 * A jsonb column given as the values themselves (not their JSON texts): sent as one JSON array,
 * its elements unnested in order. null and undefined are SQL NULL, as `JSON.stringify` of each
 * value was (a value that is JSON null is stored as SQL NULL too).
 */
export interface JsonValuesColumn {
  json: readonly unknown[];
  /** 'json': a null value is stored as jsonb null instead (a NOT NULL column, as JSON.stringify(null) was). */
  nulls?: 'sql' | 'json';
}

/** A column: one value per row and its SQL type (`uuid`, `int`, `text`, ...), or jsonb values. */
export type LiteralColumn = readonly [values: readonly unknown[], type: string] | JsonValuesColumn;

/**
 * A PostgreSQL array literal of text-like or numeric values: every string element quoted, with `"`
 * and `\` escaped (so no element can split into two or end the array), numbers and booleans as
 * their decimal text, null and undefined as NULL. Values of other kinds (Date, Buffer, objects,
 * nested arrays) answer null: leave those to node-postgres.
 */
export function arrayLiteral(values: readonly unknown[]): string | null {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i) out += ',';
    const v = values[i];
    if (v === null || v === undefined) out += 'NULL';
    else if (typeof v === 'string') out += v.includes('"') || v.includes('\\') ? `"${v.replace(/["\\]/g, '\\$&')}"` : `"${v}"`;
    // Decimal digits, '.', 'e', signs, NaN, Infinity, true, false: nothing an array literal reads specially.
    else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') out += String(v);
    else return null;
  }
  return `${out}}`;
}

/** The jsonb array of a JsonValuesColumn, in row order. */
function jsonValues(p: Params, { json: values, nulls = 'sql' }: JsonValuesColumn): string {
  const doc = p.add(JSON.stringify(values.map((v) => (v === undefined ? null : v))));
  const value = nulls === 'sql' ? `nullif(e.v, 'null'::jsonb)` : 'e.v';
  return `ARRAY(SELECT ${value} FROM jsonb_array_elements(${doc}::jsonb) WITH ORDINALITY AS e(v, i) ORDER BY e.i)`;
}

/** `unnest(...) AS alias(column, ...)` as unnestAs writes it, each array encoded here (above). */
export function unnestLiteral(p: Params, alias: string, columns: Readonly<Record<string, LiteralColumn>>): string {
  const arrays = Object.values(columns).map((column) => {
    if ('json' in column) return jsonValues(p, column);
    const [values, type] = column;
    return `${p.add(arrayLiteral(values) ?? values)}::${type}[]`;
  });
  return `unnest(${arrays.join(', ')}) AS ${alias}(${Object.keys(columns).join(', ')})`;
}
