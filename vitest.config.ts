import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/support/slow-first.ts';

const require = createRequire(import.meta.url);

// Files that need no database, no server and no build: `npm run test:unit` runs them in seconds.
// A new test of pure logic belongs in test/unit/ (or is added here). The randomized tamper run of
// the ledger (test/ledger/tamper.random.test.ts, 10 s of hashing) runs with the integration files.
const UNIT = [
  'test/unit/**/*.test.ts',
  'test/ledger/{hash,merkle,signed-head,verify,worked-example,incremental}.test.ts',
  'test/web/{chain,static,optional}.test.ts',
  'test/client/progress.test.ts',
  'test/platform/schema-file.test.ts',
];

/** Every run's temporary folders under one, removed at the end (no test leaves one in /tmp). */
const TEMP_ROOT = 'test/support/temp-root.ts';

export default defineConfig({
  resolve: {
    // Vite would pick graphql's ESM build for our files while Node loads its CJS build for
    // Pothos and yoga: two copies of graphql. Point ours at the one Node uses.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Vitest's default is one worker per core but one; these files mostly wait on PostgreSQL,
    // sockets and child processes, so on a 2-core machine 4 files at a time finish far sooner.
    maxWorkers: 4,
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }], './test/support/durations-reporter.ts'],
    // The longest files first, also on a fresh clone that has no durations of its own (slow-first.ts).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      // Pure modules, no shared state to reset: one thread pool without per-file isolation keeps the
      // unit run under 5 s on a 2-core machine (isolated forks took 6 s, mostly module loading).
      { extends: true, test: { name: 'unit', include: UNIT, pool: 'threads', isolate: false, globalSetup: [TEMP_ROOT] } },
      // Each file makes its own database, servers and clients, so the files need no fresh process:
      // one fork per worker runs file after file. A fork per file spent most of the run loading the
      // same modules again (import 1,170 s of a 1,208 s run at load 20; 167 s of 865 s without).
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: UNIT,
          isolate: false,
          globalSetup: [TEMP_ROOT, 'test/support/global-setup.ts'],
        },
      },
    ],
  },
});
