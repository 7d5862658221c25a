// The cases every instrumentation library's fixture runs: the 3-call tool-calling agent, with and
// without a root span of the user's own, exported over protobuf and over JSON to the real server;
// each run must become one episode whose task is the user's first message, with one step per model
// call and per tool call, the tool calls the model chose, tokens and model right, and an unknown
// outcome (nothing in the telemetry says whether the task was solved).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delay } from '../../../src/core/delay.ts';
import { type TestApp, useApp } from '../../support/app.ts';
import type { Encoding } from '../support.ts';
import { type FakeModel, FINAL_ANSWER, RESPONSE_MODEL, startFakeModel, TOTAL_TOKENS, USAGE } from './fake-model.ts';
import type { Telemetry } from './telemetry.ts';

/** How the fixtures' server groups runs without a root span: a short idle gap so the tests need not wait minutes. */
export const FIXTURE_ENV = { OTLP_RUN_IDLE_MS: '1500' };

export interface InstrumentedLibrary {
  /** The entry's name in docs/OTLP.md's mapping table. */
  entry: string;
  telemetry: Telemetry;
  /** Runs the agent once (the library instruments its model calls). */
  run(model: FakeModel, task: string, withRoot: boolean): Promise<void>;
  /** Steps a run makes: the model and tool calls, and a nested agent span where the framework has one. */
  expectedKinds(withRoot: boolean): string[];
  /** Stops instrumenting, so the next file in the same worker process is traced by its own library only. */
  disable(): void;
}

export interface EpisodeRow {
  id: string;
  status: string;
  outcome_kind: string | null;
  task_description: string;
  tokens: number;
  step_count: number;
}

export interface StepRow {
  kind: string;
  tool: string | null;
  action: string;
  observation: string | null;
  result: { output?: string } | null;
  metadata: { model?: string; toolCalls?: Array<{ name: string; arguments: string }> };
}

async function episodesWithTask(t: TestApp, task: string): Promise<EpisodeRow[]> {
  const { rows } = await t.services.db.pool.query(
    `SELECT id, status, outcome_kind, task_description, used_tokens::int AS tokens, step_count FROM episodes WHERE tenant_id = $1 AND task_description = $2`,
    [t.keys.tenantId, task],
  );
  return rows as EpisodeRow[];
}

/** The run's episode once completed (a run without a root ends after the idle gap). */
export async function completedEpisode(t: TestApp, task: string): Promise<EpisodeRow[]> {
  for (let i = 0; i < 100; i += 1) {
    const rows = await episodesWithTask(t, task);
    if (rows.length && rows.every((r) => r.status !== 'running')) return rows;
    await delay(200);
  }
  return episodesWithTask(t, task);
}

export async function stepsOf(t: TestApp, episodeId: string): Promise<StepRow[]> {
  const { rows } = await t.services.db.pool.query(
    'SELECT kind, tool, action, observation, result, metadata FROM steps WHERE episode_id = $1 ORDER BY step_number',
    [episodeId],
  );
  return rows as StepRow[];
}

const INPUT_TOKENS = USAGE.reduce((n, u) => n + u.prompt_tokens, 0);
const OUTPUT_TOKENS = USAGE.reduce((n, u) => n + u.completion_tokens, 0);
/** gpt-4o-mini's default price: USD 0.15 per million input tokens, 0.60 per million output tokens. */
const EXPECTED_COST = (INPUT_TOKENS * 0.15 + OUTPUT_TOKENS * 0.6) / 1e6;

interface EpisodeUsage {
  usedCost: number;
  costKnown: boolean;
  usageByModel: Array<{ model: string | null; calls: number; inputTokens: number; outputTokens: number; tokens: number; cost: number | null }>;
}

async function usageOf(t: TestApp, id: string): Promise<EpisodeUsage> {
  const res = await t.gql<{ episode: EpisodeUsage }>(
    `query($id: ID!) { episode(id: $id) { ... on Episode { usedCost costKnown usageByModel { model calls inputTokens outputTokens tokens cost } } } }`,
    { id },
    t.keys.read,
  );
  return res.data?.episode as EpisodeUsage;
}

export function describeInstrumentedAgent(name: string, setUp: () => Promise<InstrumentedLibrary>) {
  let t: TestApp;
  let base: string;
  let model: FakeModel;
  let library: InstrumentedLibrary;
  useApp((app) => {
    t = app;
    base = app.url.replace(/\/graphql$/, '');
  }, FIXTURE_ENV);
  beforeAll(async () => {
    model = await startFakeModel();
    library = await setUp();
  });
  afterAll(() => {
    library?.disable();
    return model?.close();
  });

  describe(name, () => {
    const cases: Array<[Encoding, boolean]> = [
      ['protobuf', true],
      ['json', true],
      ['protobuf', false],
      ['json', false],
    ];
    it.each(cases)('a run exported over %s (user root span: %s) is one episode with its model and tool calls', async (encoding, withRoot) => {
      const task = `Find the rounding bug in the invoice totals (${name}, ${encoding}, ${withRoot ? 'root' : 'no root'})`;
      await library.run(model, task, withRoot);
      const sent = await library.telemetry.flush(base, t.keys.write, encoding);
      expect(sent.spans.code, String(sent.spans.error)).toBe(0);
      if (sent.logs) expect(sent.logs.code, String(sent.logs.error)).toBe(0);
      const episodes = await completedEpisode(t, task);
      expect(episodes).toHaveLength(1);
      const [episode] = episodes as [EpisodeRow];
      expect(episode).toMatchObject({ status: 'completed', outcome_kind: 'unknown', tokens: TOTAL_TOKENS });
      const steps = await stepsOf(t, episode.id);
      expect(steps.map((s) => s.kind)).toEqual(library.expectedKinds(withRoot));
      const calls = steps.filter((s) => s.kind === 'llm_call');
      expect(calls.map((c) => c.metadata.model)).toEqual([RESPONSE_MODEL, RESPONSE_MODEL, RESPONSE_MODEL]);
      expect(calls.map((c) => c.tool)).toEqual([null, null, null]);
      expect(calls.map((c) => c.metadata.toolCalls?.map((tc) => tc.name) ?? [])).toEqual([['bash'], ['read_file'], []]);
      expect(calls[0]?.action).toBe(`${RESPONSE_MODEL} → bash(ls src)`);
      expect(calls[2]?.action).toMatch(new RegExp(`^${RESPONSE_MODEL}: The rounding bug is in src/invoice.ts`));
      expect(calls[2]?.observation).toBe(FINAL_ANSWER);
      // The transcript: what the model was asked (the task first among the user's messages) and what it answered.
      const transcript = JSON.parse(String(calls[0]?.result?.output)) as { input: Array<{ role: string; content: string }> };
      expect(transcript.input.find((m) => m.role === 'user')?.content).toBe(task);
      const tools = steps.filter((s) => s.kind === 'tool_call');
      expect(tools.map((s) => s.action)).toEqual(['bash ls src', 'read_file src/invoice.ts'].slice(0, tools.length));
      // No span carries a cost: the price table's gpt-4o-mini entry prices the dated model the fake answers as.
      const usage = await usageOf(t, episode.id);
      expect(usage.costKnown).toBe(true);
      expect(usage.usageByModel).toHaveLength(1);
      expect(usage.usageByModel[0]).toMatchObject({
        model: RESPONSE_MODEL,
        calls: 3,
        inputTokens: INPUT_TOKENS,
        outputTokens: OUTPUT_TOKENS,
        tokens: TOTAL_TOKENS,
      });
      expect(usage.usageByModel[0]?.cost).toBeCloseTo(EXPECTED_COST, 12);
      expect(usage.usedCost).toBeCloseTo(EXPECTED_COST, 12);
    });

    it('retrieval finds these runs by their task', async () => {
      const res = await t.gql<{ relevantEpisodes: { episodes: Array<{ episode: { taskDescription: string } }> } }>(
        `query($task: RetrievalTaskInput!) { relevantEpisodes(task: $task, limit: 5) { ... on RelevantEpisodes { episodes { episode { taskDescription } } } } }`,
        { task: { description: 'rounding bug invoice totals' } },
        t.keys.read,
      );
      const found = res.data?.relevantEpisodes.episodes.map((e) => e.episode.taskDescription) ?? [];
      expect(found.filter((d) => d.includes(`(${name},`)).length).toBeGreaterThan(0);
    });
  });
}
