// A simulated population of agents for the memory experiments (issue 54): the agents are the
// fake, the server is real. Each run belongs to a task family (its domain); it asks
// relevantEpisodes with its episode id, and succeeds with probability `helped` when what it was
// served holds a past run of its family, else `unhelped`. A success reports the family's file as
// its artifact and names the retrieval it used, so the completion credits exactly the served runs
// of its family (what interleaving counts). Used by test/experiments/ and bench/impact.ts.
import type { Json } from './json.ts';

/** Runs a GraphQL document and answers its data; GraphQL errors throw. */
export type Call = (query: string, variables: Record<string, unknown>) => Promise<Json>;

export const FAMILIES = 6;
const WORDS = 'parser cache render queue index schema session upload export billing search import report widget config plugin'.split(' ');
const familyDomain = (family: number) => `family-${family}`;
const familyFile = (family: number) => `src/family_${family}/core.py`;

/** A seeded generator (mulberry32): the same seed draws the same population. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Shared words only: what tells a family apart is its domain, which BM25 over the text does not read. */
function description(random: () => number): string {
  const words = Array.from({ length: 5 }, () => WORDS[Math.floor(random() * WORDS.length)] as string);
  return `Change the ${words.join(' ')} handling`;
}

const START = `mutation($input: StartEpisodeInput!) { startEpisode(input: $input) { __typename ... on StartEpisodePayload { episode { id } } } }`;
const RELEVANT = `query($task: RetrievalTaskInput!, $episodeId: ID) {
  relevantEpisodes(task: $task, limit: 5, episodeId: $episodeId) { __typename ... on RelevantEpisodes { retrievalId episodes { episode { context { domain } } } } }
}`;
const COMPLETE = `mutation($id: ID!, $outcome: OutcomeInput!, $used: [ID!]) {
  completeEpisode(episodeId: $id, outcome: $outcome, usedRetrievals: $used) { __typename }
}`;
const START_EXPERIMENT = `mutation($input: StartExperimentInput!) { startExperiment(input: $input) { __typename ... on Experiment { id } } }`;
const PAUSE = `mutation($id: ID!) { pauseExperiment(id: $id) { __typename } }`;
export const MEMORY_IMPACT = `query($id: ID!) {
  memoryImpact(experimentId: $id) { __typename ... on MemoryImpact {
    verdict method difference differenceLow differenceHigh pValue wins losses ties sentence
    arms { arm assigned ended successes successRate meanReward meanSteps } unasked { arm assigned ended }
  } }
}`;

/** Outcome draws: plain Bernoulli, or balanced blocks (exactly round(10 p) successes in each 10 runs of a condition, in seeded order). */
export type Draws = 'bernoulli' | 'balanced';

export interface Population {
  /** The agent name: experiments are scoped to it, so populations of one tenant do not mix. */
  agent: string;
  seed: number;
  helped: number;
  unhelped: number;
  draws: Draws;
}

interface Agent {
  random: () => number;
  succeeds(helped: boolean): boolean;
}

function agentOf(population: Population): Agent {
  const random = seededRandom(population.seed);
  const blocks = new Map<boolean, boolean[]>();
  const balanced = (helped: boolean) => {
    const block = blocks.get(helped) ?? [];
    if (block.length === 0) {
      const successes = Math.round(10 * (helped ? population.helped : population.unhelped));
      block.push(...Array.from({ length: 10 }, (_, i) => i < successes).sort(() => random() - 0.5));
      blocks.set(helped, block);
    }
    return block.pop() as boolean;
  };
  return {
    random,
    succeeds: (helped) => (population.draws === 'balanced' ? balanced(helped) : random() < (helped ? population.helped : population.unhelped)),
  };
}

export interface RunRecord {
  helped: boolean;
  success: boolean;
}

/** One run: start, ask, act on what was served, complete. */
async function runOnce(call: Call, population: Population, agent: Agent, family: number): Promise<RunRecord> {
  const context = { domain: familyDomain(family) };
  const taskDescription = description(agent.random);
  const started = await call(START, { input: { taskDescription, taskType: 'change', agent: population.agent, context } });
  const id = started.startEpisode.episode.id as string;
  const served = (await call(RELEVANT, { task: { description: taskDescription, taskType: 'change', context }, episodeId: id })).relevantEpisodes;
  const helped = (served.episodes as Json[]).some((e) => e.episode.context.domain === context.domain);
  const success = agent.succeeds(helped);
  const outcome = success ? { kind: 'SUCCESS', verdict: 'done', artifacts: [familyFile(family)] } : { kind: 'FAILURE', reason: 'tests still failing' };
  await call(COMPLETE, { id, outcome, used: helped ? [served.retrievalId] : [] });
  return { helped, success };
}

/** Past runs of every family, so the memory has something to serve (outside any experiment: their agent is none's scope). */
export async function seedHistory(call: Call, perFamily: number): Promise<void> {
  const population: Population = { agent: 'history', seed: 1, helped: 1, unhelped: 1, draws: 'bernoulli' };
  const agent = agentOf(population);
  for (let i = 0; i < perFamily * FAMILIES; i += 1) await runOnce(call, population, agent, i % FAMILIES);
}

export interface ExperimentPlan {
  kind: 'HOLDOUT' | 'INTERLEAVE';
  control: 'NOTHING' | 'FIXED_FORMULA' | 'BM25';
  controlShare?: number;
  minSample: number;
  runs: number;
  /** memoryImpact is read after every this many runs, to find when it first called the effect. */
  checkEvery: number;
  /** Runs at a time (the server's concurrency). */
  parallel: number;
  /** End once memoryImpact has called the effect (a benchmark counting the runs it needed). */
  stopWhenCalled?: boolean;
}

export interface ExperimentResult {
  experimentId: string;
  impact: Json;
  runs: RunRecord[];
  /** The runs after which memoryImpact first said RAISED (null: never). */
  calledAfter: number | null;
}

export async function runExperiment(call: Call, population: Population, plan: ExperimentPlan): Promise<ExperimentResult> {
  const input = {
    name: `${population.agent} ${plan.kind.toLowerCase()}`,
    kind: plan.kind,
    control: plan.control,
    controlShare: plan.controlShare ?? 0.5,
    minSample: plan.minSample,
    seed: `seed-${population.seed}`,
    scope: { agent: population.agent },
  };
  const experimentId = (await call(START_EXPERIMENT, { input })).startExperiment.id as string;
  const agent = agentOf(population);
  const runs: RunRecord[] = [];
  let calledAfter: number | null = null;
  let impact: Json = null;
  while (runs.length < plan.runs && !(plan.stopWhenCalled && calledAfter !== null)) {
    // A batch never runs past the next reading of memoryImpact.
    const batch = Math.min(plan.parallel, plan.runs - runs.length, plan.checkEvery - (runs.length % plan.checkEvery));
    const families = Array.from({ length: batch }, () => Math.floor(agent.random() * FAMILIES));
    runs.push(...(await Promise.all(families.map((family) => runOnce(call, population, agent, family)))));
    if (runs.length % plan.checkEvery === 0 || runs.length === plan.runs) {
      impact = (await call(MEMORY_IMPACT, { id: experimentId })).memoryImpact;
      if (calledAfter === null && impact.verdict === 'RAISED') calledAfter = runs.length;
    }
  }
  await call(PAUSE, { id: experimentId });
  return { experimentId, impact, runs, calledAfter };
}
