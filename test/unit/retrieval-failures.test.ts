// What a warning says went wrong: the work (the last failing command and its error, the files it
// was changing), the harness's verdict only when no step failed.
import { describe, expect, it } from 'vitest';
import { describeFailedWork } from '../../src/retrieval/failures.ts';
import { warningsOf } from '../../src/retrieval/retrieve.ts';
import type { ScoredEpisode } from '../../src/retrieval/store.ts';
import { commandOf } from '../../src/steps/command.ts';

const error = { stepNumber: 12, tool: 'bash', kind: 'error', message: 'TypeError: unhashable type', lastLine: 'TypeError: unhashable type' };

describe('describeFailedWork', () => {
  it('names the last failing command, its error and the files the run was changing, not the verdict', () => {
    const text = describeFailedWork({
      error,
      command: 'python -m pytest tests/test_forms.py -x',
      files: ['django/forms/models.py', 'a.py', 'b.py', 'c.py'],
      verdict: 'not resolved by the harness: exit status Submitted',
    });
    expect(text).toBe(
      '`python -m pytest tests/test_forms.py -x` failed (step 12): TypeError: unhashable type; was changing django/forms/models.py, a.py, b.py and 1 more',
    );
  });

  it('adds the last output line when it says more than the message, and falls back to the verdict without a failed step', () => {
    expect(describeFailedWork({ error: { ...error, lastLine: 'FAILED tests/test_x.py::test_y' }, command: null, files: [], verdict: null })).toBe(
      'bash failed (step 12): TypeError: unhashable type; last output: FAILED tests/test_x.py::test_y',
    );
    expect(describeFailedWork({ error: null, command: null, files: ['x.py'], verdict: 'tests failing' })).toBe('tests failing; was changing x.py');
    expect(describeFailedWork({ error: null, command: null, files: [], verdict: null })).toBeNull();
  });

  it('reads the command from the usual parameter names, or the only string', () => {
    expect(commandOf({ command: 'make test' })).toBe('make test');
    expect(commandOf({ cmd: 'ls' })).toBe('ls');
    expect(commandOf({ path: 'a.py' })).toBe('a.py');
    expect(commandOf({ path: 'a.py', mode: 'r' })).toBeNull();
    expect(commandOf(null)).toBeNull();
  });
});

const scored = (id: string, total: number, failed: boolean, similarity = total) => ({ id, failed, score: { total, similarity } }) as unknown as ScoredEpisode;

describe('warningsOf', () => {
  it('serves failed runs above the floor, not already among the runs, each once', () => {
    const ranked = [scored('a', 1, false), scored('f1', 0.9, true), scored('b', 0.8, false), scored('f2', 0.6, true), scored('f3', 0.02, true)];
    expect(warningsOf(ranked, 2).map((e) => e.id)).toEqual(['f2']);
    expect(warningsOf(ranked, 1).map((e) => e.id)).toEqual(['f1']);
    expect(warningsOf(ranked, 5)).toEqual([]);
    // A shared context keeps its score up; its text is not similar enough.
    expect(warningsOf([scored('a', 1, false), scored('f', 0.6, true, 0.1)], 1)).toEqual([]);
  });
});
