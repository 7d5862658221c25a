// Late telemetry of a traced run: spans that ended after the root span completed the run's episode
// (a streamed call, a fire-and-forget tool) are appended as its steps (the step journal's
// appendLateTelemetry action), then the run's experience is redone here: reward and reflection
// re-scored from every step, and pattern extraction queued when it has not run yet (an extraction
// that ran already counted the episode once and is not run twice).
import type { WriteContext } from '../core/write-context.ts';
import { lockEpisode } from '../episodes/row.ts';
import { requireTransition } from '../episodes/status.ts';
import { EXPERIENCE_REDONE_EVENT } from '../learning/extract.ts';
import { loadEpisodeFacts, refreshExperience } from '../learning/store.ts';

/** Re-scores a completed episode that took late steps; its event claims the new reward and reflection hashes. */
export async function redoExperienceAfterLateSteps(ctx: WriteContext, episodeId: string, lateSteps: number): Promise<void> {
  const ep = await lockEpisode(ctx.client, ctx.tenantId, episodeId);
  requireTransition(ep, 'appendLateTelemetry');
  const facts = await loadEpisodeFacts(ctx.client, ctx.tenantId, episodeId);
  // Extraction not decided on yet (no candidates before the late steps) is decided again; a queued or done one is left as it is.
  const learningState = facts?.learningState === 'none' ? ('decide' as const) : undefined;
  const experience = facts ? await refreshExperience(ctx.client, ctx.tenantId, episodeId, { facts, learningState }) : null;
  ctx.events.push({
    type: EXPERIENCE_REDONE_EVENT,
    episodeId: ep.id,
    workItemId: ep.workItemId,
    payload: { reason: 'late_telemetry', lateSteps, ...(experience ? { experience: experience.summary } : {}) },
  });
}
