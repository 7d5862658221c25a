// Limits of an outcome (completeEpisode): bounded texts and lists of bounded items.
import { countViolations, type LimitViolation, type TextRule, textViolations } from '../validation/violations.ts';
import type { Outcome } from './outcome.ts';

export const OUTCOME_LIMITS = {
  textBytes: 10 * 1024,
  items: 1000,
  itemBytes: 1024,
} as const;

export function validateOutcome(outcome: Outcome, field = 'input.outcome'): LimitViolation[] {
  const textRule: TextRule = { maxBytes: OUTCOME_LIMITS.textBytes, nonEmpty: true };
  if (outcome.kind === 'success') {
    return [...textViolations(`${field}.verdict`, outcome.verdict, textRule), ...listViolations(`${field}.artifacts`, outcome.artifacts)];
  }
  if (outcome.kind === 'unknown') {
    return [...textViolations(`${field}.verdict`, outcome.verdict, textRule), ...listViolations(`${field}.artifacts`, outcome.artifacts ?? [])];
  }
  if (outcome.kind === 'partial') {
    return [
      ...textViolations(`${field}.verdict`, outcome.verdict, textRule),
      ...listViolations(`${field}.completed`, outcome.completed),
      ...listViolations(`${field}.failed`, outcome.failed),
      ...listViolations(`${field}.artifacts`, outcome.artifacts ?? []),
    ];
  }
  return [
    ...textViolations(`${field}.reason`, outcome.reason, textRule),
    ...textViolations(`${field}.details`, outcome.details, { maxBytes: OUTCOME_LIMITS.textBytes }),
    ...listViolations(`${field}.artifacts`, outcome.artifacts ?? []),
  ];
}

function listViolations(field: string, items: readonly string[]): LimitViolation[] {
  const itemRule: TextRule = { maxBytes: OUTCOME_LIMITS.itemBytes, nonEmpty: true };
  return [
    ...countViolations(field, items.length, OUTCOME_LIMITS.items, 'items'),
    ...items.flatMap((item, index) => textViolations(`${field}.${index}`, item, itemRule)),
  ];
}
