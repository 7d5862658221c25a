// The tests Stryker runs against each mutant: the pure rule modules' own tests. They need no
// database, so this config has no globalSetup (the full suite's config starts PostgreSQL) and
// writes no JSON report (CI's summary reads the full suite's). The randomized tamper test is left
// out: 4000 mutations per run took over a minute under coverage instrumentation, for every mutant
// it covers; the full suite still runs it.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

export default defineConfig({
  resolve: base.resolve,
  test: {
    include: ['test/unit/**/*.test.ts', 'test/ledger/{hash,merkle,signed-head,verify,worked-example,vectors,content-hash-wasm}.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
  },
});
