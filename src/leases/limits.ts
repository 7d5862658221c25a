// Input limits of work items and leases: pure, so the resolvers only call them and throw.

import { type JsonValue, textOrJsonViolations } from '../validation/json.ts';
import { countViolations, type LimitViolation, textViolations } from '../validation/violations.ts';
import { MAX_EPISODE_NUMBER } from './rules.ts';

export const LEASE_LIMITS = {
  titleChars: 500,
  descriptionChars: 10_000,
  partyChars: 200,
  scopeEntries: 100,
  scopeEntryChars: 200,
  // Text or JSON, bounded as an episode's goal spec is (64 KB, src/episodes/limits.ts).
  metadataBytes: 64 * 1024,
} as const;

function maxEpisodesViolations(value: number | null | undefined): LimitViolation[] {
  if (value == null || (value >= 1 && value <= MAX_EPISODE_NUMBER)) return [];
  return [{ field: 'maxEpisodes', limit: `1..${MAX_EPISODE_NUMBER}`, actual: value, message: `maxEpisodes must be between 1 and ${MAX_EPISODE_NUMBER}` }];
}

export function validateWorkItem(input: { title: string; description?: string | null; metadata?: unknown; maxEpisodes?: number | null }): LimitViolation[] {
  return [
    ...textViolations('title', input.title, { maxChars: LEASE_LIMITS.titleChars, nonEmpty: true }),
    ...textViolations('description', input.description, { maxChars: LEASE_LIMITS.descriptionChars }),
    ...(input.metadata == null ? [] : textOrJsonViolations('metadata', input.metadata as JsonValue, LEASE_LIMITS.metadataBytes)),
    ...maxEpisodesViolations(input.maxEpisodes),
  ];
}

export function validateResumeWorkItem(maxEpisodes: number | null | undefined): LimitViolation[] {
  return maxEpisodesViolations(maxEpisodes);
}

export function validateLeaseInput(input: {
  issuer: string;
  holder: string;
  scope: readonly string[];
  budget: Record<string, number | null | undefined>;
}): LimitViolation[] {
  return [
    ...textViolations('issuer', input.issuer, { maxChars: LEASE_LIMITS.partyChars, nonEmpty: true }),
    ...textViolations('holder', input.holder, { maxChars: LEASE_LIMITS.partyChars, nonEmpty: true }),
    ...countViolations('scope', input.scope.length, LEASE_LIMITS.scopeEntries, 'entries'),
    ...input.scope.flatMap((s, i) => textViolations(`scope.${i}`, s, { maxChars: LEASE_LIMITS.scopeEntryChars, nonEmpty: true })),
    ...Object.entries(input.budget).flatMap(([k, v]): LimitViolation[] =>
      v != null && v < 0 ? [{ field: `budget.${k}`, limit: '>= 0', actual: v, message: `budget.${k} must not be negative` }] : [],
    ),
  ];
}
