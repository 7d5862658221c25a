// The retrieval inputs of the API, and their conversion to the domain's query (blank strings as
// not given, tags deduplicated). The GraphQL shapes are inferred from the refs, never restated.

import type { ContextFacts } from '../learning/facts.ts';
import type { RetrievalQuery } from '../retrieval/score.ts';
import { builder } from './builder.ts';
import { ComplexityEnum } from './episode-enums.ts';

export const RetrievalContextInput = builder.inputType('RetrievalContextInput', {
  fields: (t) => ({
    language: t.string(),
    framework: t.string(),
    domain: t.string(),
    tags: t.stringList(),
    complexity: t.field({ type: ComplexityEnum, description: 'Accepted for symmetry with TaskContext; ranking does not use it.' }),
  }),
});

export const RetrievalTaskInput = builder.inputType('RetrievalTaskInput', {
  fields: (t) => ({
    description: t.string({ required: true, description: 'Any language: full-text (simple configuration) and trigram similarity.' }),
    taskType: t.string(),
    context: t.field({ type: RetrievalContextInput }),
  }),
});

export const RelevantEpisodeFilter = builder.inputType('RelevantEpisodeFilter', {
  description: 'Hard filters, applied before ranking.',
  fields: (t) => ({
    minReward: t.float({ description: 'Normalised reward at least this.' }),
    endedAfter: t.field({ type: 'DateTime' }),
    agent: t.string(),
  }),
});

/** Empty strings count as not given, as an unset field would. */
const given = (value: string | null | undefined) => (value == null || value.trim() === '' ? null : value);

export function toContextFacts(c: typeof RetrievalContextInput.$inferInput | null | undefined): ContextFacts {
  return {
    domain: given(c?.domain),
    language: given(c?.language),
    framework: given(c?.framework),
    tags: [...new Set((c?.tags ?? []).filter((t) => t.trim() !== ''))],
  };
}

export function toRetrievalQuery(task: typeof RetrievalTaskInput.$inferInput): RetrievalQuery {
  return { description: task.description, taskType: given(task.taskType), context: toContextFacts(task.context) };
}
