// GraphQL input shapes (enums in UPPER_CASE) to the domain's shapes, and back for enums.

import type { JsonObject, JsonValue } from '../validation/json.ts';
import type { StartEpisodeInput } from './limits.ts';
import type { Outcome } from './outcome.ts';

export const lower = <T extends string>(v: string) => v.toLowerCase() as T;

export interface GqlStartEpisodeInput {
  taskDescription: string;
  taskType: string;
  context?: { language?: string | null; framework?: string | null; complexity?: string | null; domain?: string | null; tags?: string[] | null } | null;
  goalSpec?: unknown;
  agent?: string | null;
  dedupeKey?: string | null;
  maxAttempts?: number | null;
  mode?: string | null;
  budget?: { maxTokens?: number | null; maxSteps?: number | null; maxWallMs?: number | null; maxToolCalls?: number | null } | null;
  onBudgetExhausted?: string | null;
  metadata?: unknown;
  parentEpisodeId?: string | number | null;
  workItemId?: string | number | null;
  leaseId?: string | number | null;
  episodeNumber?: number | null;
  startedAt?: Date | null;
  importSource?: { format: string; sourceHash: string; name?: string | null } | null;
}

const idOrNull = (v: string | number | null | undefined) => (v == null ? null : String(v));

export function toStartEpisodeInput(i: GqlStartEpisodeInput): StartEpisodeInput & { episodeNumber: number | null } {
  const c = i.context ?? {};
  return {
    taskDescription: i.taskDescription,
    taskType: i.taskType,
    context: {
      language: c.language ?? null,
      framework: c.framework ?? null,
      complexity: lower(c.complexity ?? 'MODERATE'),
      domain: c.domain ?? null,
      tags: c.tags ?? [],
    },
    goalSpec: (i.goalSpec ?? null) as JsonValue,
    agent: i.agent ?? null,
    dedupeKey: i.dedupeKey ?? null,
    maxAttempts: i.maxAttempts ?? null,
    mode: lower(i.mode ?? 'LIVE'),
    budget: {
      maxTokens: i.budget?.maxTokens ?? null,
      maxSteps: i.budget?.maxSteps ?? null,
      maxWallMs: i.budget?.maxWallMs ?? null,
      // Left out when unset (not null), so the dedupe input hash of a start is what it was before this field existed.
      ...(i.budget?.maxToolCalls != null ? { maxToolCalls: i.budget.maxToolCalls } : {}),
    },
    onBudgetExhausted: lower(i.onBudgetExhausted ?? 'FAIL'),
    metadata: (i.metadata ?? null) as JsonObject | null,
    parentEpisodeId: idOrNull(i.parentEpisodeId),
    workItemId: idOrNull(i.workItemId),
    leaseId: idOrNull(i.leaseId),
    episodeNumber: i.episodeNumber ?? null,
    // Only when given, so the dedupe input hash of a live start is what it was before they existed.
    ...(i.startedAt ? { startedAt: i.startedAt } : {}),
    ...(i.importSource ? { importSource: { format: i.importSource.format, sourceHash: i.importSource.sourceHash, name: i.importSource.name ?? null } } : {}),
  };
}

export interface GqlOutcomeInput {
  kind: string;
  verdict?: string | null;
  artifacts?: string[] | null;
  completed?: string[] | null;
  failed?: string[] | null;
  reason?: string | null;
  details?: string | null;
}

export function toOutcome(o: GqlOutcomeInput): Outcome {
  // Artifacts of a partial or failed outcome are left out when none are given, so such an outcome
  // (and its hash in the ledger) is what it was before they were accepted.
  const artifacts = o.artifacts?.length ? { artifacts: o.artifacts } : {};
  if (o.kind === 'SUCCESS') return { kind: 'success', verdict: o.verdict ?? '', artifacts: o.artifacts ?? [] };
  if (o.kind === 'PARTIAL') return { kind: 'partial', verdict: o.verdict ?? '', completed: o.completed ?? [], failed: o.failed ?? [], ...artifacts };
  return { kind: 'failure', reason: o.reason ?? '', ...(o.details == null ? {} : { details: o.details }), ...artifacts };
}
