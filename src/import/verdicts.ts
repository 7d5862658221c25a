// Harness verdict files: SWE-bench's results CSV (instance_id,resolved[,...]) or a JSON object
// {instance_id: boolean} / list of resolved ids. A verdict sets the outcome: resolved -> SUCCESS.
import { ImportFileError, parseJson } from './run.ts';

export type Verdicts = ReadonlyMap<string, boolean>;

const TRUE = new Set(['true', '1', 'yes', 'resolved']);

export function parseVerdicts(file: string, text: string): Verdicts {
  if (file.endsWith('.json')) return verdictsFromJson(file, parseJson(file, text));
  const lines = text.split(/\r?\n/);
  const header = (lines[0] ?? '').split(',').map((h) => h.trim().toLowerCase());
  const idColumn = header.indexOf('instance_id');
  const resolvedColumn = header.indexOf('resolved');
  if (idColumn < 0 || resolvedColumn < 0) throw new ImportFileError(file, 1, 'a verdict CSV needs the columns instance_id and resolved');
  const verdicts = new Map<string, boolean>();
  lines.slice(1).forEach((line, i) => {
    if (!line.trim()) return;
    const cells = line.split(',').map((c) => c.trim());
    const id = cells[idColumn];
    const resolved = cells[resolvedColumn];
    if (!id || resolved === undefined) throw new ImportFileError(file, i + 2, `expected ${header.length} columns, got ${cells.length}`);
    verdicts.set(id, TRUE.has(resolved.toLowerCase()));
  });
  return verdicts;
}

function verdictsFromJson(file: string, doc: unknown): Verdicts {
  if (Array.isArray(doc)) return new Map(doc.filter((id): id is string => typeof id === 'string').map((id) => [id, true]));
  if (doc && typeof doc === 'object') {
    const resolved = (doc as { resolved_ids?: unknown }).resolved_ids;
    if (Array.isArray(resolved)) return verdictsFromJson(file, resolved);
    return new Map(Object.entries(doc).map(([id, v]) => [id, v === true || (typeof v === 'string' && TRUE.has(v.toLowerCase()))]));
  }
  throw new ImportFileError(file, 1, 'a verdict JSON is a list of resolved ids or an object {instance_id: resolved}');
}
