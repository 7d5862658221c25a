// The episode queries: one episode by id, and a filtered page of them, newest first.

import { NotFoundError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { builder } from './builder.ts';
import { chargeEpisodeTexts, selectedEpisodeTexts } from './episode-budget.ts';
import { EpisodeFilterInput, episodeWhere } from './episode-filter.ts';
import { connectionSize } from './page-size.ts';

builder.queryFields((t) => ({
  episode: t.withAuth({ read: true }).prismaField({
    type: 'Episode',
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, { id }, ctx, info) => {
      if (isUuid(id)) await chargeEpisodeTexts(ctx, [id], selectedEpisodeTexts(info));
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
    resolve: async (query, _root, args, ctx, info) => {
      const page = { where: episodeWhere(ctx.viewer.tenantId, args.filter ?? null), orderBy: [{ startedAt: 'desc' as const }, { id: 'desc' as const }] };
      const texts = selectedEpisodeTexts(info, true);
      if (texts.length) {
        const ids = await ctx.db.episode.findMany({ ...page, take: query.take, skip: query.skip, cursor: query.cursor, select: { id: true } });
        await chargeEpisodeTexts(
          ctx,
          ids.map((e) => e.id),
          texts,
        );
      }
      return ctx.db.episode.findMany({ ...query, ...page });
    },
  }),
}));
