import { builder } from '../builder.ts';
import { NotFoundError } from '../schema/errors.ts';
import { isUuid } from '../schema/ids.ts';

builder.prismaObject('Episode', {
  fields: (t) => ({
    id: t.exposeID('id'),
    taskDescription: t.exposeString('taskDescription'),
    taskType: t.exposeString('taskType'),
    status: t.exposeString('status'),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true }),
    tenant: t.relation('tenant'),
  }),
});

builder.queryFields((t) => ({
  episode: t.prismaField({
    type: 'Episode',
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      const episode = isUuid(id)
        ? await ctx.services.db.prisma.episode.findFirst({ ...query, where: { id, tenantId: ctx.viewer!.tenantId } })
        : null;
      if (!episode) throw new NotFoundError('Episode', String(id));
      return episode;
    },
  }),
  episodes: t.prismaConnection({
    type: 'Episode',
    cursor: 'id',
    defaultSize: 20,
    maxSize: 100,
    resolve: (query, _root, _args, ctx) =>
      ctx.services.db.prisma.episode.findMany({
        ...query,
        where: { tenantId: ctx.viewer!.tenantId },
        orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      }),
  }),
}));
