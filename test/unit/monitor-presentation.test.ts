// What the monitor and the CLI show people about a retrieval: a failed run's last error (the
// strength they show is the server's, test/unit/retrieval-calibration.test.ts).
import { describe, expect, it } from 'vitest';
import { describeLastError, LAST_LINE_CHARS, lastLineOf } from '../../src/monitor/last-error.ts';

describe("a failed run's last error", () => {
  it('says the step, its tool, the error and the last line of the output', () => {
    const output = 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad value\n\n';
    expect(
      describeLastError({ step_number: 7, tool: 'python', result_kind: 'error', result: { message: 'exit code 1', errorClass: 'exit_1', output } }),
    ).toEqual({
      stepNumber: 7,
      tool: 'python',
      kind: 'error',
      message: 'exit_1: exit code 1',
      lastLine: 'ValueError: bad value',
    });
  });

  it('says "timed out" for a timeout without a message, and keeps a long last line short', () => {
    expect(describeLastError({ step_number: 2, tool: null, result_kind: 'timeout', result: null })).toMatchObject({ message: 'timed out', lastLine: null });
    const line = lastLineOf('x'.repeat(500));
    expect(line).toHaveLength(LAST_LINE_CHARS);
    expect(line?.endsWith('…')).toBe(true);
    expect(lastLineOf(42)).toBeNull();
    expect(lastLineOf('\n \n')).toBeNull();
  });
});
