import { expect, it } from 'vitest';

it('fails on purpose (test/platform/exit-code.test.ts checks that the run exits non-zero)', () => {
  expect(1 + 1).toBe(3);
});
