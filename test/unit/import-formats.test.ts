// The importer's formats are declared once (src/import/formats.ts); everything that names them is
// derived from that table or checked here: a format missing from the CLI's help, docs/IMPORT.md's list,
// the parsers or file detection fails this file.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCommand } from '../../src/cli/import.ts';
import { findFiles } from '../../src/import/files.ts';
import { FORMATS, formatOfName, formatSpec } from '../../src/import/formats.ts';
import { PARSERS } from '../../src/import/parsers.ts';

const IMPORT_DOC = readFileSync(resolve(import.meta.dirname, '../../docs/IMPORT.md'), 'utf8');

/** docs/IMPORT.md ("Importing agent runs"), up to its first second-level heading. */
function importSection(): string {
  const start = IMPORT_DOC.indexOf('# Importing agent runs');
  expect(start).toBeGreaterThanOrEqual(0);
  const end = IMPORT_DOC.indexOf('\n## ', start + 1);
  return IMPORT_DOC.slice(start, end < 0 ? undefined : end);
}

describe('the importer formats table', () => {
  it('declares at least the three formats the importer reads', () => {
    expect([...FORMATS].sort()).toEqual(expect.arrayContaining(['jsonl', 'mini-swe-agent', 'swe-agent']));
  });

  it.each(FORMATS)('%s is listed in docs/IMPORT.md with its file name and --format value', (format) => {
    const { suffix, label } = formatSpec(format);
    expect(importSection()).toContain(`- \`*${suffix}\`: ${label}`);
    expect(importSection()).toContain(`(\`--format ${format}\`)`);
  });

  it.each(FORMATS)('%s is named in the CLI help and summary', (format) => {
    const { suffix, label } = formatSpec(format);
    expect(importCommand.help).toContain(`*${suffix}`);
    expect(importCommand.help).toContain(`${label} (--format ${format})`);
    expect(importCommand.summary).toContain(format);
  });

  it.each(FORMATS)('%s has a parser and is detected from its file name', (format) => {
    expect(typeof PARSERS[format]).toBe('function');
    expect(formatOfName(`runs/x__y-1${formatSpec(format).suffix}`)).toBe(format);
  });

  it('prefers the longest suffix and skips other files', () => {
    expect(formatOfName('a.traj.json')).toBe('mini-swe-agent');
    expect(formatOfName('a.traj')).toBe('swe-agent');
    expect(formatOfName('results.csv')).toBeNull();
    expect(formatOfName('a.json')).toBeNull();
  });

  it('names every format when a given file implies none', async () => {
    const file = resolve(import.meta.dirname, 'import-formats.test.ts');
    const error = await findFiles([file], null).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    for (const format of FORMATS) expect(String((error as Error).message)).toContain(`${formatSpec(format).suffix} (${format})`);
  });
});
