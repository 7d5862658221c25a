// Procedures through the API: the command most runs of a repository ran successfully is learnt from
// their steps and served to a task of that repository, with its counts; a command that usually fails
// there and a script each run wrote for itself are not.
import { describe, expect, it } from 'vitest';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { learnerTenant, PATTERNS } from './support.ts';

let t: TestApp;
useApp((app) => (t = app));

const API = { domain: 'acme/api', language: 'python' };
const shell = (command: string, worked: boolean) => ({
  kind: 'tool_call',
  tool: 'bash',
  action: command.split('\n')[0],
  parameters: { command },
  result: worked
    ? { kind: 'SUCCESS', output: 'ok' }
    : { kind: 'ERROR', message: 'exit code 2', errorClass: 'exit_2', output: 'make: *** No rule to make target' },
});

describe('procedure patterns', () => {
  it('learns how runs of a repository ran its tests and serves it to that repository only', async () => {
    const { l } = await learnerTenant(t, 'procedures');
    for (let i = 0; i < 6; i += 1) {
      await l.run({
        description: `Endpoint ${i} returns the wrong status`,
        context: API,
        steps: [
          shell('make test', false),
          shell("cat <<'EOF' > reproduce.py\nimport api\nEOF", true),
          shell('python reproduce.py', true),
          ...(i < 5 ? [shell(`cd /repo && python -m pytest tests/test_endpoint_${i}.py -q`, true)] : []),
        ],
        outcome: { kind: 'SUCCESS', verdict: 'fixed', artifacts: [`api/endpoint_${i}.py`] },
      });
    }
    const page = await l.api.call(PATTERNS, { filter: { kind: ['PROCEDURE'], status: ['ACTIVE', 'CANDIDATE'] }, first: 10 });
    const procedures = page.edges.map((e: Json) => e.node);
    expect(procedures.map((p: Json) => [p.cue, p.status])).toEqual(
      expect.arrayContaining([
        ['python -m pytest', 'ACTIVE'],
        ['make test', 'CANDIDATE'],
      ]),
    );
    expect(procedures.map((p: Json) => p.cue)).not.toContain('python reproduce.py');
    const pytest = procedures.find((p: Json) => p.cue === 'python -m pytest');
    expect(pytest).toMatchObject({ scope: 'acme/api', occurrences: 5, successes: 5, lift: null });
    expect(pytest.effectiveness).toBeCloseTo(5 / 6, 2);
    expect(pytest.summary).toBe('In acme/api, `python -m pytest` worked in 5 of the 5 runs that ran it: 83% of the runs in acme/api.');
    // What failed there instead, with its counts: every run tried `make test` first.
    expect(pytest.failedInstead).toEqual(['`make test` worked in 0 of the 6 runs that ran it']);

    const served = await l.relevantPatterns({ description: 'The health endpoint times out', context: API }, 10);
    expect(served.patterns.filter((p: Json) => p.pattern.kind === 'PROCEDURE').map((p: Json) => p.pattern.cue)).toEqual(['python -m pytest']);
    const elsewhere = await l.relevantPatterns({ description: 'The health endpoint times out', context: { domain: 'acme/web', language: 'python' } }, 10);
    expect(elsewhere.patterns.map((p: Json) => p.pattern.kind)).not.toContain('PROCEDURE');
  }, 300_000);
});
