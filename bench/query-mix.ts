// The fixed relevantEpisodes query mix of issue 31: one common word to 10 KB, as agents ask it.
// bench:http and bench:memory-scale time the same mix.

const PARAGRAPH =
  'QuerySet.union() with ordering breaks on ordering with fields of the related model: a TypeError is raised when ' +
  'the compiler resolves the ORDER BY term of a combined query, and the migration autodetector then fails. ';

export const QUERY_MIX: readonly string[] = [
  'fix',
  'test',
  'fix error',
  'django queryset',
  'TypeError when serializing a queryset with ordering',
  'Add support for timezone-aware datetimes in the admin changelist filters and keep the URL parameters stable',
  PARAGRAPH.repeat(4).trim(),
  PARAGRAPH.repeat(Math.ceil(10_240 / PARAGRAPH.length)).slice(0, 10_240),
];

/** How a query of the mix is named in a report: the text when short, its length otherwise. */
export function mixLabel(query: string): string {
  return query.length <= 20 ? `\`${query}\`` : `${query.length} chars`;
}
