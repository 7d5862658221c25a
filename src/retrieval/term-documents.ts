// What the term index writes for ended episodes, computed from their stored record and steps
// alone (pure: no database, no clock): each episode's four fields (task, work, change, trace;
// terms.ts), its postings (bm25.ts fieldPostings), the files its last diff changed, and what the
// documents add to the tenant's shared rows (frequencies, totals). Pure so that it runs on the
// index worker (index-workers.ts) as well as inline, with the same result: term extraction was the
// largest part of an import's own work on the server's one thread (docs/BENCHMARKS.md, issue 55).
import { arrayLiteral } from '../db/sql.ts';
import { fieldPostings } from './bm25.ts';
import { type DiffFile, diffFiles } from './files.ts';
import { changeTerms, documentLength, lastDiff, type TermCounts, taskTerms, traceTerms, type WorkStep, workTerms } from './terms.ts';

export const FIELD = { task: 0, work: 1, change: 2, trace: 3 } as const;

export interface EpisodeSource {
  indexed: boolean;
  domain: string | null;
  task_description: string;
  artifacts: string[] | null;
  failure: string | null;
}

export interface StepSource {
  tool: string | null;
  action: string | null;
  parameters: string | null;
  error_class: string | null;
  error_message: string | null;
  output: string | null;
}

/** One episode to index: its record and its indexed steps, in order. */
export interface DocumentSource {
  episodeId: string;
  episode: EpisodeSource;
  steps: StepSource[];
}

export type IndexedFile = DiffFile & { episodeId: string; domain: string };

/** How many of the documents hold a (field, term). */
export interface TermCount {
  field: number;
  term: string;
  documents: number;
}

/** What indexed episodes add to the tenant's shared rows: the documents per (field, term), in (field, term) order, and each field's length per document. */
export interface IndexShares {
  counts: TermCount[];
  fields: ReadonlyArray<{ field: number; length: number }>;
}

/**
 * The postings as the columns of their insert, PostgreSQL array literals (arrayLiteral): each
 * names its episode by its place (1-based) in `episodes`, since a batch is about 8,000 postings
 * of ten episodes and the id repeated was half of the bytes. Null when there are none.
 */
export interface PostingColumns {
  episodes: string[];
  episode: string;
  field: string;
  term: string;
  impact: string;
}

export interface IndexedDocuments {
  postings: PostingColumns | null;
  files: IndexedFile[];
  shares: IndexShares;
}

/** The index rows of the episodes, in their order. */
export function indexDocuments(sources: readonly DocumentSource[]): IndexedDocuments {
  const files: IndexedFile[] = [];
  const episodes: string[] = [];
  const columns = { episode: [] as number[], field: [] as number[], term: [] as string[], impact: [] as number[] };
  const fields: Array<{ field: number; length: number; terms: string[] }> = [];
  for (const { episodeId, episode, steps } of sources) {
    const workSteps = steps.map(toWorkStep);
    const diff = lastDiff(steps.map((s) => s.output));
    for (const file of diffFiles(diff ?? '')) files.push({ ...file, episodeId, domain: episode.domain ?? '' });
    const place = episodes.push(episodeId);
    for (const { field, counts } of episodeFields(episode, workSteps, diff)) {
      const length = documentLength(counts);
      const terms = [...counts.keys()].sort();
      fields.push({ field, length, terms });
      if (terms.length === 0) continue;
      for (const p of fieldPostings({ field, counts, length })) {
        columns.episode.push(place);
        columns.field.push(p.field);
        columns.term.push(p.term);
        columns.impact.push(p.impact);
      }
    }
  }
  const postings = columns.episode.length
    ? {
        episodes,
        episode: literal(columns.episode, 'int'),
        field: literal(columns.field, 'int'),
        term: literal(columns.term, 'text'),
        impact: literal(columns.impact, 'float8'),
      }
    : null;
  return {
    postings,
    files,
    shares: { counts: documentCounts(fields.filter((f) => f.terms.length > 0)), fields: fields.map(({ field, length }) => ({ field, length })) },
  };
}

function literal(values: readonly unknown[], type: string): string {
  return arrayLiteral(values, type) as string;
}

function episodeFields(episode: EpisodeSource, steps: WorkStep[], diff: string | null): Array<{ field: number; counts: TermCounts }> {
  const artifacts = episode.artifacts ?? [];
  return [
    { field: FIELD.task, counts: taskTerms(episode.task_description) },
    { field: FIELD.work, counts: workTerms({ artifacts, failure: episode.failure, steps }) },
    { field: FIELD.change, counts: changeTerms({ artifacts, diff }) },
    { field: FIELD.trace, counts: traceTerms({ description: episode.task_description, steps, diff }) },
  ];
}

function toWorkStep(s: StepSource): WorkStep {
  return { tool: s.tool, action: s.action, parameters: s.parameters, errorClass: s.error_class, errorMessage: s.error_message, output: s.output };
}

/** How many of the documents hold each (field, term), in (field, term) order. */
function documentCounts(fields: ReadonlyArray<{ field: number; terms: string[] }>): TermCount[] {
  const byKey = new Map<string, TermCount>();
  for (const f of fields)
    for (const term of f.terms) {
      const key = `${f.field}\u0000${term}`;
      const entry = byKey.get(key);
      if (entry) entry.documents += 1;
      else byKey.set(key, { field: f.field, term, documents: 1 });
    }
  return [...byKey.values()].sort((a, b) => a.field - b.field || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
}
