// Every instrumentation library docs/OTLP.md lists as an entry of the mapping table has a fixture
// here that runs it (a file whose library reports that entry's name).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const docs = readFileSync(join(ROOT, 'docs/OTLP.md'), 'utf8');
const section = docs.slice(docs.indexOf('## Instrumentation libraries'), docs.indexOf('## Runs without an agent root span'));
const entries = [...section.matchAll(/^\| ([^|]+?) \| `/gm)].map((m) => (m[1] ?? '').trim());
const fixtures = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith('.test.ts') && f !== 'entries.test.ts')
  .map((f) => readFileSync(join(import.meta.dirname, f), 'utf8'));

describe('the mapping table of instrumentation libraries', () => {
  it('lists the four libraries', () => {
    expect(entries).toEqual(['GenAI semantic conventions', 'OpenInference', 'OpenLLMetry', 'Vercel AI SDK']);
  });
  it.each(entries)('%s has a fixture that runs it', (entry) => {
    expect(fixtures.some((source) => source.includes(`entry: '${entry}'`))).toBe(true);
  });
});
