// GraphQL enums of the learning module that other modules' types use.
import { builder } from './builder.ts';

export const ExtractPatternsModeEnum = builder.enumType('ExtractPatternsMode', {
  description: 'SYNC extracts patterns in the completing transaction; ASYNC (default) queues a job any server process runs.',
  values: ['SYNC', 'ASYNC'] as const,
});
