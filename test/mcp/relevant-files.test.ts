// relevant_files through the official SDK client: after runs that changed files, the files a
// similar task should read first, with their runs, resolved and failed counts, an example run and
// the retrieval id to credit. The tool calls the relevantFiles query (RelevantFiles / RelevantFile).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { call, connect, type TransportName } from './support.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

describe.each<TransportName>(['stdio', 'http'])('relevant_files over %s', (transport) => {
  it('names the files runs of a similar task changed, with the run that changed them', async () => {
    const keys = await t.addTenant(`mcp-files-${transport}`);
    const mcp = await connect(t, transport, keys.write);
    try {
      const task = 'The invoice exporter writes the totals column with the wrong rounding';
      const started = await call(mcp.client, 'start_episode', { task, language: 'python' });
      const id = (started.structured as { episode: { id: string } }).episode.id;
      await call(mcp.client, 'log_steps', { episodeId: id, steps: [{ tool: 'edit_file', action: 'round half even in billing/export.py', output: 'edited' }] });
      const done = await call(mcp.client, 'complete_episode', {
        episodeId: id,
        outcome: 'success',
        summary: 'rounds half even',
        filesChanged: ['billing/export.py'],
      });
      expect(done.isError, done.text).toBe(false);

      const files = await call(mcp.client, 'relevant_files', { task: 'invoice exporter totals rounding is wrong', language: 'python' });
      expect(files.isError, files.text).toBe(false);
      const result = files.structured as {
        retrievalId: string | null;
        files: Array<{ path: string; runs: number; resolved: number; evidence: Array<{ id: string }> }>;
      };
      expect(result.files[0]).toMatchObject({ path: 'billing/export.py', runs: 1, resolved: 1 });
      expect(result.files[0]?.evidence.map((e) => e.id)).toContain(id);
      expect(files.text).toContain('1. billing/export.py');
      expect(files.text).toContain(`episode ${id}`);
      expect(files.text).toContain(`Retrieval ${result.retrievalId}`);

      const refused = await call(mcp.client, 'relevant_files', { task: 'rounding', limit: 0 });
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/limit/);
    } finally {
      await mcp.close();
    }
  });
});
