// An import's invalid-JSON errors name the line and the mistake, never the file's bytes.
import { describe, expect, it } from 'vitest';
import { jsonErrorWithoutBytes } from '../../src/import/json-errors.ts';
import { parseJson } from '../../src/import/run.ts';

function parseError(text: string): string {
  try {
    parseJson('run.jsonl', text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('parsed');
}

describe('invalid JSON in an import', () => {
  it('does not echo the bytes around the error', () => {
    const message = parseError('{"a": \u001b[31mTOKEN=sk-secret-value and more}');
    expect(message).not.toContain('sk-secret');
    expect(message).not.toContain('\u001b');
    expect(message).toMatch(/invalid JSON: Unexpected character U\+001B/);
  });

  it('keeps the position V8 gives', () => {
    expect(parseError('{"a": 1} trailing-secret')).not.toContain('trailing-secret');
    expect(jsonErrorWithoutBytes('Unexpected non-whitespace character after JSON at position 9')).toBe(
      'Unexpected non-whitespace character after JSON at position 9',
    );
  });
});
