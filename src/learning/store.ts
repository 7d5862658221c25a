// Experience at the end of an episode: loads what reward, reflection and pattern extraction read,
// and stores the reward and reflection in the ending's own transaction (finishEpisode calls it for
// every ending that has an outcome: complete, fail, converge, budget and deadline stops).
import type pg from 'pg';
import type { EpisodesRow } from '../db/rows.ts';
import { Params, queryRows, unnestAs } from '../db/sql.ts';
import type { Complexity } from '../episodes/limits.ts';
import type { Outcome } from '../episodes/outcome.ts';
import { contentHash } from '../ledger/format/hash.ts';
import { shellCommandOf } from '../steps/command.ts';
import type { StopReason } from '../stops/stop-reason.ts';
import { type ContextFacts, type Critique, errorNames, type StepFacts, type StepResultKind } from './facts.ts';
import { type EpisodeObservation, observeEpisode, type TaskEpisode } from './patterns.ts';
import { generateReflection, type Reflection } from './reflection.ts';
import { computeReward, type Reward } from './reward.ts';

/** none: no candidates, so no extraction runs; pending → queued → done, or skipped (queue full). */
export type LearningState = 'none' | 'pending' | 'queued' | 'done' | 'skipped';

export interface EpisodeFacts {
  id: string;
  tenantId: string;
  workItemId: string | null;
  status: string;
  agent: string | null;
  taskDescription: string;
  outcome: Outcome | null;
  stopReason: StopReason | null;
  complexity: Complexity;
  context: ContextFacts;
  critique: Critique | null;
  metadata: Record<string, unknown>;
  /** Null for an imported run without times: nothing is credited or blamed on its speed. */
  durationMs: number | null;
  steps: StepFacts[];
  rewardNormalized: number | null;
  learningState: LearningState | null;
}

/** Characters of a failed step's message and output read for the error names it shows. */
const ERROR_TEXT_CHARS = 4000;
/** Parameters larger than this are a file tool's content, not a command: procedures do not read them. */
const COMMAND_PARAMETER_BYTES = 16_384;

export const EPISODE_FACT_COLUMNS = `id, tenant_id, work_item_id, status, agent, task_description, outcome, stop_reason, complexity, domain, language, framework, tags,
  critique, metadata, started_at, ended_at, reward_score, learning_state, times_known`;

/** The columns of EPISODE_FACT_COLUMNS. */
export type EpisodeFactsSqlRow = Pick<
  EpisodesRow,
  | 'id'
  | 'tenant_id'
  | 'work_item_id'
  | 'status'
  | 'agent'
  | 'task_description'
  | 'outcome'
  | 'stop_reason'
  | 'complexity'
  | 'domain'
  | 'language'
  | 'framework'
  | 'tags'
  | 'critique'
  | 'metadata'
  | 'started_at'
  | 'ended_at'
  | 'reward_score'
  | 'learning_state'
  | 'times_known'
>;

/** The episode and its steps as the learning rules see them; lock: hold the row until commit. */
export async function loadEpisodeFacts(client: pg.PoolClient, tenantId: string, episodeId: string, lock = false): Promise<EpisodeFacts | null> {
  const p = new Params();
  const sql = `SELECT ${EPISODE_FACT_COLUMNS} FROM episodes WHERE tenant_id = ${p.add(tenantId)} AND id = ${p.add(episodeId)}${lock ? ' FOR UPDATE' : ''}`;
  const [r] = await queryRows<EpisodeFactsSqlRow>(client, sql, p);
  return r ? episodeFactsOf(client, r) : null;
}

/**
 * The facts of an episode whose row the caller read in this transaction (an ending's update
 * returns it, so the row is not read again): its steps are read, unless the caller read them
 * already (readStepFacts, for a batch of endings).
 */
export async function episodeFactsOf(client: pg.PoolClient, r: EpisodeFactsSqlRow, stepRows?: readonly StepFactsSqlRow[]): Promise<EpisodeFacts> {
  const steps = stepRows ?? (await readStepFacts(client, [r.id])).get(r.id) ?? [];
  const ended = r.ended_at ?? new Date();
  const critique = r.critique as Critique | null;
  return {
    id: r.id,
    tenantId: r.tenant_id,
    workItemId: r.work_item_id,
    status: r.status,
    agent: r.agent,
    taskDescription: r.task_description,
    outcome: r.outcome as Outcome | null,
    stopReason: r.stop_reason as StopReason | null,
    complexity: r.complexity as Complexity,
    context: contextOf(r),
    critique: critique ? { ...critique, virtueScores: critique.virtueScores ?? [] } : null,
    metadata: (r.metadata ?? {}) as Record<string, unknown>,
    durationMs: r.times_known === false ? null : ended.getTime() - r.started_at.getTime(),
    steps: steps.map(toStepFacts),
    rewardNormalized: r.reward_score,
    learningState: r.learning_state as LearningState | null,
  };
}

function contextOf(r: { domain: string | null; language: string | null; framework: string | null; tags: string[] | null }): ContextFacts {
  return { domain: r.domain, language: r.language, framework: r.framework, tags: r.tags ?? [] };
}

/** The steps the learning rules read of these episodes, in step order (one statement for all of them). */
export async function readStepFacts(client: pg.PoolClient, episodeIds: readonly string[]): Promise<Map<string, StepFactsSqlRow[]>> {
  const s = new Params();
  const rows = await queryRows<StepFactsSqlRow & { episode_id: string }>(
    client,
    `SELECT episode_id, step_number, kind, tool, result_kind, latency_ms, tokens, result->>'errorClass' AS error_class,
            CASE WHEN octet_length(parameters::text) <= ${COMMAND_PARAMETER_BYTES} THEN parameters END AS parameters,
            CASE WHEN result_kind IN ('error', 'timeout') THEN left(concat_ws(' ', result->>'message', result->>'output', observation), ${ERROR_TEXT_CHARS}) END AS error_text
       FROM steps WHERE episode_id = ANY(${s.add(episodeIds)}::uuid[]) ORDER BY episode_id, step_number`,
    s,
  );
  const byEpisode = new Map<string, StepFactsSqlRow[]>(episodeIds.map((id) => [id, []]));
  for (const row of rows) byEpisode.get(row.episode_id)?.push(row);
  return byEpisode;
}

/** A step row of readStepFacts' query. */
export interface StepFactsSqlRow {
  step_number: number;
  kind: string;
  tool: string | null;
  result_kind: string | null;
  latency_ms: number | null;
  tokens: number | null;
  error_class: string | null;
  error_text: string | null;
  parameters: unknown;
}

function toStepFacts(r: StepFactsSqlRow): StepFacts {
  return {
    stepNumber: r.step_number,
    kind: r.kind,
    tool: r.tool,
    resultKind: (r.result_kind as StepResultKind | null) ?? null,
    latencyMs: r.latency_ms,
    tokens: r.tokens,
    errorClass: r.error_class,
    errorNames: errorNames(r.error_text),
    command: shellCommandOf(r.parameters),
  };
}

export function rewardOf(facts: EpisodeFacts, outcome: Outcome, patternsDiscovered: number): Reward {
  return computeReward({
    outcome,
    complexity: facts.complexity,
    steps: facts.steps,
    durationMs: facts.durationMs,
    critique: facts.critique,
    patternsDiscovered,
    metadata: facts.metadata,
  });
}

export function patternEpisodeOf(facts: EpisodeFacts, outcome: Outcome, reward: number): TaskEpisode {
  return { description: facts.taskDescription, agent: facts.agent, outcome, context: facts.context, steps: facts.steps, reward };
}

/** What the ending's ledger event says about the experience: the stored values can be checked against it. */
export interface ExperienceSummary {
  reward: number;
  rewardHash: string;
  reflectionHash: string;
  patternCandidates: number;
  extraction: LearningState | null;
}

/** Patterns this episode produced or confirmed: the observations its extraction kept. */
async function patternsDiscovered(client: pg.PoolClient, episodeId: string): Promise<number> {
  const p = new Params();
  const rows = await queryRows<{ n: number }>(client, `SELECT count(*)::int AS n FROM pattern_episodes WHERE episode_id = ${p.add(episodeId)} AND kept`, p);
  return rows[0]?.n ?? 0;
}

export interface ExperienceRefresh {
  /** 'decide' sets pending or none by whether the episode has pattern candidates; a state sets it; absent keeps it. */
  learningState?: LearningState | 'decide';
  /** The facts when the caller holds them, read under its lock in this transaction (extraction). */
  facts?: EpisodeFacts;
  /** Known to the caller: an ending has none, since extraction runs only after it. Absent: counted. */
  patternsDiscovered?: number;
  /** Set: the experience is computed and joins this list, which the caller stores (storeExperiences) before commit; unset: stored here. */
  storeWith?: PendingExperience[];
}

/** An experience computed and not stored yet (refreshExperience's storeWith). */
export type PendingExperience = ReturnType<typeof experienceOf>;

export interface RefreshedExperience {
  summary: ExperienceSummary;
  /** The facts it was computed from, with the reward and learning state it stored. */
  facts: EpisodeFacts;
  /** The observation its candidate count came from: the caller's, or made here with the reward it stored. */
  observation: EpisodeObservation;
}

/**
 * Computes and stores the reward (counting the patterns extraction kept so far) and the reflection
 * of an episode that has an outcome, in the caller's transaction. Runs when the episode ends, when a
 * critique arrives afterwards, and after pattern extraction.
 */
export async function refreshExperience(
  client: pg.PoolClient,
  tenantId: string,
  episodeId: string,
  options: ExperienceRefresh = {},
): Promise<RefreshedExperience | null> {
  const facts = options.facts ?? (await loadEpisodeFacts(client, tenantId, episodeId));
  if (!facts?.outcome) return null;
  const discovered = options.patternsDiscovered ?? (await patternsDiscovered(client, episodeId));
  const [experience] = await refreshExperiences(client, [{ facts, learningState: options.learningState, patternsDiscovered: discovered }], options.storeWith);
  return experience ?? null;
}

/**
 * refreshExperience for several episodes whose facts and discovered patterns the caller holds (a
 * batch's extraction): one update for all of them. Their rows are the caller's, locked in this
 * transaction, so the update takes no lock in another order. Episodes without an outcome are skipped.
 */
export async function refreshExperiences(
  client: pg.PoolClient,
  episodes: ReadonlyArray<{
    facts: EpisodeFacts;
    learningState?: LearningState | 'decide' | undefined;
    patternsDiscovered: number;
    /** The caller's observation of the episode (extraction's): its candidates are counted, not observed again (they do not depend on the reward). */
    observation?: EpisodeObservation;
  }>,
  storeWith?: PendingExperience[],
): Promise<RefreshedExperience[]> {
  const computed = episodes.flatMap((e) =>
    e.facts.outcome ? [experienceOf(e.facts, e.facts.outcome, e.learningState, e.patternsDiscovered, e.observation)] : [],
  );
  if (storeWith) storeWith.push(...computed);
  else await storeExperiences(client, computed);
  return computed.map(({ summary, facts, observation }) => ({ summary, facts, observation }));
}

/** Stores computed experiences in one statement; their rows are the caller's, locked in this transaction. */
export async function storeExperiences(client: pg.PoolClient, computed: readonly PendingExperience[]): Promise<void> {
  if (computed.length === 0) return;
  const p = new Params();
  const rows = unnestAs(p, 'u', {
    id: [computed.map((c) => c.facts.id), 'uuid'],
    reward: [computed.map((c) => JSON.stringify(c.reward)), 'jsonb'],
    score: [computed.map((c) => c.reward.normalized), 'float8'],
    reflection: [computed.map((c) => JSON.stringify(c.reflection)), 'jsonb'],
    state: [computed.map((c) => c.summary.extraction), 'text'],
  });
  await client.query(
    `UPDATE episodes e SET reward = u.reward, reward_score = u.score, reflection = u.reflection, learning_state = u.state FROM ${rows} WHERE e.id = u.id`,
    p.values,
  );
}

/** The reward, reflection and learning state an episode's facts give (pure). */
function experienceOf(
  facts: EpisodeFacts,
  outcome: Outcome,
  learningState: ExperienceRefresh['learningState'],
  discovered: number,
  observed: EpisodeObservation | undefined,
) {
  const reward = rewardOf(facts, outcome, discovered);
  const reflection: Reflection = generateReflection({
    outcome,
    steps: facts.steps,
    durationMs: facts.durationMs,
    critique: facts.critique,
    stopReason: facts.stopReason,
  });
  const observation = observed ?? observeEpisode(patternEpisodeOf(facts, outcome, reward.normalized));
  const candidates = observation.candidates.length;
  const state = learningState === 'decide' ? (candidates > 0 ? 'pending' : 'none') : (learningState ?? facts.learningState);
  const summary: ExperienceSummary = {
    reward: reward.normalized,
    rewardHash: contentHash(reward),
    reflectionHash: contentHash(reflection),
    patternCandidates: candidates,
    extraction: state,
  };
  return { reward, reflection, summary, observation, facts: { ...facts, rewardNormalized: reward.normalized, learningState: state } };
}
