// The limits of starting an experiment (src/experiments/limits.ts), pure: a scope's work item
// must be a UUID before it reaches PostgreSQL's uuid column (the fuzzer found a 1,024-character one
// answered INTERNAL_SERVER_ERROR).
import { describe, expect, it } from 'vitest';
import { type ExperimentRequest, experimentViolations } from '../../src/experiments/limits.ts';

const request = (workItemId: string | null): ExperimentRequest => ({
  name: 'holdout-1',
  kind: 'holdout',
  controlShare: 0.1,
  control: 'nothing',
  minSample: 100,
  seed: 'seed-1',
  scope: { workItemId, agent: null, taskType: null },
});

describe('experiment limits', () => {
  it('accepts no work item and a work item id in either letter case', () => {
    expect(experimentViolations(request(null))).toEqual([]);
    expect(experimentViolations(request('0b6f1c2e-8d3a-4f5b-9c7d-1e2f3a4b5c6d'))).toEqual([]);
    expect(experimentViolations(request('0B6F1C2E-8D3A-4F5B-9C7D-1E2F3A4B5C6D'))).toEqual([]);
  });

  it('refuses a work item that is not a UUID, naming the field and the limit', () => {
    const [violation, ...rest] = experimentViolations(request('a'.repeat(1024)));
    expect(rest).toEqual([]);
    expect(violation).toMatchObject({ field: 'input.scope.workItemId', limit: 'a UUID', actual: '1024 characters' });
    expect(violation?.message.length).toBeLessThan(200);
  });
});
