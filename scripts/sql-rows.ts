// Writes src/db/rows.ts: one row type per table of prisma/schema.prisma, as raw SQL through pg reads
// it (column names, int8 and numeric as strings, jsonb as unknown, a list as possibly null: Prisma's
// migrations make list columns nullable, test/platform/schema-drift.test.ts holds that). Committed;
// test/unit/sql-idiom.test.ts fails when it is stale (`npm run sql-rows` rewrites it).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The TypeScript type pg gives a column of each Prisma scalar type (with its default parsers). */
const PG_TYPES: Readonly<Record<string, string>> = {
  String: 'string',
  Int: 'number',
  Float: 'number',
  BigInt: 'string',
  Decimal: 'string',
  Boolean: 'boolean',
  DateTime: 'Date',
  Json: 'unknown',
  Bytes: 'Buffer',
};

interface Column {
  name: string;
  type: string;
  doc: string | null;
}

/** A table's name in PascalCase plus Row: episodes -> EpisodesRow, ledger_heads -> LedgerHeadsRow. */
const rowTypeName = (table: string) => `${table.replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase())}Row`;

function columnsOf(body: string[]): Column[] {
  const columns: Column[] = [];
  let doc: string | null = null;
  for (const raw of body) {
    const line = raw.trim();
    if (line.startsWith('///')) {
      doc = line.slice(3).trim();
      continue;
    }
    const field = /^(\w+)\s+(\w+)(\[\])?(\?)?(.*)$/.exec(line);
    const scalar = field && PG_TYPES[field[2] ?? ''];
    if (field && scalar) {
      const mapped = /@map\("([^"]+)"\)/.exec(field[5] ?? '')?.[1];
      const type = `${scalar}${field[3] ? '[]' : ''}${field[3] || field[4] ? ' | null' : ''}`;
      columns.push({ name: mapped ?? field[1] ?? '', type, doc });
    }
    doc = null;
  }
  return columns;
}

/** The source of src/db/rows.ts for a Prisma schema's text. */
export function rowTypesSource(schema: string): string {
  const out = [
    '// One row type per table, as raw SQL reads it through pg: generated from prisma/schema.prisma by',
    '// `npm run sql-rows` (scripts/sql-rows.ts); do not edit. A query names the columns it reads:',
    "// `queryRows<Pick<EpisodesRow, 'id' | 'outcome'>>(...)` (src/db/sql.ts).",
  ];
  for (const model of schema.matchAll(/^model \w+ \{\n([\s\S]*?)^\}/gm)) {
    const body = (model[1] ?? '').split('\n');
    const table = /@@map\("([^"]+)"\)/.exec(model[1] ?? '')?.[1];
    if (!table) continue;
    out.push('', `/** The \`${table}\` table. */`, `export type ${rowTypeName(table)} = {`);
    for (const c of columnsOf(body)) {
      if (c.doc) out.push(`  /** ${c.doc} */`);
      out.push(`  ${c.name}: ${c.type};`);
    }
    out.push('};');
  }
  return `${out.join('\n')}\n`;
}

export const SCHEMA_PATH = fileURLToPath(new URL('../prisma/schema.prisma', import.meta.url));
export const ROWS_PATH = fileURLToPath(new URL('../src/db/rows.ts', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(ROWS_PATH, rowTypesSource(readFileSync(SCHEMA_PATH, 'utf8')));
  console.log('wrote src/db/rows.ts');
}
