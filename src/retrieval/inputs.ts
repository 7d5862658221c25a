// The limits of a retrieval request, checked on the request as the API receives it. Pure.

import type { LimitViolation } from '../core/errors.ts';
import { EPISODE_LIMITS } from '../episodes/limits.ts';

export const RETRIEVAL_LIMITS = {
  maxResults: 50,
  descriptionBytes: EPISODE_LIMITS.descriptionBytes,
  fieldChars: EPISODE_LIMITS.contextFieldChars,
  tagCount: EPISODE_LIMITS.tagCount,
  tagChars: EPISODE_LIMITS.tagChars,
} as const;

/** The fields of a task context the limits read (the API's RetrievalContextInput is passed as it is). */
export interface ContextFields {
  language?: string | null;
  framework?: string | null;
  domain?: string | null;
  tags?: string[] | null;
}

/** The fields of a task the limits read (the API's RetrievalTaskInput is passed as it is). */
export interface TaskFields {
  description: string;
  taskType?: string | null;
  context?: ContextFields | null;
}

function validateContext(c: ContextFields | null | undefined, field: string): LimitViolation[] {
  const tooLong = (name: string, value: string | null | undefined, max: number): LimitViolation[] =>
    value != null && Array.from(value).length > max
      ? [{ field: `${field}.${name}`, limit: max, actual: Array.from(value).length, message: `${field}.${name} is longer than ${max} characters` }]
      : [];
  const tags = c?.tags ?? [];
  return [
    ...tooLong('language', c?.language, RETRIEVAL_LIMITS.fieldChars),
    ...tooLong('framework', c?.framework, RETRIEVAL_LIMITS.fieldChars),
    ...tooLong('domain', c?.domain, RETRIEVAL_LIMITS.fieldChars),
    ...(tags.length > RETRIEVAL_LIMITS.tagCount
      ? [{ field: `${field}.tags`, limit: RETRIEVAL_LIMITS.tagCount, actual: tags.length, message: `at most ${RETRIEVAL_LIMITS.tagCount} tags` }]
      : []),
    ...tags.flatMap((tag, i) => tooLong(`tags.${i}`, tag, RETRIEVAL_LIMITS.tagChars)),
  ];
}

export function validateRetrieval(task: TaskFields, limit: number): LimitViolation[] {
  const bytes = Buffer.byteLength(task.description);
  return [
    ...(bytes > RETRIEVAL_LIMITS.descriptionBytes
      ? [
          {
            field: 'task.description',
            limit: RETRIEVAL_LIMITS.descriptionBytes,
            actual: bytes,
            message: `task.description is ${bytes} bytes; the limit is ${RETRIEVAL_LIMITS.descriptionBytes} bytes`,
          },
        ]
      : []),
    ...(task.description.includes('\u0000')
      ? [{ field: 'task.description', limit: 'no NUL bytes', message: 'task.description must not contain NUL bytes' }]
      : []),
    ...(task.taskType != null && Array.from(task.taskType).length > EPISODE_LIMITS.taskTypeChars
      ? [{ field: 'task.taskType', limit: EPISODE_LIMITS.taskTypeChars, message: `task.taskType is longer than ${EPISODE_LIMITS.taskTypeChars} characters` }]
      : []),
    ...validateContext(task.context, 'task.context'),
    ...validateLimit(limit),
  ];
}

function validateLimit(limit: number): LimitViolation[] {
  return limit >= 1 && limit <= RETRIEVAL_LIMITS.maxResults
    ? []
    : [{ field: 'limit', limit: `1..${RETRIEVAL_LIMITS.maxResults}`, actual: limit, message: `limit must be between 1 and ${RETRIEVAL_LIMITS.maxResults}` }];
}

/** relevantPatterns takes a task, or (the older form) a context alone; exactly one of them. */
export function patternTaskViolations(task: TaskFields | null | undefined, context: ContextFields | null | undefined): LimitViolation[] {
  if ((task == null) === (context == null))
    return [{ field: 'task', limit: 'exactly one of task or context', message: 'give the task (description and context), or a context alone' }];
  return [];
}
