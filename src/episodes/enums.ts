import { builder } from '../builder.ts';

export const EpisodeStatusEnum = builder.enumType('EpisodeStatus', {
  values: ['RUNNING', 'BLOCKED', 'COMPLETED', 'FAILED', 'CANCELLED', 'ESCALATED'] as const,
});
export const OutcomeKindEnum = builder.enumType('OutcomeKind', { values: ['SUCCESS', 'PARTIAL', 'FAILURE'] as const });
