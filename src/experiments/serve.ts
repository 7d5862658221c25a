// The one seam between experiments and retrieval: an episode's relevantEpisodes goes through
// here. Outside a running experiment it is the memory's retrieval unchanged; inside one, the
// episode's arm (seeded, recorded on its first retrieval with an experiment.assigned event)
// decides what is ranked, and the receipt records the arm. The answer has the same shape in every
// arm: the agent is not told.
import { NotFoundError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import {
  type EpisodeRetrievalRequest,
  type EpisodeRetrievalResult,
  type RankedEpisodes,
  type RetrievalDeps,
  rankEpisodeRetrieval,
  recordEpisodeRetrieval,
  retrieveEpisodes,
} from '../retrieval/retrieve.ts';
import type { ScoredEpisode } from '../retrieval/store.ts';
import { type Arm, assignArm, type ControlRanking, teamDraft } from './arms.ts';
import { type Experiment, experimentForEpisode, insertAssignment } from './store.ts';

/** A retrieval asked for by an episode (episodeId: the run asking, which experiments assign). */
export async function retrieveForEpisode(
  deps: RetrievalDeps,
  tenantId: string,
  request: EpisodeRetrievalRequest,
  episodeId: string | null,
): Promise<EpisodeRetrievalResult> {
  // Every relevantEpisodes passes here: its paced turn (one retrieval) is charged once, whatever the arm ranks.
  await deps.turn();
  // A read-only key records nothing, so it cannot be assigned either: it is served the memory.
  if (episodeId === null || !request.record) return retrieveEpisodes(deps, tenantId, request);
  const found = isUuid(episodeId) ? await experimentForEpisode(deps.pool, tenantId, episodeId) : null;
  if (!found) throw new NotFoundError('Episode', episodeId);
  const { experiment } = found;
  if (!experiment) return retrieveEpisodes(deps, tenantId, request);
  const arm = found.assigned ?? (await recordAssignment(deps, experiment, episodeId));
  const ranked = await rankForArm(deps, tenantId, request, experiment, arm, episodeId);
  return recordEpisodeRetrieval(deps, tenantId, request, ranked.lists, { experimentId: experiment.id, name: arm, teams: ranked.teams });
}

/** The episode's arm, recorded with its ledger event (a concurrent first retrieval records the same arm: it is a function of the seed). */
async function recordAssignment(deps: RetrievalDeps, experiment: Experiment, episodeId: string): Promise<Arm> {
  const arm = assignArm(experiment.kind === 'interleave' ? 'interleave' : 'holdout', experiment.seed, episodeId, experiment.control_share);
  await deps.writer.run(experiment.tenant_id, async (ctx) => {
    if (await insertAssignment(ctx, experiment.id, episodeId, arm)) {
      ctx.events.push({ type: 'experiment.assigned', episodeId, payload: { experimentId: experiment.id, arm } });
    }
  });
  return arm;
}

interface ArmRanking {
  lists: RankedEpisodes;
  teams: string[];
}

async function rankForArm(
  deps: RetrievalDeps,
  tenantId: string,
  request: EpisodeRetrievalRequest,
  experiment: Experiment,
  arm: Arm,
  episodeId: string,
): Promise<ArmRanking> {
  const control = experiment.control as ControlRanking;
  if (arm === 'memory') return { lists: await rankEpisodeRetrieval(deps, tenantId, request), teams: [] };
  if (arm === 'control') return { lists: await rankControl(deps, tenantId, request, control), teams: [] };
  const [memory, baseline] = await Promise.all([rankEpisodeRetrieval(deps, tenantId, request), rankControl(deps, tenantId, request, control)]);
  // The coin is seeded by the episode and its task: the same question of the same run drafts the same list.
  const drafted = teamDraft(ids(memory.episodes), ids(baseline.episodes), request.limit, experiment.seed, `${episodeId}:${request.query.description}`);
  const byId = new Map([...baseline.episodes, ...memory.episodes].map((e) => [e.id, e]));
  const episodes = drafted.map((d) => byId.get(d.id) as ScoredEpisode);
  return { lists: { episodes, warnings: memory.warnings, terms: memory.terms }, teams: drafted.map((d) => d.team) };
}

const ids = (episodes: readonly ScoredEpisode[]) => episodes.map((e) => e.id);

/** What a control ranking serves: nothing, the fixed formula's ranking, or the same candidates by BM25 alone. */
async function rankControl(deps: RetrievalDeps, tenantId: string, request: EpisodeRetrievalRequest, control: ControlRanking): Promise<RankedEpisodes> {
  if (control === 'nothing') return { episodes: [], warnings: [], terms: { terms: [], weights: [] } };
  if (control === 'fixed_formula') return rankEpisodeRetrieval(deps, tenantId, request, { model: null });
  const all = await rankEpisodeRetrieval(deps, tenantId, request, { model: null, allCandidates: true });
  // BM25 over everything a run left: its task, its work and its change, with nothing else.
  const bm25 = (e: ScoredEpisode) => e.taskText + e.work + e.change;
  const episodes = [...all.episodes].sort((a, b) => bm25(b) - bm25(a) || (a.id < b.id ? -1 : 1)).slice(0, request.limit);
  return { episodes, warnings: all.warnings, terms: all.terms };
}
