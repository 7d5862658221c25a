// runAgentEpisode (plan, execute, critique) against the real server with a fake runtime (planner + executor) and
// fake critics: trace steps are journaled with the world state before and after, the critique is
// recorded, and failing critics, virtue engines or executors never crash the loop.
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { type AgentRuntime, type EpisodicClient, type Json, type PlanStep, runAgentEpisode, type TraceStep, unwrap } from '../../src/index.ts';
import { type TestApp, useApp } from '../support/app.ts';
import { clientFor } from './support.ts';

let t: TestApp;
let api: EpisodicClient;
useApp((app) => {
  t = app;
  api = clientFor(t, t.keys.write);
});

const task = { taskDescription: 'Walk to the furnace', taskType: 'navigation', agent: 'fake-agent' };

/** The seed's FakeAgentRuntime: a plan of moves; each move is one trace step that changes the position. */
function fakeRuntime(moves: Array<{ x: number } | 'fail' | 'throw'>): AgentRuntime & { position: { x: number } } {
  let tick = 0;
  const position = { x: 0 };
  const world = (): Json => ({ tick: ++tick, position: { ...position }, dimension: 'overworld' });
  return {
    position,
    contextId: 'test_context',
    plannerName: 'fake_planner_v1',
    plan: () => ({ steps: moves.map((m) => ({ skill: 'test_move', params: typeof m === 'string' ? { x: -1, mode: m } : m })) }),
    observe: () => ({ tick, position: { ...position } }),
    techState: () => ({ stage: 'test_stage' }),
    executePlanStep(spec: PlanStep, index: number): TraceStep[] {
      const params = spec.params as { x: number; mode?: string };
      if (params.mode === 'throw') throw new Error('bot disconnected');
      const worldBefore = world();
      if (params.mode !== 'fail') position.x = params.x;
      return [
        {
          worldBefore,
          action: { type: 'move_to', params: { x: params.x } },
          result: params.mode === 'fail' ? { success: false, error: 'path blocked' } : { success: true, details: { stepIdx: index } },
          worldAfter: world(),
          meta: { skill: String(spec.skill), planStepIndex: index },
          tokens: 5,
        },
      ];
    },
  };
}

async function journal(episodeId: string) {
  return unwrap(await api.episodeSteps(episodeId, { first: 100 })).edges.map((e) => e.node);
}

describe('runAgentEpisode', () => {
  it('plans, executes into trace steps with world state, runs critic and virtues, and stores the experience', async () => {
    const runtime = fakeRuntime([{ x: 1 }, { x: 2 }]);
    const result = await runAgentEpisode(api, {
      task,
      goal: 'reach x=2',
      runtime,
      critic: { evaluate: (payload) => ({ verdict: 'good', score: 0.9, feedback: `saw ${(payload as { steps: unknown[] }).steps.length} steps` }) },
      virtueEngine: { scoreTrace: (trace) => ({ efficiency: trace.steps.length ? 1 : 0, safety: 0.75 }) },
    });
    expect(result.trace.steps).toHaveLength(2);
    expect(result.trace.virtueScores).toEqual({ efficiency: 1, safety: 0.75 });
    expect(result.problems).toEqual([]);
    expect(result.episode).toMatchObject({
      status: 'COMPLETED',
      outcome: { kind: 'SUCCESS' },
      critique: {
        verdict: 'good',
        score: 0.9,
        feedback: 'saw 2 steps',
        virtueScores: [
          { name: 'efficiency', score: 1 },
          { name: 'safety', score: 0.75 },
        ],
      },
    });

    const steps = await journal(result.episodeId);
    expect(steps.map((s) => [s.kind, s.action])).toEqual([
      ['llm_call', 'plan'],
      ['tool_call', 'move_to'],
      ['tool_call', 'move_to'],
    ]);
    expect(steps[0]).toMatchObject({ tool: 'fake_planner_v1', parameters: { goal: 'reach x=2' } });
    expect(JSON.parse((must(steps[0]).result as { output: string }).output)).toEqual(result.plan);
    expect(steps[1]).toMatchObject({
      tool: 'test_move',
      resultKind: 'success',
      worldBefore: { position: { x: 0 } },
      worldAfter: { position: { x: 1 } },
      tokens: 5,
    });
    expect(steps[2]).toMatchObject({ worldBefore: { position: { x: 1 } }, worldAfter: { position: { x: 2 } }, metadata: { planStepIndex: 1 } });
  });

  it('survives a throwing critic and virtue engine: the loop completes and records what failed', async () => {
    const result = await runAgentEpisode(api, {
      task,
      runtime: fakeRuntime([{ x: 3 }]),
      critic: {
        evaluate: () => {
          throw new Error('critic model offline');
        },
      },
      virtueEngine: {
        scoreTrace: () => {
          throw new Error('lattice diverged');
        },
      },
    });
    expect(result.criticResult).toBeNull();
    expect(result.problems).toEqual(['critic: critic model offline', 'virtues: lattice diverged']);
    expect(result.episode).toMatchObject({ status: 'COMPLETED', outcome: { kind: 'SUCCESS' }, critique: { verdict: 'critic_unavailable', score: null } });
    expect(must(result.episode.critique).feedback).toContain('critic model offline');
    expect(await journal(result.episodeId)).toHaveLength(2);
  });

  it('stops executing at the first failed action (fail fast) and completes PARTIAL; an executor exception becomes a failed trace step', async () => {
    const partial = await runAgentEpisode(api, { task, runtime: fakeRuntime([{ x: 1 }, 'fail', { x: 9 }]) });
    expect(partial.trace.steps.map((s) => s.result.success)).toEqual([true, false]);
    expect(partial.episode.outcome).toMatchObject({ kind: 'PARTIAL', completed: ['#1 move_to'], failed: ['#2 move_to'] });
    expect((await journal(partial.episodeId))[2]).toMatchObject({ resultKind: 'error', result: { message: 'path blocked' } });

    const crashed = await runAgentEpisode(api, { task, runtime: fakeRuntime(['throw']) });
    expect(crashed.problems).toEqual(['executor: bot disconnected']);
    expect(crashed.episode.outcome).toMatchObject({ kind: 'FAILURE', reason: 'actions_failed' });
  });

  it('fails the episode and throws on an invalid plan (failFastOnInvalidPlan), or runs it empty when told to recover', async () => {
    const runtime = { ...fakeRuntime([]), plan: () => ({ nope: true }) as never };
    await expect(runAgentEpisode(api, { task, runtime })).rejects.toThrow(/invalid plan/);
    const failed = await api.episodes({ filter: { agent: 'fake-agent', status: ['FAILED'] } });
    expect(failed.edges.length).toBeGreaterThan(0);

    const lenient = await runAgentEpisode(api, { task, runtime, config: { failFastOnInvalidPlan: false, enableCritic: false } });
    expect(lenient.problems).toEqual(['planner: invalid plan, treated as empty']);
    expect(lenient.episode.outcome).toMatchObject({ kind: 'FAILURE', reason: 'nothing_executed' });
  });

  it('caps execution at maxSkillSteps and skips storing when storeExperiences is false', async () => {
    const runtime = fakeRuntime([{ x: 1 }, { x: 2 }, { x: 3 }]);
    const result = await runAgentEpisode(api, { task, runtime, config: { maxSkillSteps: 2, storeExperiences: false } });
    expect(result.trace.steps).toHaveLength(2);
    expect(result.episode).toMatchObject({ status: 'COMPLETED', stepCount: 0, outcome: { kind: 'PARTIAL' } });
  });
});
