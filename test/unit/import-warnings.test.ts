// The import report's warnings: runs of different instances sharing one task text, runs without times.
import { describe, expect, it } from 'vitest';
import { importWarnings, normalisedTask, type ParsedRun, SHARED_TASK } from '../../src/import/warnings.ts';

const run = (id: string, task: string, timesKnown = true, format = 'swe-agent'): ParsedRun => ({ run: id, format, task, timesKnown });
const distinct = (n: number) => Array.from({ length: n }, (_, i) => run(`r-${i}`, `task number ${i}`));

describe('importWarnings', () => {
  it('says nothing about distinct tasks with times', () => {
    expect(importWarnings(distinct(50))).toEqual([]);
  });

  it(`warns when ${SHARED_TASK.minRuns} instances share one task text, up to case and white space`, () => {
    const shared = [run('b-2', 'Fix  the\nbug'), run('a-1', 'fix the bug'), run('c-3', 'FIX THE BUG ')];
    const [warning, ...rest] = importWarnings([...distinct(47), ...shared]);
    expect(rest).toEqual([]);
    expect(warning).toMatchObject({ code: 'SHARED_TASK', runs: ['a-1', 'b-2', 'c-3'] });
    expect(warning?.message).toMatch(/^3 of 50 runs share one task text \("Fix the bug"\)/);
    expect(importWarnings([...distinct(47), ...shared.slice(0, 2)])).toEqual([]);
  });

  it(`warns when two instances are ${SHARED_TASK.minShare * 100} % of the import`, () => {
    expect(importWarnings([...distinct(8), run('x-1', 'same'), run('x-2', 'same')])).toHaveLength(1);
    expect(importWarnings([...distinct(9), run('x-1', 'same'), run('x-2', 'same')])).toEqual([]);
  });

  it('counts runs of one instance (attempts, agents) once', () => {
    expect(importWarnings([run('x-1', 'same'), run('x-1', 'same'), run('x-1', 'same')])).toEqual([]);
  });

  it('warns about runs without times, naming them and their formats', () => {
    const warnings = importWarnings([...distinct(3), run('u-1', 'a', false), run('u-2', 'b', false, 'mini-swe-agent')]);
    expect(warnings).toEqual([
      {
        code: 'TIMES_UNKNOWN',
        message: expect.stringMatching(/^2 of 5 runs carry no times \(mini-swe-agent, swe-agent\): their times stay unknown/),
        runs: ['u-1', 'u-2'],
      },
    ]);
  });

  it('normalises case, Unicode form and white space only', () => {
    expect(normalisedTask(' Ｆix\tthe  bug\n')).toBe('fix the bug');
    expect(normalisedTask('fix the bug.')).not.toBe(normalisedTask('fix the bug'));
  });
});
