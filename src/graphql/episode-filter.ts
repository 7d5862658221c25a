// The episodes(filter) argument and its translation to a tenant-scoped Prisma where clause.

import { canonicalId, isUuid } from '../core/ids.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { builder } from './builder.ts';
import { OutcomeKindEnum as Outcome, EpisodeStatusEnum as Status } from './episode-enums.ts';
import { badArgument } from './page-arguments.ts';

export const EpisodeFilterInput = builder.inputType('EpisodeFilter', {
  fields: (t) => ({
    status: t.field({ type: [Status], description: 'Any of these statuses.' }),
    taskType: t.string(),
    domain: t.string(),
    language: t.string(),
    tags: t.stringList({ description: 'Episodes carrying all of these tags.' }),
    workItemId: t.id(),
    agent: t.string(),
    outcome: t.field({ type: Outcome }),
    startedAfter: t.field({ type: 'DateTime' }),
    startedBefore: t.field({ type: 'DateTime' }),
    text: t.string({ description: 'Case-insensitive match in the task description.' }),
    sessionId: t.string({
      description: "The runs of one session: the episode's metadata.sessionId (OTLP: session.id, else gen_ai.conversation.id; docs/OTLP.md).",
    }),
  }),
});

export interface EpisodeFilter {
  status?: string[] | null;
  taskType?: string | null;
  domain?: string | null;
  language?: string | null;
  tags?: string[] | null;
  workItemId?: string | number | null;
  agent?: string | null;
  outcome?: string | null;
  startedAfter?: Date | null;
  startedBefore?: Date | null;
  text?: string | null;
  sessionId?: string | null;
}

/** A forgotten run (docs/LEDGER.md §3.4) is never listed: only episode(id) still answers for it, with forgottenAt set. */
export function episodeWhere(tenantId: string, f: EpisodeFilter | null): Prisma.EpisodeWhereInput {
  if (!f) return { tenantId, forgottenAt: null };
  const workItemId = f.workItemId == null ? undefined : canonicalId(f.workItemId);
  if (workItemId !== undefined && !isUuid(workItemId)) {
    throw badArgument('filter.workItemId', 'a UUID', `filter.workItemId must be a work item's id (a UUID), got "${(workItemId as string).slice(0, 64)}"`);
  }
  return {
    tenantId,
    forgottenAt: null,
    ...(f.status?.length ? { status: { in: f.status.map((s) => s.toLowerCase()) } } : {}),
    ...(f.taskType ? { taskType: f.taskType } : {}),
    ...(f.domain ? { domain: f.domain } : {}),
    ...(f.language ? { language: f.language } : {}),
    ...(f.tags?.length ? { tags: { hasEvery: f.tags } } : {}),
    ...(workItemId ? { workItemId } : {}),
    ...(f.agent ? { agent: f.agent } : {}),
    ...(f.outcome ? { outcomeKind: f.outcome.toLowerCase() } : {}),
    ...(f.startedAfter || f.startedBefore
      ? { startedAt: { ...(f.startedAfter ? { gte: f.startedAfter } : {}), ...(f.startedBefore ? { lt: f.startedBefore } : {}) } }
      : {}),
    ...(f.sessionId ? { metadata: { path: ['sessionId'], equals: f.sessionId } } : {}),
    // Prisma passes `contains` to ILIKE as it is: % and _ would be wildcards, so they are escaped.
    ...(f.text ? { taskDescription: { contains: f.text.replace(/[\\%_]/g, '\\$&'), mode: 'insensitive' as const } } : {}),
  };
}
