import { describe, expect, it } from 'vitest';
import { checkEpisodeSize, EPISODE_LIMITS, type StartEpisodeInput, validateEpisodeInput, validateGoalSpec } from '../../src/episodes/limits.ts';
import { validateOutcome } from '../../src/episodes/outcome-limits.ts';
import { STEP_LIMITS } from '../../src/steps/limits.ts';
import { exceedsJsonDepth, findNul, jsonBytes } from '../../src/validation/json.ts';
import { charCount, utf8Bytes } from '../../src/validation/violations.ts';
import { fields, jsonOfBytes, nested } from './json-inputs.ts';

const KB = 1024;
const MB = 1024 * 1024;
const NUL = '\u0000';

function episodeInput(overrides: Partial<StartEpisodeInput> = {}): StartEpisodeInput {
  return {
    taskDescription: 'Fix the failing login test',
    taskType: 'debugging',
    context: { language: 'typescript', framework: 'vitest', complexity: 'moderate', domain: 'web', tags: ['auth', 'tests'] },
    mode: 'live',
    budget: { maxTokens: 10_000, maxSteps: 50, maxWallMs: 60_000 },
    onBudgetExhausted: 'converge',
    ...overrides,
  };
}

describe('EPISODE_LIMITS and STEP_LIMITS', () => {
  it('carry the documented input limits', () => {
    expect(EPISODE_LIMITS).toMatchObject({
      descriptionBytes: 262_144,
      maxSteps: 1000,
      episodeBytes: 10_485_760,
      goalSpecBytes: 65_536,
      taskTypeChars: 100,
      tagCount: 32,
      tagChars: 64,
    });
    expect(STEP_LIMITS).toMatchObject({
      observationBytes: 10_240,
      parametersBytes: 1_048_576,
      stepsPerCall: 1000,
    });
  });
});

describe('measuring', () => {
  it('utf8Bytes counts bytes, not UTF-16 units', () => {
    expect(utf8Bytes('abc')).toBe(3);
    expect(utf8Bytes('é')).toBe(2);
    expect(utf8Bytes('€')).toBe(3);
    expect(utf8Bytes('😀')).toBe(4);
  });

  it('jsonBytes measures the JSON text, and 0 for undefined', () => {
    expect(jsonBytes({ a: 'é' })).toBe(10); // {"a":""} is 8 bytes, é is 2
    expect(jsonBytes(null)).toBe(4);
    expect(jsonBytes(undefined)).toBe(0);
  });

  it('charCount counts code points', () => {
    expect(charCount('😀a')).toBe(2);
    expect(charCount('')).toBe(0);
  });
});

describe('validateEpisodeInput', () => {
  it('accepts a complete valid input and a minimal one', () => {
    expect(validateEpisodeInput(episodeInput())).toEqual([]);
    expect(
      validateEpisodeInput({
        taskDescription: 'x',
        taskType: 't',
        context: { complexity: 'simple', tags: [] },
        mode: 'dry_run',
        budget: {},
        onBudgetExhausted: 'fail',
      }),
    ).toEqual([]);
  });

  it('description: exactly 256 KB passes, one byte more fails', () => {
    expect(validateEpisodeInput(episodeInput({ taskDescription: 'a'.repeat(256 * KB) }))).toEqual([]);
    expect(validateEpisodeInput(episodeInput({ taskDescription: 'a'.repeat(256 * KB + 1) }))).toEqual([
      {
        field: 'input.taskDescription',
        limit: 256 * KB,
        actual: 256 * KB + 1,
        message: 'input.taskDescription is 262145 bytes; the limit is 262144 bytes',
      },
    ]);
  });

  it('description: multi-byte characters count in bytes', () => {
    expect(validateEpisodeInput(episodeInput({ taskDescription: 'é'.repeat(128 * KB) }))).toEqual([]);
    const tooBig = validateEpisodeInput(episodeInput({ taskDescription: 'é'.repeat(128 * KB + 1) }));
    expect(tooBig).toMatchObject([{ field: 'input.taskDescription', actual: 256 * KB + 2 }]);
    expect(validateEpisodeInput(episodeInput({ taskDescription: '😀'.repeat(64 * KB + 1) }))).toMatchObject([{ actual: 256 * KB + 4 }]);
  });

  it('description: must not be blank or hold NUL', () => {
    expect(validateEpisodeInput(episodeInput({ taskDescription: '  \n' }))).toEqual([
      { field: 'input.taskDescription', limit: 'non-empty', message: 'input.taskDescription must not be empty' },
    ]);
    expect(validateEpisodeInput(episodeInput({ taskDescription: `a${NUL}b` }))).toMatchObject([{ field: 'input.taskDescription', limit: 'no NUL characters' }]);
  });

  it('taskType: 100 characters pass (even 4-byte ones), 101 fail', () => {
    expect(validateEpisodeInput(episodeInput({ taskType: '😀'.repeat(100) }))).toEqual([]);
    expect(validateEpisodeInput(episodeInput({ taskType: 'a'.repeat(101) }))).toMatchObject([
      { field: 'input.taskType', limit: 100, actual: 101, message: 'input.taskType is 101 characters; the limit is 100 characters' },
    ]);
    expect(fields(validateEpisodeInput(episodeInput({ taskType: 'a\tb' })))).toEqual(['input.taskType']);
  });

  it('tags: 32 pass, 33 fail; each tag up to 64 characters, not blank', () => {
    const tags = (n: number): string[] => Array.from({ length: n }, (_, i) => `t${i}`);
    expect(validateEpisodeInput(episodeInput({ context: { complexity: 'simple', tags: tags(32) } }))).toEqual([]);
    expect(validateEpisodeInput(episodeInput({ context: { complexity: 'simple', tags: tags(33) } }))).toMatchObject([
      { field: 'input.context.tags', limit: 32, actual: 33 },
    ]);
    const badTags = ['ok', 'a'.repeat(64), 'a'.repeat(65), ' '];
    expect(fields(validateEpisodeInput(episodeInput({ context: { complexity: 'simple', tags: badTags } })))).toEqual([
      'input.context.tags.2',
      'input.context.tags.3',
    ]);
  });

  it('context fields are bounded and non-blank when present', () => {
    const context = { complexity: 'complex' as const, tags: [], language: 'a'.repeat(101), framework: '', domain: 'x'.repeat(100) };
    expect(fields(validateEpisodeInput(episodeInput({ context })))).toEqual(['input.context.language', 'input.context.framework']);
  });

  it('goal spec problems are reported at their nested path', () => {
    const goalSpec = { criteria: ['tests pass', `no${NUL}regressions`] };
    expect(fields(validateEpisodeInput(episodeInput({ goalSpec })))).toEqual(['input.goalSpec.criteria.1']);
    expect(validateEpisodeInput(episodeInput({ goalSpec: null }))).toEqual([]);
  });

  it('identifiers: non-blank, bounded, no control characters', () => {
    const violations = validateEpisodeInput(
      episodeInput({
        agent: '',
        dedupeKey: 'k'.repeat(257),
        parentEpisodeId: 'p'.repeat(128),
        workItemId: 'w'.repeat(129),
        leaseId: 'lease\n1',
      }),
    );
    expect(fields(violations)).toEqual(['input.agent', 'input.dedupeKey', 'input.workItemId', 'input.leaseId']);
    expect(violations[3]).toMatchObject({ limit: 'no control characters' });
  });

  it('maxAttempts is an integer from 1 to 100', () => {
    for (const ok of [1, 100]) expect(validateEpisodeInput(episodeInput({ maxAttempts: ok }))).toEqual([]);
    for (const bad of [0, 101, 1.5]) {
      expect(validateEpisodeInput(episodeInput({ maxAttempts: bad }))).toMatchObject([
        { field: 'input.maxAttempts', limit: 'integer from 1 to 100', actual: bad },
      ]);
    }
  });

  it('budget: positive integers, maxSteps at most 1000', () => {
    expect(validateEpisodeInput(episodeInput({ budget: { maxSteps: 1000, maxTokens: 1, maxWallMs: 1 } }))).toEqual([]);
    const violations = validateEpisodeInput(episodeInput({ budget: { maxSteps: 1001, maxTokens: 0, maxWallMs: Number.NaN } }));
    expect(violations).toEqual([
      expect.objectContaining({ field: 'input.budget.maxTokens', limit: 'integer >= 1', actual: 0 }),
      expect.objectContaining({ field: 'input.budget.maxSteps', limit: 'integer from 1 to 1000', actual: 1001 }),
      { field: 'input.budget.maxWallMs', limit: 'integer >= 1', message: 'input.budget.maxWallMs must be an integer >= 1, got NaN' },
    ]);
  });

  it('metadata: 64 KB of JSON passes, one byte more fails; NUL in a key fails', () => {
    expect(validateEpisodeInput(episodeInput({ metadata: jsonOfBytes(64 * KB) as { d: string } }))).toEqual([]);
    expect(validateEpisodeInput(episodeInput({ metadata: jsonOfBytes(64 * KB + 1) as { d: string } }))).toMatchObject([
      { field: 'input.metadata', limit: 64 * KB, actual: 64 * KB + 1 },
    ]);
    expect(validateEpisodeInput(episodeInput({ metadata: { nested: { [`k${NUL}`]: 1 } } }))).toMatchObject([
      { field: 'input.metadata.nested', message: 'input.metadata.nested has a key that contains a NUL character (U+0000), which cannot be stored' },
    ]);
  });

  it('reports every violation at once and honours a custom root field', () => {
    const violations = validateEpisodeInput(episodeInput({ taskDescription: '', taskType: '', maxAttempts: 0 }), 'args');
    expect(fields(violations)).toEqual(['args.taskDescription', 'args.taskType', 'args.maxAttempts']);
  });
});

describe('validateGoalSpec', () => {
  it('text: exactly 64 KB passes, one byte more fails, multi-byte counted in bytes', () => {
    expect(validateGoalSpec('a'.repeat(64 * KB))).toEqual([]);
    expect(validateGoalSpec('a'.repeat(64 * KB + 1))).toMatchObject([{ field: 'input.goalSpec', limit: 64 * KB, actual: 64 * KB + 1 }]);
    expect(validateGoalSpec('€'.repeat(21_846))).toMatchObject([{ actual: 65_538 }]);
  });

  it('text: refuses NUL anywhere', () => {
    expect(validateGoalSpec(`done when${NUL}`)).toEqual([
      { field: 'input.goalSpec', limit: 'no NUL characters', message: 'input.goalSpec contains a NUL character (U+0000), which cannot be stored' },
    ]);
  });

  it('JSON: exactly 64 KB passes, one byte more fails', () => {
    expect(validateGoalSpec(jsonOfBytes(64 * KB))).toEqual([]);
    expect(validateGoalSpec(jsonOfBytes(64 * KB + 1))).toMatchObject([{ limit: 64 * KB, actual: 64 * KB + 1 }]);
  });

  it('JSON: finds NUL in nested strings and keys', () => {
    expect(validateGoalSpec({ steps: [{ check: 'ok' }, { check: `x${NUL}` }] }, 'spec')).toMatchObject([
      { field: 'spec.steps.1.check', limit: 'no NUL characters' },
    ]);
    expect(validateGoalSpec([{ [NUL]: true }])).toMatchObject([{ field: 'input.goalSpec.0' }]);
  });

  it('JSON: a literal backslash-u0000 text is not a NUL', () => {
    expect(validateGoalSpec({ note: '\\u0000 is how JSON escapes NUL' })).toEqual([]);
  });

  it('JSON: scalars are fine', () => {
    expect(validateGoalSpec(42)).toEqual([]);
    expect(validateGoalSpec(true)).toEqual([]);
  });

  it('JSON: 64 levels of nesting pass, 65 fail, and absurd depth answers instead of throwing', () => {
    expect(validateGoalSpec(nested(64))).toEqual([]);
    expect(validateGoalSpec(nested(65))).toMatchObject([{ field: 'input.goalSpec', limit: 64 }]);
    expect(validateGoalSpec(nested(100_000))).toMatchObject([{ limit: 64 }]);
  });
});

describe('checkEpisodeSize', () => {
  it('exactly 10 MB passes, one byte more fails', () => {
    expect(checkEpisodeSize(10 * MB - 100, 100)).toEqual([]);
    expect(checkEpisodeSize(10 * MB - 100, 101)).toEqual([
      {
        field: 'input',
        limit: 10 * MB,
        actual: 10 * MB + 1,
        message: 'input would grow the episode to 10485761 bytes; the limit is 10485760 bytes',
      },
    ]);
    expect(checkEpisodeSize(10 * MB, 1, 'input.steps')).toMatchObject([{ field: 'input.steps' }]);
  });
});

describe('validateOutcome', () => {
  it('accepts valid outcomes of each kind', () => {
    expect(validateOutcome({ kind: 'success', verdict: 'done', artifacts: ['src/a.ts'] })).toEqual([]);
    expect(validateOutcome({ kind: 'partial', verdict: 'half', completed: ['a'], failed: [] })).toEqual([]);
    expect(validateOutcome({ kind: 'failure', reason: 'broken' })).toEqual([]);
  });

  it('bounds lists to 1000 items of 1 KB each', () => {
    const items = (n: number): string[] => Array.from({ length: n }, () => 'f');
    expect(validateOutcome({ kind: 'success', verdict: 'v', artifacts: items(1000) })).toEqual([]);
    expect(validateOutcome({ kind: 'success', verdict: 'v', artifacts: items(1001) })).toMatchObject([
      { field: 'input.outcome.artifacts', limit: 1000, actual: 1001 },
    ]);
    const outcome = { kind: 'partial' as const, verdict: 'v', completed: ['c'.repeat(KB)], failed: ['f', 'f'.repeat(KB + 1)] };
    expect(fields(validateOutcome(outcome))).toEqual(['input.outcome.failed.1']);
  });

  it('requires a verdict or reason and bounds the details', () => {
    expect(fields(validateOutcome({ kind: 'success', verdict: '', artifacts: [] }))).toEqual(['input.outcome.verdict']);
    expect(fields(validateOutcome({ kind: 'failure', reason: '', details: 'd'.repeat(10 * KB + 1) }, 'out'))).toEqual(['out.reason', 'out.details']);
  });
});

describe('findNul', () => {
  it('returns null for clean values and the first path in document order', () => {
    expect(findNul({ a: ['b', { c: 'd' }] }, 'x')).toBeNull();
    expect(findNul({ a: [NUL, 'ok'], b: NUL }, 'x')).toEqual({ path: 'x.a.0', inKey: false });
    expect(findNul({ a: { [NUL]: 1 } }, 'x')).toEqual({ path: 'x.a', inKey: true });
    expect(findNul(NUL, 'x')).toEqual({ path: 'x', inKey: false });
  });
});

describe('exceedsJsonDepth', () => {
  it('counts array and object levels; scalars have depth 0', () => {
    expect(exceedsJsonDepth(1, 0)).toBe(false);
    expect(exceedsJsonDepth([], 0)).toBe(true);
    expect(exceedsJsonDepth({ a: [{}] }, 3)).toBe(false);
    expect(exceedsJsonDepth({ a: [{ b: [] }] }, 3)).toBe(true);
  });
});
