// Error-fix patterns through the API: an error name a run's failed steps showed, and the file the
// run changed, learnt from a history and served to a task that mentions the error.
import { describe, expect, it } from 'vitest';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { learnerTenant, ok, PATTERNS } from './support.ts';

let t: TestApp;
useApp((app) => (t = app));

const API = { domain: 'acme/api', language: 'python' };
const crashed = {
  kind: 'tool_call',
  tool: 'python',
  action: 'run reproduce.py',
  result: {
    kind: 'ERROR',
    errorClass: 'exit_1',
    message: 'exit code 1',
    output: 'Traceback (most recent call last):\n  File "api/cache.py", line 9\nKeyError: \'user:7\'',
  },
};

describe('error-fix patterns', () => {
  it('learns which file fixed an error the runs hit, and serves it to a task mentioning the error', async () => {
    const { l } = await learnerTenant(t, 'error-fix');
    // 4 of 20 runs hit KeyError and changed api/cache.py: at the idf floor (20 %), 3 co-occurrences or more.
    for (let i = 0; i < 4; i += 1) {
      await l.run({
        description: `Lookups crash for evicted entries, case ${i}`,
        context: API,
        steps: [ok('grep'), crashed, ok('python')],
        outcome: { kind: 'SUCCESS', verdict: 'fixed', artifacts: ['api/cache.py'] },
      });
    }
    for (let i = 0; i < 16; i += 1) {
      await l.run({
        description: `Widget number ${i} renders its label`,
        context: API,
        steps: [ok('grep')],
        outcome: { kind: 'SUCCESS', verdict: 'ok', artifacts: [`api/w${i}.py`] },
      });
    }
    const page = await l.api.call(PATTERNS, { filter: { kind: ['ERROR_FIX'], status: ['ACTIVE'] }, first: 10 });
    const fixes = page.edges.map((e: Json) => e.node);
    expect(fixes).toHaveLength(1);
    expect(fixes[0]).toMatchObject({ cue: 'keyerror', changedFile: 'api/cache.py', scope: 'acme/api', occurrences: 4, successes: 4 });
    expect(fixes[0].summary).toMatch(/^In acme\/api, runs that hit keyerror changed api\/cache\.py in 4 of 4/);
    const served = await l.relevantPatterns({ description: 'Session store raises KeyError after a restart', context: API }, 50);
    expect(served.patterns.map((p: Json) => p.pattern.id)).toContain(fixes[0].id);
    const unrelated = await l.relevantPatterns({ description: 'Session store forgets the locale after a restart', context: API }, 50);
    expect(unrelated.patterns.map((p: Json) => p.pattern.kind)).not.toContain('ERROR_FIX');
  }, 300_000);
});
