// One typed SQL idiom (src/db/sql.ts, src/db/rows.ts): the row types are those of the Prisma schema,
// no raw query in src/ reads rows without naming their type, and none numbers its placeholders by
// hand (Params places each value where it is used). Pure: reads files, no database.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROWS_PATH, rowTypesSource, SCHEMA_PATH } from '../../scripts/sql-rows.ts';
import { sourceFiles } from '../support/source-files.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** The index just past the parenthesis that closes the one opened at `open`. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    if (text[i] === '(') depth += 1;
    else if (text[i] === ')' && --depth === 0) return i + 1;
  }
  return text.length;
}

/**
 * The calls `x.query(...)` without a row type whose rows the code reads: destructured `rows`, a
 * result named and read as `name.rows`, or `(await x.query(...)).rows`. A statement, a rowCount or
 * a result handed on untouched (pg-boss's executeSql) reads no row.
 */
function untypedReads(text: string): number[] {
  const lines: number[] = [];
  for (const call of text.matchAll(/\.query\(/g)) {
    const at = call.index;
    const before = text.slice(text.lastIndexOf('\n', at) + 1, at);
    const after = text.slice(closing(text, at + '.query'.length), closing(text, at + '.query'.length) + 8);
    const named = /(?:const|let)\s+(\w+)\s*=\s*(?:await\s+)?[\w.]+$/.exec(before)?.[1];
    const reads =
      /(?:const|let)\s+\{[^}]*\brows\b[^}]*\}\s*=\s*await\s+[\w.]+$/.test(before) ||
      (named !== undefined && new RegExp(`\\b${named}\\.rows\\b`).test(text)) ||
      (/\(await\s+[\w.]+$/.test(before) && after.startsWith(').rows'));
    if (reads) lines.push(text.slice(0, at).split('\n').length);
  }
  return lines;
}

/** The calls `x.query(...)` that number a placeholder ($1, $2, ...) by hand. */
function countedPlaceholders(text: string): number[] {
  const lines: number[] = [];
  for (const call of text.matchAll(/\.query(?:<[^(]*?>)?\(/g)) {
    const open = call.index + call[0].length - 1;
    if (/\$\d/.test(text.slice(open, closing(text, open)))) lines.push(text.slice(0, call.index).split('\n').length);
  }
  return lines;
}

const files = sourceFiles(join(ROOT, 'src')).map((f) => relative(ROOT, f));
const textOf = (f: string) => readFileSync(join(ROOT, f), 'utf8');

describe('one typed SQL idiom', () => {
  it('src/db/rows.ts is the row types of prisma/schema.prisma (npm run sql-rows)', () => {
    expect(readFileSync(ROWS_PATH, 'utf8')).toBe(rowTypesSource(readFileSync(SCHEMA_PATH, 'utf8')));
  });

  it('no raw query in src/ reads rows without naming their type', () => {
    expect(files.flatMap((f) => untypedReads(textOf(f)).map((line) => `${f}:${line}`))).toEqual([]);
  });

  it('no raw query in src/ numbers a placeholder by hand', () => {
    expect(files.flatMap((f) => countedPlaceholders(textOf(f)).map((line) => `${f}:${line}`))).toEqual([]);
  });

  it('would catch an untyped read, and lets a typed one, a statement and a rowCount pass', () => {
    expect(untypedReads("const { rows } = await pool.query('SELECT 1 AS n');")).toEqual([1]);
    expect(untypedReads("const r = await pool.query('SELECT 1 AS n');\nreturn r.rows[0];")).toEqual([1]);
    expect(untypedReads("const n = (await pool.query('SELECT (1) AS n')).rows.length;")).toEqual([1]);
    expect(untypedReads("const { rows } = await pool.query<{ n: number }>('SELECT 1 AS n');")).toEqual([]);
    expect(untypedReads("await client.query('UPDATE t SET a = 1');")).toEqual([]);
    expect(untypedReads("const { rowCount } = await client.query('DELETE FROM t');")).toEqual([]);
    expect(untypedReads("const ok = (await pool.query('SELECT 1')).rowCount;")).toEqual([]);
  });

  it('would catch a placeholder numbered by hand, and lets placed ones pass', () => {
    expect(countedPlaceholders("await c.query('UPDATE t SET a = $2 WHERE id = $1', [id, a]);")).toEqual([1]);
    expect(countedPlaceholders("\nawait c.query<{ n: number }>('SELECT $1::int AS n', [a]);")).toEqual([2]);
    const placed = ['await c.query(`UPDATE t SET a = $', '{p.add(a)} WHERE id = $', '{p.add(id)}`, p.values);'].join('');
    expect(countedPlaceholders(placed)).toEqual([]);
  });
});
