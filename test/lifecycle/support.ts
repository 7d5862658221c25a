// Shared GraphQL documents and SQL probes for the lifecycle tests (issue 3). Every rule is driven
// through the HTTP API; SQL is used only to look at what was (or was not) written.
import { expect } from 'vitest';
import { errors as errorSelection } from '../../src/client/documents.ts';
import type { TestApp } from '../support/app.ts';

export { useApp } from '../support/app.ts';

/** __typename, the message, and the fields of each error type: the client's own selections. */
export const errorFields = errorSelection;

const TRANSITION_ERRORS = errorFields('IllegalTransitionError', 'InputLimitError', 'NotFoundError');

export const EPISODE_FIELDS = `
  id status phase episodeNumber stepCount usedTokens usedToolCalls usedCost attempt maxAttempts mode onBudgetExhausted
  taskDescription taskType agent dedupeKey goalSpec metadata blockedReason approvalRequest
  startedAt endedAt deadlineAt
  context { language framework complexity domain tags }
  outcome { kind verdict artifacts completed failed reason details }
  stopReason { kind resource reason recoverable isSuccessful canContinue }
  budgetUsage { resource used limit remaining fraction }
  critique { verdict score feedback virtueScores { name score } }
  workItem { id lastEpisodeNumber }
  lease { id }
`;

const STEP_RESULT_FIELDS = `index status stepNumber reason message step { id stepNumber kind sideEffectKey parameters argsHash contentHash tokens }`;

export const START = `mutation($input: StartEpisodeInput!) {
  startEpisode(input: $input) { ${errorFields('IdempotencyConflictError', 'InputLimitError', 'LeaseError', 'LoopStoppedError', 'NotFoundError')} ... on StartEpisodePayload { deduplicated episode { ${EPISODE_FIELDS} } } }
}`;

export const LOG_STEPS = `mutation($id: ID!, $steps: [StepInput!]!) {
  logSteps(episodeId: $id, steps: $steps) {
    ${TRANSITION_ERRORS}
    ... on LogStepsPayload { accepted duplicates rejected budgetExhausted results { ${STEP_RESULT_FIELDS} } episode { ${EPISODE_FIELDS} } }
  }
}`;

export const LOG_STEP = `mutation($id: ID!, $step: StepInput!) {
  logStep(episodeId: $id, step: $step) {
    ${TRANSITION_ERRORS}
    ... on LogStepPayload { budgetExhausted result { ${STEP_RESULT_FIELDS} } episode { ${EPISODE_FIELDS} } }
  }
}`;

const EPISODE_PAYLOAD = `${TRANSITION_ERRORS} ... on EpisodePayload { episode { ${EPISODE_FIELDS} } }`;
const AMOUNTS = '{ episodes toolCalls tokens wallMs }';
const STOP_FIELDS = 'kind resource reason recoverable isSuccessful canContinue';
const FINISH_PAYLOAD = `${TRANSITION_ERRORS} ... on FinishEpisodePayload {
  episode { ${EPISODE_FIELDS} }
  leaseCharge { ok exhausted remainingEpisodes remainingToolCalls remainingTokens remainingWallMs }
  charge: leaseCharge { overdrawn hold ${AMOUNTS} charged ${AMOUNTS} released ${AMOUNTS} }
  stopCondition { ${STOP_FIELDS} }
}`;

export const BLOCK = `mutation($id: ID!, $reason: String!, $approvalRequest: JSON) {
  blockEpisode(episodeId: $id, reason: $reason, approvalRequest: $approvalRequest) { ${EPISODE_PAYLOAD} }
}`;
export const RESUME = `mutation($id: ID!, $approved: Boolean!, $decidedBy: String, $comment: String) {
  resumeEpisode(episodeId: $id, approved: $approved, decidedBy: $decidedBy, comment: $comment) { ${EPISODE_PAYLOAD} }
}`;
export const CHECKPOINT = `mutation($id: ID!, $label: String, $state: JSON!) {
  saveCheckpoint(episodeId: $id, label: $label, state: $state) { ${EPISODE_PAYLOAD} }
}`;
export const CRITIQUE = `mutation($id: ID!, $verdict: String!, $score: Float, $feedback: String, $virtueScores: [VirtueScoreInput!]) {
  recordCritique(episodeId: $id, verdict: $verdict, score: $score, feedback: $feedback, virtueScores: $virtueScores) { ${EPISODE_PAYLOAD} }
}`;
export const COMPLETE = `mutation($id: ID!, $outcome: OutcomeInput!) { completeEpisode(episodeId: $id, outcome: $outcome) { ${FINISH_PAYLOAD} } }`;
export const FAIL = `mutation($id: ID!, $reason: String!, $recoverable: Boolean) {
  failEpisode(episodeId: $id, reason: $reason, recoverable: $recoverable) { ${FINISH_PAYLOAD} }
}`;
export const CANCEL = `mutation($id: ID!, $reason: String) { cancelEpisode(episodeId: $id, reason: $reason) { ${FINISH_PAYLOAD} } }`;
export const ESCALATE = `mutation($id: ID!, $reason: String!) { escalateEpisode(episodeId: $id, reason: $reason) { ${FINISH_PAYLOAD} } }`;

const LEASE_FIELDS = `id issuer holder scope expiresAt revokedAt
  budget ${AMOUNTS} consumed ${AMOUNTS} reserved ${AMOUNTS} remaining ${AMOUNTS}
  workItem { id } parent { id } children { id }`;

const WORK_ITEM_FIELDS = `id title lastEpisodeNumber maxEpisodes stopCondition { ${STOP_FIELDS} } stoppedAt`;

export const CREATE_WORK_ITEM = `mutation($title: String!, $description: String, $maxEpisodes: Int) {
  createWorkItem(title: $title, description: $description, maxEpisodes: $maxEpisodes) { ${errorFields('InputLimitError')} ... on WorkItemPayload { workItem { ${WORK_ITEM_FIELDS} } } }
}`;
export const RESUME_WORK_ITEM = `mutation($id: ID!, $maxEpisodes: Int) {
  resumeWorkItem(id: $id, maxEpisodes: $maxEpisodes) { ${errorFields('InputLimitError', 'NotFoundError')} ... on WorkItemPayload { workItem { ${WORK_ITEM_FIELDS} } } }
}`;
export const ISSUE_LEASE = `mutation($workItemId: ID!, $parentLeaseId: ID, $scope: [String!], $expiresAt: DateTime!, $budget: LeaseBudgetInput, $holder: String! = "agent-1") {
  issueLease(workItemId: $workItemId, parentLeaseId: $parentLeaseId, issuer: "orchestrator", holder: $holder, scope: $scope, expiresAt: $expiresAt, budget: $budget) {
    ${errorFields('InputLimitError', 'LeaseError', 'NotFoundError')} ... on LeasePayload { lease { ${LEASE_FIELDS} } }
  }
}`;
export const REVOKE_LEASE = `mutation($id: ID!) { revokeLease(id: $id) { ${errorFields('NotFoundError')} ... on LeasePayload { lease { ${LEASE_FIELDS} } } } }`;
export const LEASE = `query($id: ID!) { lease(id: $id) { ${errorFields('NotFoundError')} ... on Lease { ${LEASE_FIELDS} } } }`;
export const WORK_ITEM = `query($id: ID!) { workItem(id: $id) { ${errorFields('NotFoundError')} ... on WorkItem { ${WORK_ITEM_FIELDS} episodes(first: 50) { edges { node { id episodeNumber } } } } } }`;
export const EPISODE = `query($id: ID!) { episode(id: $id) { ${errorFields('NotFoundError')} ... on Episode { ${EPISODE_FIELDS} } } }`;

export type { Json } from '../support/json.ts';

import type { Json } from '../support/json.ts';

/** A minimal valid start input; `extra` overrides. */
export function startInput(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { taskDescription: 'Fix the failing test', taskType: 'code', ...extra };
}

export function inHours(hours: number): string {
  return new Date(Date.now() + hours * 3_600_000).toISOString();
}

export function client(t: TestApp, token?: string) {
  const tok = token ?? t.keys.write;
  /** Runs a document and returns the single root field; GraphQL-level errors fail the test. */
  async function call(query: string, variables: Record<string, unknown> = {}): Promise<Json> {
    const res = await t.gql(query, variables, tok);
    if (res.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(res.errors)}`);
    const values = Object.values(res.data ?? {});
    expect(values).toHaveLength(1);
    return values[0];
  }
  async function ok(query: string, variables: Record<string, unknown>, typename: string): Promise<Json> {
    const result = await call(query, variables);
    if (result.__typename !== typename) throw new Error(`expected ${typename}, got ${JSON.stringify(result)}`);
    return result;
  }
  return {
    call,
    ok,
    start: (input: Record<string, unknown>) => call(START, { input }),
    /** Starts an episode and returns it (the start must succeed). */
    startOk: async (input: Record<string, unknown> = startInput()) => (await ok(START, { input }, 'StartEpisodePayload')).episode,
    logSteps: (id: string, steps: Json[]) => call(LOG_STEPS, { id, steps }),
    logStepsOk: (id: string, steps: Json[]) => ok(LOG_STEPS, { id, steps }, 'LogStepsPayload'),
    logStep: (id: string, step: Json) => call(LOG_STEP, { id, step }),
    block: (id: string, reason = 'needs approval', approvalRequest: Json = null) => call(BLOCK, { id, reason, approvalRequest }),
    resume: (id: string, approved = true, decidedBy: string | null = 'reviewer', comment: string | null = null) =>
      call(RESUME, { id, approved, decidedBy, comment }),
    checkpoint: (id: string, state: Json = { cursor: 1 }, label: string | null = 'cp') => call(CHECKPOINT, { id, state, label }),
    critique: (id: string, verdict = 'good', score: number | null = 0.8, virtueScores: Json[] = []) =>
      call(CRITIQUE, { id, verdict, score, feedback: 'fine', virtueScores }),
    complete: (id: string, outcome: Json = { kind: 'SUCCESS', verdict: 'done', artifacts: ['a.txt'] }) => call(COMPLETE, { id, outcome }),
    fail: (id: string, reason = 'tool crashed', recoverable = false) => call(FAIL, { id, reason, recoverable }),
    cancel: (id: string, reason: string | null = 'not needed') => call(CANCEL, { id, reason }),
    escalate: (id: string, reason = 'needs a human') => call(ESCALATE, { id, reason }),
    episode: (id: string) => call(EPISODE, { id }),
    createWorkItem: async (title = 'work', maxEpisodes: number | null = null) =>
      (await ok(CREATE_WORK_ITEM, { title, maxEpisodes }, 'WorkItemPayload')).workItem,
    resumeWorkItem: (id: string, maxEpisodes: number | null = null) => call(RESUME_WORK_ITEM, { id, maxEpisodes }),
    issueLease: (vars: Record<string, unknown>) => call(ISSUE_LEASE, { expiresAt: inHours(1), ...vars }),
    issueLeaseOk: async (vars: Record<string, unknown>) => (await ok(ISSUE_LEASE, { expiresAt: inHours(1), ...vars }, 'LeasePayload')).lease,
    revokeLease: (id: string) => call(REVOKE_LEASE, { id }),
    lease: (id: string) => call(LEASE, { id }),
    workItem: (id: string) => call(WORK_ITEM, { id }),
  };
}

export type Client = ReturnType<typeof client>;

/** A step with the given overrides. */
export function step(extra: Record<string, unknown> = {}): Json {
  return { kind: 'tool_call', tool: 'shell', action: 'ls', result: { kind: 'SUCCESS', output: 'ok' }, ...extra };
}

export function steps(n: number, extra: (i: number) => Record<string, unknown> = () => ({})): Json[] {
  return Array.from({ length: n }, (_, i) => step(extra(i)));
}

export interface Counts {
  episodes: number;
  steps: number;
  checkpoints: number;
  ledger: number;
  workItems: number;
  leases: number;
}

/**
 * Written after the call's commit by the learning queue (src/learning/jobs.ts), at a time no
 * lifecycle test controls: an ending that leaves extraction pending gets one of them later. The
 * lifecycle tests are about the calls' own events and ignore these; test/learning and
 * test/import/learning-queue.test.ts wait for them.
 */
export const LEARNING_EVENTS = ['patterns.extracted', 'patterns.extraction_skipped'];

/** Rows a tenant owns in every lifecycle table (the ledger without the learning queue's events). */
export async function counts(t: TestApp, tenantId: string): Promise<Counts> {
  const { rows } = await t.services.db.pool.query(
    `SELECT (SELECT count(*) FROM episodes WHERE tenant_id = $1)::int AS episodes,
            (SELECT count(*) FROM steps WHERE tenant_id = $1)::int AS steps,
            (SELECT count(*) FROM checkpoints WHERE tenant_id = $1)::int AS checkpoints,
            (SELECT count(*) FROM ledger_events WHERE tenant_id = $1 AND type <> ALL($2))::int AS ledger,
            (SELECT count(*) FROM work_items WHERE tenant_id = $1)::int AS "workItems",
            (SELECT count(*) FROM leases WHERE tenant_id = $1)::int AS leases`,
    [tenantId, LEARNING_EVENTS],
  );
  return rows[0];
}

/** The whole stored row of an episode, to prove a refused action changed nothing. */
export async function episodeRow(t: TestApp, id: string): Promise<Record<string, unknown>> {
  const { rows } = await t.services.db.pool.query('SELECT * FROM episodes WHERE id = $1', [id]);
  expect(rows).toHaveLength(1);
  return rows[0];
}

export async function stepNumbers(t: TestApp, episodeId: string): Promise<number[]> {
  const { rows } = await t.services.db.pool.query('SELECT step_number FROM steps WHERE episode_id = $1 ORDER BY step_number', [episodeId]);
  return rows.map((r) => r.step_number);
}

/** The ledger's event types in order, for a tenant or one episode, without the learning queue's events. */
export async function ledgerTypes(t: TestApp, tenantId: string, episodeId?: string): Promise<string[]> {
  const { rows } = episodeId
    ? await t.services.db.pool.query('SELECT type FROM ledger_events WHERE tenant_id = $1 AND episode_id = $2 AND type <> ALL($3) ORDER BY seq', [
        tenantId,
        episodeId,
        LEARNING_EVENTS,
      ])
    : await t.services.db.pool.query('SELECT type FROM ledger_events WHERE tenant_id = $1 AND type <> ALL($2) ORDER BY seq', [tenantId, LEARNING_EVENTS]);
  return rows.map((r) => r.type);
}

export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
