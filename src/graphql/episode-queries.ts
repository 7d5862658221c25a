// The episode queries: one episode by id, and a filtered page of them, newest first.

import { NotFoundError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { builder } from './builder.ts';
import { EpisodeFilterInput, episodeWhere } from './episode-filter.ts';
import { connectionSize } from './page-size.ts';

builder.queryFields((t) => ({
  episode: t.withAuth({ read: true }).prismaField({
    type: 'Episode',
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      const episode = isUuid(id) ? await ctx.db.episode.findFirst({ ...query, where: { id, tenantId: ctx.viewer.tenantId } }) : null;
      if (!episode) throw new NotFoundError('Episode', String(id));
      return episode;
    },
  }),
  episodes: t.withAuth({ read: true }).prismaConnection({
    type: 'Episode',
    cursor: 'id',
    ...connectionSize(20, 100),
    args: { filter: t.arg({ type: EpisodeFilterInput }) },
    resolve: (query, _root, args, ctx) =>
      ctx.db.episode.findMany({
        ...query,
        where: episodeWhere(ctx.viewer.tenantId, args.filter ?? null),
        orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      }),
  }),
}));
