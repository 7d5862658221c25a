// Mutation testing of the pure rule modules (no I/O): each mutant is a small deliberate bug, and
// a surviving mutant is a change no test notices. `npm run test:mutation` runs all of them;
// CI runs the same set (see .ci/run and docs/TESTING.md for the time it takes on 2 cores).
// @ts-check
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  checkers: [],
  coverageAnalysis: 'perTest',
  mutate: [
    'src/validation/{violations,json}.ts',
    'src/stops/{loop-stop,stop-reason}.ts',
    'src/episodes/{budget,call-limits,limits,outcome,outcome-limits,status}.ts',
    'src/steps/{limits,prepare,redact}.ts',
    'src/ledger/format/{hash,merkle,signed-head}.ts',
    'src/ledger/proofs/verify.ts',
    'src/learning/{facts,patterns,reflection,reward,supersede}.ts',
    'src/retrieval/{score,pattern-score,words}.ts',
    'src/leases/{accounting,limits,rules}.ts',
    'src/auth/keys.ts',
  ],
  // Only what the mutation run needs in its sandbox: not the web page, data or test databases. The
  // ledger spec and its vectors stay: tests check the spec's text against the code.
  ignorePatterns: [
    'web',
    '/docs/*',
    '!/docs/LEDGER.md',
    '!/docs/ledger-vectors.json',
    'bench',
    'examples',
    '/dist',
    'test-results',
    'reports',
    '.episodic',
    '.scratch',
  ],
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 80, low: 60, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};

export default config;
