// What the episode mutations answer: the episode they changed (ending one answers
// FinishEpisodePayload, graphql/finish-payloads.ts).
import { builder } from './builder.ts';
import { chargeEpisodeTexts, selectedEpisodeTexts } from './episode-budget.ts';

/** The builder's own types, for helpers that take a field builder. */
export type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The `episode` field of a payload that names its episode by id. */
export function episodeField<Parent extends { episodeId: string }>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, Parent>) {
  return t.prismaField({
    type: 'Episode',
    resolve: async (query, parent, _args, ctx, info) => {
      await chargeEpisodeTexts(ctx, [parent.episodeId], selectedEpisodeTexts(info));
      return ctx.db.episode.findUniqueOrThrow({ ...query, where: { id: parent.episodeId } });
    },
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

export const PackMissPayload = builder.objectRef<{ episodeId: string; defectRecorded: boolean; occurrences: number }>('RecordPackMissPayload').implement({
  fields: (t) => ({
    episode: episodeField(t),
    defectRecorded: t.exposeBoolean('defectRecorded', { description: 'True only for the first miss of this stable id in the episode.' }),
    occurrences: t.exposeInt('occurrences'),
  }),
});
