// runAgentEpisode when planning fails: the episode it started is failed, not left running. Each
// test runs under its own agent name and asserts on the one episode it started, so an episode
// another test failed cannot make it pass.
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { type AgentRuntime, type EpisodicClient, runAgentEpisode } from '../../src/index.ts';
import { useApp } from '../support/app.ts';
import { clientFor } from './support.ts';

let api: EpisodicClient;
useApp((app) => {
  api = clientFor(app, app.keys.write);
});

function runtimeWhosePlan(plan: AgentRuntime['plan']): AgentRuntime {
  return { plan, observe: () => null, executePlanStep: () => [] };
}

/** The episodes this agent name has, with what a failure records. */
async function episodesOf(agent: string) {
  const page = await api.episodes({ filter: { agent } });
  return page.edges.map((e) => e.node);
}

it('fails the episode when the planner throws, and rethrows', async () => {
  const agent = `planner-throws-${randomUUID()}`;
  const runtime = runtimeWhosePlan(() => {
    throw new Error('planner model offline');
  });
  await expect(runAgentEpisode(api, { task: { taskDescription: 't', taskType: 'navigation', agent }, runtime })).rejects.toThrow('planner model offline');
  const episodes = await episodesOf(agent);
  expect(episodes).toHaveLength(1);
  expect(episodes[0]).toMatchObject({ status: 'FAILED', stepCount: 0, outcome: { kind: 'FAILURE', reason: 'planning failed: planner model offline' } });
});

it('fails the episode on an invalid plan when failFastOnInvalidPlan is on', async () => {
  const agent = `planner-invalid-${randomUUID()}`;
  const runtime = runtimeWhosePlan(() => ({ nope: true }) as never);
  await expect(runAgentEpisode(api, { task: { taskDescription: 't', taskType: 'navigation', agent }, runtime })).rejects.toThrow(/invalid plan/);
  const episodes = await episodesOf(agent);
  expect(episodes).toHaveLength(1);
  expect(episodes[0]).toMatchObject({
    status: 'FAILED',
    outcome: { kind: 'FAILURE', reason: 'planning failed: planner returned an invalid plan (no steps array)' },
  });
});
