// Runs whose format records no times (SWE-agent's .traj; mini-swe-agent without response times),
// imported through a real server: the task is the run's own issue (not the demonstration before
// it), the times stay unknown (no wall time, null in the API and the ledger), the reward gives no
// credit for speed, retrieval gives them neutral recency, and the report warns.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type EpisodicClient, unwrap } from '../../src/client/index.ts';
import { must } from '../../src/core/must.ts';
import { type ImportReport, importRuns } from '../../src/import/index.ts';
import { efficiencyMultiplier } from '../../src/learning/reward.ts';
import { clientFor } from '../client/support.ts';
import { type TestApp, useApp } from '../support/app.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const OWN_ISSUES: Record<string, RegExp> = {
  'astropy__astropy-12907': /^Modeling's `separability_matrix` does not compute separability correctly for nested CompoundModels/,
  'django__django-11099': /^UsernameValidator allows trailing newline in usernames\nDescription\n/,
  'sympy__sympy-20590': /^Symbol instances have __dict__ since 1\.7\?/,
  'sphinx-doc__sphinx-8056': /^Render error when combining multiple input parameters in docstring\n/,
};

let t: TestApp;
let api: EpisodicClient;
let report: ImportReport;
let importedFrom: number;
let importedTo: number;
useApp((app) => {
  t = app;
  api = clientFor(t, t.keys.write);
});
beforeAll(async () => {
  importedFrom = Date.now();
  report = await importRuns(api, [join(FIXTURES, 'swe-demos'), join(FIXTURES, 'mini-untimed')]);
  importedTo = Date.now();
});

const episodeIdOf = (instanceId: string) => must(must(report.runs.find((r) => r.instanceId === instanceId)).episodeId);

async function episode(id: string) {
  const r = await t.gql(
    `query($id: ID!) { episode(id: $id) { ... on Episode { taskDescription startedAt endedAt timesKnown wallTimeMs stepCount
      budgetUsage { resource used } reward { efficiency learningBonus } reflection { successes improvements } } } }`,
    { id },
    t.keys.read,
  );
  return r.data.episode;
}

describe('runs without times', () => {
  it('are imported with their own issue as the task, never the demonstration before it', async () => {
    expect(report).toMatchObject({ imported: 4, failed: 0, rejectedSteps: 0 });
    for (const [instanceId, own] of Object.entries(OWN_ISSUES)) {
      const e = await episode(episodeIdOf(instanceId));
      expect(e.taskDescription).toMatch(own);
      expect(e.taskDescription).not.toMatch(/TimeDelta serialization precision|INSTRUCTIONS:|Please solve this issue/);
    }
  });

  it('keep their times unknown: no wall time, the import instant only for ordering, null in the ledger', async () => {
    for (const instanceId of Object.keys(OWN_ISSUES)) {
      const id = episodeIdOf(instanceId);
      const e = await episode(id);
      expect(e).toMatchObject({ timesKnown: false, wallTimeMs: null });
      expect(e.budgetUsage.map((b: { resource: string }) => b.resource)).toEqual(['tokens', 'steps', 'tool_calls']);
      for (const at of [e.startedAt, e.endedAt]) expect(Date.parse(at)).toBeGreaterThanOrEqual(importedFrom - 1000);
      expect(Date.parse(e.endedAt)).toBeLessThanOrEqual(importedTo + 1000);
      const page = unwrap(await api.ledgerEvents({ filter: { episodeId: id } }));
      const started = must(page.events.find((ev) => ev.type === 'episode.started'));
      expect(started.payload).toMatchObject({ imported: { startedAt: null, source: { format: expect.any(String) } } });
      const ended = must(page.events.find((ev) => ev.type === 'episode.completed' || ev.type === 'episode.failed'));
      expect(ended.payload).toMatchObject({ usage: { wallMs: null } });
    }
  });

  it('get no reward for speed: the duration term is neutral, no quick-run bonus or speed insight', async () => {
    for (const instanceId of Object.keys(OWN_ISSUES)) {
      const e = await episode(episodeIdOf(instanceId));
      expect(e.reward.efficiency).toBeCloseTo(efficiencyMultiplier(null, e.stepCount), 12);
      // start = end = the import instant would have scored the best duration.
      expect(e.reward.efficiency).toBeLessThan(efficiencyMultiplier(0, e.stepCount));
      expect(JSON.stringify(e.reflection)).not.toMatch(/Finished in|Took \d/);
    }
  });

  it('get neutral recency in retrieval, where a run that just ended gets the freshest', async () => {
    const task = 'UsernameValidator allows trailing newline in usernames';
    const live = unwrap(await api.startEpisode({ taskDescription: `${task} (fixed live)`, taskType: 'code_change' })).episode;
    unwrap(await api.completeEpisode(live.id, { kind: 'SUCCESS', verdict: 'fixed', artifacts: [] }));
    const r = await t.gql(
      `query($d: String!) { relevantEpisodes(task: { description: $d }, limit: 10) { ... on RelevantEpisodes { episodes { episode { id } score { recency } } } } }`,
      { d: task },
      t.keys.read,
    );
    const scored: Array<{ episode: { id: string }; score: { recency: number } }> = r.data.relevantEpisodes.episodes;
    const recency = (id: string) => must(scored.find((s) => s.episode.id === id)).score.recency;
    // One half-life: 0.5, however long ago the run was imported.
    expect(recency(episodeIdOf('django__django-11099'))).toBeCloseTo(0.5, 12);
    expect(recency(live.id)).toBeGreaterThan(0.99);
  });

  it('are reported: one warning naming the runs without times, none about shared tasks', () => {
    expect(report.warnings).toEqual([
      {
        code: 'TIMES_UNKNOWN',
        message: expect.stringMatching(/^4 of 4 runs carry no times \(mini-swe-agent, swe-agent\)/),
        runs: Object.keys(OWN_ISSUES).sort(),
      },
    ]);
    expect(report.runs.map((r) => r.timesKnown)).toEqual([false, false, false, false]);
  });

  it('refuse an end time when started without a start time, and change nothing', async () => {
    const started = unwrap(
      await api.startEpisode({
        taskDescription: 'an imported run without times',
        taskType: 'code_change',
        importSource: { format: 'swe-agent', sourceHash: 'a'.repeat(64), name: 'x.traj' },
      }),
    ).episode;
    const refused = await api.completeEpisode(started.id, { kind: 'SUCCESS', verdict: 'ok', artifacts: [] }, [], { endedAt: '2024-01-01T00:00:00Z' });
    expect(refused).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: 'endedAt', limit: 'a known startedAt' }] });
    expect(unwrap(await api.episode(started.id))).toMatchObject({ status: 'RUNNING', timesKnown: false, endedAt: null });
  });
});
