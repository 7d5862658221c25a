// What the episode mutations answer: the episode they changed, and what the change produced.
import { builder } from '../builder.ts';
import type { EpisodeLeaseCharge } from '../leases/charge.ts';
import { LeaseChargeRef } from '../leases/graphql-types.ts';
import type { CompletionResult } from '../lifecycle/complete.ts';
import type { StopReason } from '../stops/stop-reason.ts';
import { StopReasonRef } from './graphql-stop.ts';

/** The builder's own types, for helpers that take a field builder. */
export type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The `episode` field of a payload that names its episode by id. */
export function episodeField<Parent extends { episodeId: string }>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, Parent>) {
  return t.prismaField({
    type: 'Episode',
    resolve: (query, parent, _args, ctx) => ctx.db.episode.findUniqueOrThrow({ ...query, where: { id: parent.episodeId } }),
  });
}

export const EpisodePayload = builder.objectRef<{ episodeId: string }>('EpisodePayload').implement({
  fields: (t) => ({ episode: episodeField(t) }),
});

export const StartEpisodePayload = builder.objectRef<{ episodeId: string; deduplicated: boolean }>('StartEpisodePayload').implement({
  fields: (t) => ({
    episode: episodeField(t),
    deduplicated: t.exposeBoolean('deduplicated', { description: 'True when dedupeKey matched an earlier start with the same input.' }),
  }),
});

type FinishShape = { episodeId: string } & Partial<CompletionResult> & { leaseCharge: EpisodeLeaseCharge | null; stopCondition: StopReason | null };

export const FinishPayload = builder.objectRef<FinishShape>('FinishEpisodePayload').implement({
  fields: (t) => ({
    episode: episodeField(t),
    leaseCharge: t.field({ type: LeaseChargeRef, nullable: true, resolve: (p) => p.leaseCharge }),
    stopCondition: t.field({
      type: StopReasonRef,
      nullable: true,
      description:
        "The work item loop's stop condition after this episode (in priority order: budget > the holon's stop > max episodes); null: the loop may go on, or the episode has no work item.",
      resolve: (p) => p.stopCondition,
    }),
  }),
});

export const PackMissPayload = builder.objectRef<{ episodeId: string; defectRecorded: boolean; occurrences: number }>('RecordPackMissPayload').implement({
  fields: (t) => ({
    episode: episodeField(t),
    defectRecorded: t.exposeBoolean('defectRecorded', { description: 'True only for the first miss of this stable id in the episode.' }),
    occurrences: t.exposeInt('occurrences'),
  }),
});
