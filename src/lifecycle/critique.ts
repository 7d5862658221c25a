// A critic's result: stored on the episode, and (when the episode has ended) its experience re-scored.
import type { WriteContext } from '../core/write-context.ts';
import { Params } from '../db/sql.ts';
import { lockEpisode } from '../episodes/row.ts';
import { requireTransition } from '../episodes/status.ts';
import { refreshExperience } from '../learning/store.ts';
import { contentHash } from '../ledger/format/hash.ts';

export interface CritiqueInput {
  verdict: string;
  score: number | null;
  feedback: string | null;
  virtueScores: Array<{ name: string; score: number }>;
}

export async function recordCritique(ctx: WriteContext, episodeId: string, critique: CritiqueInput) {
  const ep = await lockEpisode(ctx.client, ctx.tenantId, episodeId);
  requireTransition(ep, 'critique');
  const p = new Params();
  await ctx.client.query(
    `UPDATE episodes SET critique = ${p.add(JSON.stringify(critique))}, updated_at = ${p.add(ctx.now)} WHERE id = ${p.add(ep.id)}`,
    p.values,
  );
  // A critique of an episode that already ended (a critic may run after the episode) re-scores it.
  const experience = (await refreshExperience(ctx.client, ctx.tenantId, ep.id))?.summary;
  ctx.events.push({
    type: 'critique.recorded',
    episodeId: ep.id,
    workItemId: ep.workItemId,
    payload: {
      critiqueHash: contentHash(critique),
      score: critique.score,
      ...(experience ? { experience: { reward: experience.reward, rewardHash: experience.rewardHash, reflectionHash: experience.reflectionHash } } : {}),
    },
  });
}
