// The episode enums of the API. Values are the domain's in UPPER_CASE; `lower` maps one back.
import { builder } from '../builder.ts';

export const EpisodeStatusEnum = builder.enumType('EpisodeStatus', {
  values: ['RUNNING', 'BLOCKED', 'COMPLETED', 'FAILED', 'CANCELLED', 'ESCALATED'] as const,
});
export const OutcomeKindEnum = builder.enumType('OutcomeKind', { values: ['SUCCESS', 'PARTIAL', 'FAILURE'] as const });
export const ComplexityEnum = builder.enumType('Complexity', { values: ['SIMPLE', 'MODERATE', 'COMPLEX'] as const });
export const ModeEnum = builder.enumType('EpisodeMode', { values: ['LIVE', 'DRY_RUN'] as const });
export const PolicyEnum = builder.enumType('BudgetExhaustedPolicy', {
  description: 'What the server does when a token or step budget runs out (wall time always fails).',
  values: ['FAIL', 'CONVERGE'] as const,
});

/** An enum value as the domain spells it: 'DRY_RUN' -> 'dry_run', typed as such. */
export const lower = <T extends string>(value: T) => value.toLowerCase() as Lowercase<T>;
