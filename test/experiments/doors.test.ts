// Experiments through the CLI (`episodic experiment`, `episodic impact`, in process over HTTP) and
// MCP (the SDK client over Streamable HTTP): started, read, paused, with the API's typed refusals.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startInProcess } from '../client/cli-run.ts';
import { call, connect } from '../mcp/support.ts';
import { type TestApp, useApp } from '../support/app.ts';

let t: TestApp;
useApp((app) => (t = app));

const cli = (args: string[], key: string) =>
  startInProcess([...args, '--url', t.url, '--key', key], { env: { EPISODIC_DATA_DIR: join('/nonexistent', 'episodic') } }).exited;

describe('experiments through the CLI and MCP', () => {
  it('starts, lists, reads and pauses an experiment with the CLI', async () => {
    const keys = await t.addTenant('experiments-cli');
    const started = await cli(
      ['experiment', 'start', '--name', 'cli holdout', '--share', '0.2', '--control', 'fixed_formula', '--agent', 'bot', '--json'],
      keys.write,
    );
    expect(started.code, started.stderr).toBe(0);
    const experiment = JSON.parse(started.stdout);
    expect(experiment).toMatchObject({ kind: 'HOLDOUT', status: 'RUNNING', controlShare: 0.2, control: 'FIXED_FORMULA', scopeAgent: 'bot' });

    const listed = await cli(['experiment', 'list'], keys.read);
    expect(listed.stdout).toContain(`${experiment.id}  RUNNING holdout 20 % against fixed_formula  cli holdout  (agent bot)`);
    const impact = await cli(['impact', experiment.id], keys.read);
    expect(impact.code).toBe(0);
    expect(impact.stdout).toMatch(/^too few runs to tell yet: 0 with memory and 0 in control, at least 100 each are needed\n/);
    expect(impact.stdout).toContain('TOO_FEW_RUNS by the two-proportion z-test');

    expect((await cli(['experiment', 'pause', experiment.id], keys.write)).stdout).toContain('PAUSED');
    const again = await cli(['experiment', 'pause', experiment.id], keys.write);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('IllegalTransitionError');
    const refused = await cli(['experiment', 'start', '--name', 'x', '--share', '2'], keys.write);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('input.controlShare');
    expect((await cli(['impact', '00000000-0000-4000-8000-000000000000'], keys.read)).code).toBe(4);
    expect((await cli(['experiment', 'frobnicate'], keys.write)).code).toBe(2);
  });

  it('starts an experiment and reads its impact through the MCP tools', async () => {
    const keys = await t.addTenant('experiments-mcp');
    const writer = await connect(t, 'http', keys.write);
    try {
      const started = await call(writer.client, 'experiment', { action: 'start', name: 'mcp interleave', kind: 'interleave', control: 'bm25' });
      expect(started.isError, started.text).toBe(false);
      const id = (started.structured as { id: string }).id;
      expect(started.text).toContain(`${id}  RUNNING interleave against bm25  mcp interleave`);
      const impact = await call(writer.client, 'memory_impact', { experimentId: id });
      expect(impact.text).toMatch(/^too few decided runs to tell yet: 0 won, 0 lost, 0 tied, at least 100 decided are needed/);
      expect(impact.text).toContain('by the exact sign test');
      const paused = await call(writer.client, 'experiment', { action: 'pause', experimentId: id });
      expect(paused.text).toContain('PAUSED');
      const refused = await call(writer.client, 'experiment', { action: 'start', name: 'bad', controlShare: 0 });
      expect(refused.isError).toBe(true);
      expect(refused.text).toContain('input.controlShare');
    } finally {
      await writer.close();
    }
  });
});
