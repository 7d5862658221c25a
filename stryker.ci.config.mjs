// The mutation run CI can afford on 2 cores: the modules whose bugs would go unseen longest (step
// and chain hashing, signed heads, redaction, episode status and budget rules), not the whole rule
// set of stryker.config.mjs. Its own break threshold, below the score recorded in docs/TESTING.md.
// Run: npm run test:mutation:ci
// @ts-check
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  ...base,
  mutate: [
    'src/ledger/format/{hash,signed-head}.ts',
    'src/steps/{prepare,redact}.ts',
    'src/episodes/{budget,outcome,status}.ts',
    'src/stops/{stop-reason,loop-stop}.ts',
  ],
  reporters: ['clear-text', 'progress-append-only'],
  thresholds: { high: 90, low: 80, break: 90 },
};

export default config;
