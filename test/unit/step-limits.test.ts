// The limits of the steps an agent logs (src/steps/limits.ts); episode limits are in limits.test.ts.
import { describe, expect, it } from 'vitest';
import { checkStepBatchSize, checkStepCount, type StepInput, validateStep } from '../../src/steps/limits.ts';
import { fields, jsonOfBytes, nested } from './json-inputs.ts';

const KB = 1024;
const MB = 1024 * 1024;
const NUL = '\u0000';

function step(overrides: Partial<StepInput> = {}): StepInput {
  return { kind: 'tool_call', tool: 'shell', action: 'npm test', ...overrides };
}

describe('validateStep', () => {
  it('accepts a full valid step', () => {
    const full: StepInput = {
      kind: 'tool_call',
      tool: 'http.get',
      action: 'fetch the page',
      parameters: { url: 'https://example.com', headers: { accept: 'text/html' } },
      result: { kind: 'success', output: '<html>' },
      observation: 'Got 200',
      latencyMs: 0,
      tokens: 0,
      cost: 0.0012,
      sideEffectKey: 'fetch-1',
      worldBefore: { page: null },
      worldAfter: { page: 'loaded' },
      metadata: { attempt: 1 },
    };
    expect(validateStep(full, 0)).toEqual([]);
  });

  it('observation: exactly 10 KB passes, one byte more fails, at the step index', () => {
    expect(validateStep(step({ observation: 'o'.repeat(10 * KB) }), 3)).toEqual([]);
    expect(validateStep(step({ observation: 'o'.repeat(10 * KB + 1) }), 3)).toEqual([
      {
        field: 'input.steps.3.observation',
        limit: 10 * KB,
        actual: 10 * KB + 1,
        message: 'input.steps.3.observation is 10241 bytes; the limit is 10240 bytes',
      },
    ]);
  });

  it('observation: 4-byte characters count as 4', () => {
    expect(validateStep(step({ observation: '😀'.repeat(2560) }), 0)).toEqual([]);
    expect(validateStep(step({ observation: '😀'.repeat(2561) }), 0)).toMatchObject([{ actual: 10_244 }]);
  });

  it('parameters: exactly 1 MB of JSON passes, one byte more fails', () => {
    expect(validateStep(step({ parameters: jsonOfBytes(MB) }), 0)).toEqual([]);
    expect(validateStep(step({ parameters: jsonOfBytes(MB + 1) }), 7)).toMatchObject([{ field: 'input.steps.7.parameters', limit: MB, actual: MB + 1 }]);
  });

  it('parameters: multi-byte characters count in bytes', () => {
    const parameters = { d: 'é'.repeat((MB - 8) / 2 + 1) };
    expect(validateStep(step({ parameters }), 0)).toMatchObject([{ actual: MB + 2 }]);
  });

  it('parameters: NUL is reported at its nested path', () => {
    expect(fields(validateStep(step({ parameters: { argv: ['ls', `-la${NUL}`] } }), 2))).toEqual(['input.steps.2.parameters.argv.1']);
  });

  it('kind: snake_case, non-blank, at most 64 characters', () => {
    for (const kind of ['tool_call', 'llm_call', 'approval_requested', 'x1']) expect(validateStep(step({ kind }), 0)).toEqual([]);
    expect(validateStep(step({ kind: 'ToolCall' }), 0)).toMatchObject([{ field: 'input.steps.0.kind', limit: 'snake_case' }]);
    expect(validateStep(step({ kind: 'tool-call' }), 0)).toMatchObject([{ limit: 'snake_case' }]);
    expect(validateStep(step({ kind: '' }), 0)).toMatchObject([{ limit: 'non-empty' }]);
    expect(validateStep(step({ kind: 'k'.repeat(64) }), 0)).toEqual([]);
    expect(validateStep(step({ kind: 'k'.repeat(65) }), 0)).toMatchObject([{ limit: 64, actual: 65 }]);
  });

  it('result: error needs a message and a clean class; output is bounded by 1 MB', () => {
    expect(validateStep(step({ result: { kind: 'timeout' } }), 0)).toEqual([]);
    expect(validateStep(step({ result: { kind: 'error', message: 'ENOENT', errorClass: 'io' } }), 0)).toEqual([]);
    expect(fields(validateStep(step({ result: { kind: 'error', message: ' ', errorClass: 'a\u0001' } }), 1))).toEqual([
      'input.steps.1.result.message',
      'input.steps.1.result.errorClass',
    ]);
    expect(validateStep(step({ result: { kind: 'success', output: 'x'.repeat(MB) } }), 0)).toEqual([]);
    expect(validateStep(step({ result: { kind: 'success', output: 'x'.repeat(MB + 1) } }), 0)).toMatchObject([
      { field: 'input.steps.0.result.output', limit: MB },
    ]);
  });

  it('numbers: latency and tokens are integers >= 0, cost a finite number >= 0', () => {
    const violations = validateStep(step({ latencyMs: -1, tokens: 1.5, cost: Number.POSITIVE_INFINITY }), 0);
    expect(fields(violations)).toEqual(['input.steps.0.latencyMs', 'input.steps.0.tokens', 'input.steps.0.cost']);
    expect(violations[2]).not.toHaveProperty('actual');
    expect(validateStep(step({ cost: -0.01 }), 0)).toMatchObject([{ field: 'input.steps.0.cost', actual: -0.01 }]);
  });

  it('sideEffectKey: up to 256 characters', () => {
    expect(validateStep(step({ sideEffectKey: 's'.repeat(256) }), 0)).toEqual([]);
    expect(validateStep(step({ sideEffectKey: 's'.repeat(257) }), 0)).toMatchObject([{ field: 'input.steps.0.sideEffectKey' }]);
  });

  it('world state and metadata are bounded and depth-checked', () => {
    expect(
      fields(validateStep(step({ worldBefore: nested(65), worldAfter: jsonOfBytes(MB + 1), metadata: jsonOfBytes(64 * KB + 1) as { d: string } }), 0)),
    ).toEqual(['input.steps.0.worldBefore', 'input.steps.0.worldAfter', 'input.steps.0.metadata']);
  });

  it('tool and action are bounded', () => {
    expect(fields(validateStep(step({ tool: 't'.repeat(201), action: 'a'.repeat(4 * KB + 1) }), 0))).toEqual(['input.steps.0.tool', 'input.steps.0.action']);
    expect(validateStep(step({ tool: 't'.repeat(200), action: 'a'.repeat(4 * KB) }), 0)).toEqual([]);
  });

  it('uses the given list path', () => {
    expect(fields(validateStep(step({ kind: '' }), 0, 'input.batch'))).toEqual(['input.batch.0.kind']);
  });
});

describe('checkStepBatchSize', () => {
  it('1000 steps per call pass, 1001 fail', () => {
    expect(checkStepBatchSize(1000)).toEqual([]);
    expect(checkStepBatchSize(1001)).toEqual([
      { field: 'input.steps', limit: 1000, actual: 1001, message: 'input.steps has 1001 steps in one call; the limit is 1000' },
    ]);
  });
});

describe('checkStepCount', () => {
  it('an episode may reach 1000 steps but not 1001', () => {
    expect(checkStepCount(999, 1)).toEqual([]);
    expect(checkStepCount(1000, 1)).toMatchObject([{ field: 'input.steps', limit: 1000, actual: 1001 }]);
    expect(checkStepCount(0, 1001, 'input.step')).toMatchObject([{ field: 'input.step' }]);
  });
});
