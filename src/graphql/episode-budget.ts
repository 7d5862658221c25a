// Episode texts charged to the request's byte budget (MAX_RESPONSE_BYTES) before they are read:
// when an episode read selects one of the large fields (src/episodes/text-sizes.ts), their stored
// sizes are measured by PostgreSQL and charged first; a read past the budget is refused
// (RESPONSE_TOO_LARGE) with none of its rows read.
import type { FieldNode, GraphQLResolveInfo } from 'graphql';
import { type EpisodeTextField, episodeTextBytes, isEpisodeTextField } from '../episodes/text-sizes.ts';
import { type Context, viewerOf } from './context.ts';
import { fieldsOf } from './step-page.ts';

type Selection = Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>;

/** The large fields this selection of an Episode names (directly under the field, or under edges.node of a page). */
export function selectedEpisodeTexts(info: Selection, page = false): EpisodeTextField[] {
  const childrenOf = (fields: readonly FieldNode[]) => fields.flatMap((f) => fieldsOf(f.selectionSet, info.fragments));
  const named = (fields: readonly FieldNode[], name: string) => childrenOf(fields).filter((f) => f.name.value === name);
  const episodes = page ? named(named(info.fieldNodes, 'edges'), 'node') : info.fieldNodes;
  // A checkpoint's large text is its state: its id and label cost nothing.
  const large = (f: FieldNode) => f.name.value !== 'checkpoints' || named([f], 'state').length > 0;
  const names = childrenOf(episodes)
    .filter(large)
    .map((f) => f.name.value);
  return [...new Set(names)].filter(isEpisodeTextField);
}

/** Charges the stored size of the selected texts of these episodes; throws RESPONSE_TOO_LARGE (nothing granted) past the budget. */
export async function chargeEpisodeTexts(ctx: Context, ids: readonly string[], fields: readonly EpisodeTextField[]) {
  if (!fields.length) return;
  const bytes = await episodeTextBytes(ctx.services.db.pool, viewerOf(ctx).tenantId, ids, fields);
  ctx.budget.charge(bytes, `The ${fields.join(', ')} of ${ids.length} episode(s)`);
}
