// GraphQL documents and helpers for the learning and retrieval tests (issue 5). Everything is driven
// through the HTTP API; SQL only looks at what was written (ledger events, stored rows).
import { expect } from 'vitest';
import { errorFields, type Json, client as lifecycleClient, startInput } from '../lifecycle/support.ts';
import type { TenantKeys, TestApp } from '../support/app.ts';

export const REWARD = 'reward { total normalized base efficiency complexityBonus qualityMultiplier learningBonus }';
export const REFLECTION = 'reflection { successes improvements insights }';
const PATTERN_FIELDS =
  'id key kind signature description scope cue changedFile occurrences successes successRate baselineRate lift summary failedInstead meanReward effectiveness status supersededAt feedbackCredit context { domain language framework tags }';
const EXTRACTION = `extraction { mode candidates kept rejected { tooFewOccurrences noComparableEpisodes lowLift } activated confirmed revived superseded patterns { id key } }`;

export const COMPLETE = `mutation($id: ID!, $outcome: OutcomeInput!, $mode: ExtractPatternsMode, $used: [ID!]) {
  completeEpisode(episodeId: $id, outcome: $outcome, extractPatterns: $mode, usedRetrievals: $used) {
    ${errorFields('IllegalTransitionError', 'InputLimitError', 'NotFoundError')}
    ... on FinishEpisodePayload {
      episode { id status learningState feedbackCredit ${REWARD} ${REFLECTION} }
      ${EXTRACTION}
      feedback { retrievalIds target episodes patterns uses confirmed }
    }
  }
}`;

export const EPISODE = `query($id: ID!) { episode(id: $id) { ${errorFields('NotFoundError')} ... on Episode { id status learningState feedbackCredit ${REWARD} ${REFLECTION} } } }`;

const SCORE =
  'score { total evidence learned contributions { name value contribution } contextMatch reward similarity recency feedback feedbackUses feedbackResemblance textRank taskText work change trigramSimilarity }';
export const RELEVANT_EPISODES = `query($task: RetrievalTaskInput!, $limit: Int, $includeFailures: Boolean, $filter: RelevantEpisodeFilter) {
  relevantEpisodes(task: $task, limit: $limit, includeFailures: $includeFailures, filter: $filter) {
    ${errorFields('InputLimitError')}
    ... on RelevantEpisodes {
      retrievalId
      episodes { episode { id taskDescription status feedbackCredit reward { normalized } } ${SCORE} failed whatWentWrong }
      warnings { episode { id taskDescription status } ${SCORE} failed whatWentWrong }
    }
  }
}`;

export const RELEVANT_PATTERNS = `query($task: RetrievalTaskInput, $context: RetrievalContextInput, $limit: Int) {
  relevantPatterns(task: $task, context: $context, limit: $limit) {
    ${errorFields('InputLimitError')}
    ... on RelevantPatterns { retrievalId patterns { pattern { ${PATTERN_FIELDS} } score { total relevance strength lift feedback } } }
  }
}`;

export const PATTERNS = `query($filter: PatternFilter, $first: Int, $after: String) {
  patterns(filter: $filter, first: $first, after: $after) { edges { cursor node { ${PATTERN_FIELDS} } } pageInfo { hasNextPage endCursor } }
}`;

export const PATTERN = `query($id: ID!) {
  pattern(id: $id) { ${errorFields('NotFoundError')} ... on Pattern { ${PATTERN_FIELDS} episodes(first: 50) { edges { node { success reward kept episode { id } } } } } }
}`;

export const EXTRACT = `mutation($id: ID!) {
  extractEpisodePatterns(episodeId: $id) { ${errorFields('NotFoundError', 'InputLimitError')} ... on ExtractEpisodePatternsPayload { episode { id learningState ${REWARD} } ${EXTRACTION} } }
}`;

export const SUCCESS = { kind: 'SUCCESS', verdict: 'done', artifacts: ['result.txt'] };
export const FAILURE = { kind: 'FAILURE', reason: 'tests still failing', details: 'gave up' };

export const ok = (tool: string, extra: Json = {}) => ({
  kind: 'tool_call',
  tool,
  action: 'run',
  result: { kind: 'SUCCESS', output: 'ok' },
  latencyMs: 20,
  tokens: 10,
  ...extra,
});
export const err = (tool: string, errorClass = 'Boom') => ({
  kind: 'tool_call',
  tool,
  action: 'run',
  result: { kind: 'ERROR', message: 'failed', errorClass },
  latencyMs: 20,
  tokens: 10,
});

/** A new tenant of the app, and a learner acting for it. */
export async function learnerTenant(t: TestApp, name: string): Promise<{ keys: TenantKeys; l: Learner }> {
  const keys = await t.addTenant(name);
  return { keys, l: learner(t, keys) };
}

/** A GraphQL client on one tenant, with the learning documents. */
export function learner(t: TestApp, keys: TenantKeys = t.keys) {
  const api = lifecycleClient(t, keys.write);
  const reader = lifecycleClient(t, keys.read);
  async function run(
    options: {
      description?: string;
      taskType?: string;
      context?: Json;
      steps?: Json[];
      outcome?: Json;
      mode?: 'SYNC' | 'ASYNC';
      used?: string[];
      critique?: { score: number };
    } = {},
  ) {
    const episode = await api.startOk(
      startInput({ taskDescription: options.description ?? 'Fix the failing test', taskType: options.taskType ?? 'bugfix', context: options.context ?? {} }),
    );
    if (options.steps?.length) await api.logStepsOk(episode.id, options.steps);
    if (options.critique) await api.critique(episode.id, 'reviewed', options.critique.score);
    return complete(episode.id, options.outcome ?? SUCCESS, options.mode ?? 'SYNC', options.used);
  }
  async function complete(id: string, outcome: Json = SUCCESS, mode: 'SYNC' | 'ASYNC' = 'SYNC', used?: string[]) {
    const done = await api.call(COMPLETE, { id, outcome, mode, used });
    return done;
  }
  async function completeOk(id: string, outcome: Json = SUCCESS, mode: 'SYNC' | 'ASYNC' = 'SYNC', used?: string[]) {
    const done = await complete(id, outcome, mode, used);
    expect(done.__typename, JSON.stringify(done)).toBe('FinishEpisodePayload');
    return done;
  }
  return {
    api,
    /** Starts, journals and completes an episode; returns the FinishEpisodePayload. */
    run: async (options: Parameters<typeof run>[0] = {}) => {
      const done = await run(options);
      expect(done.__typename, JSON.stringify(done)).toBe('FinishEpisodePayload');
      return done;
    },
    complete,
    completeOk,
    episode: (id: string) => reader.call(EPISODE, { id }),
    relevant: async (task: Json, vars: Json = {}) => {
      // Retrievals record a receipt, a write: only a write key records one (docs/SECURITY.md, M3).
      const r = await api.call(RELEVANT_EPISODES, { task, ...vars });
      expect(r.__typename, JSON.stringify(r)).toBe('RelevantEpisodes');
      return r;
    },
    relevantRaw: (task: Json, vars: Json = {}) => api.call(RELEVANT_EPISODES, { task, ...vars }),
    /** task: {description, context}. */
    relevantPatterns: async (task: Json, limit = 10) => {
      const r = await api.call(RELEVANT_PATTERNS, { task, limit });
      expect(r.__typename, JSON.stringify(r)).toBe('RelevantPatterns');
      return r;
    },
    relevantPatternsRaw: (vars: Json) => api.call(RELEVANT_PATTERNS, vars),
    patterns: (filter: Json = null, first = 50, after: string | null = null) => reader.call(PATTERNS, { filter, first, after }),
    pattern: (id: string) => reader.call(PATTERN, { id }),
    extract: (id: string) => api.call(EXTRACT, { id }),
  };
}

export type Learner = ReturnType<typeof learner>;

export interface LedgerRow {
  seq: number;
  type: string;
  episodeId: string | null;
  payload: Json;
}

export async function ledger(t: TestApp, tenantId: string, type?: string): Promise<LedgerRow[]> {
  const { rows } = await t.services.db.pool.query(
    `SELECT seq::int AS seq, type, episode_id AS "episodeId", payload FROM ledger_events WHERE tenant_id = $1 ${type ? 'AND type = $2' : ''} ORDER BY seq`,
    type ? [tenantId, type] : [tenantId],
  );
  return rows;
}

/** Polls until fn returns a truthy value or the time is up (then fails). */
export async function eventually<T>(fn: () => Promise<T | null | undefined | false>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const ids = (list: Array<{ episode: { id: string } }>) => list.map((x) => x.episode.id);
