// The MCP tools' pure parts: the text an agent reads, the step a tool call becomes, and which tools
// a key's scopes show.
import { describe, expect, it } from 'vitest';
import { oneLine, relevantEpisodesText, relevantFilesText, relevantPatternsText, violationsText } from '../../src/mcp/format.ts';
import { episodeText } from '../../src/mcp/format-episode.ts';
import { toolsFor } from '../../src/mcp/server.ts';
import { stepInput } from '../../src/mcp/write-tools.ts';

const success = { kind: 'SUCCESS', verdict: 'fixed the rounding', artifacts: ['billing/export.py', 'tests/test_export.py'] };
const failure = { kind: 'FAILURE', reason: 'tests still fail', details: 'AssertionError in test_totals' };

describe('relevant_episodes text', () => {
  it('gives the retrieval id to credit, each run with its outcome, files, lesson and what went wrong', () => {
    const text = relevantEpisodesText({
      retrievalId: 'r-1',
      episodes: [
        {
          episode: { id: 'e-1', taskDescription: 'Fix\nthe   rounding', outcome: success, reflection: { improvements: ['run the tests first'] } },
          score: { total: 0.8123, strength: 0.347, strengthWord: 'moderate' },
        },
      ],
      warnings: [{ episode: { id: 'e-2', taskDescription: 'Fix totals', outcome: failure }, failed: true, whatWentWrong: 'tests still fail: AssertionError' }],
    });
    expect(text.split('\n')).toEqual([
      'Retrieval r-1: if this helped, pass it to complete_episode in usedRetrievals (credited on success, debited on failure).',
      '1 past run(s) of similar tasks, best first:',
      '1. SUCCESS: fixed the rounding (moderate match: 35% chance it is useful; ranking score 0.81) episode e-1',
      '   task: Fix the rounding',
      '   files: billing/export.py, tests/test_export.py',
      '   lesson: run the tests first',
      'Similar runs that failed (avoid what they did):',
      '1. FAILURE: tests still fail: AssertionError in test_totals (unknown match: ? chance it is useful; ranking score ?) episode e-2',
      '   task: Fix totals',
      '   what went wrong: tests still fail: AssertionError',
    ]);
  });

  it('says so when nothing matches, and when a read key got no retrieval id', () => {
    expect(relevantEpisodesText({ retrievalId: null, episodes: [], warnings: null })).toBe('No completed past run matches this task yet.');
    expect(relevantEpisodesText({ retrievalId: null, episodes: [{ episode: { id: 'e', outcome: success }, score: { total: 1 } }] })).toMatch(
      /^No retrieval id/,
    );
  });
});

describe('relevant_files and relevant_patterns text', () => {
  it('lists each file with its runs and an example run', () => {
    const text = relevantFilesText({
      retrievalId: 'r-2',
      files: [{ path: 'billing/export.py', score: 0.5, runs: 3, resolved: 2, failed: 1, evidence: [{ id: 'e-1', taskDescription: 'Fix the rounding' }] }],
    });
    expect(text).toContain('1. billing/export.py (score 0.50): changed in 3 run(s), 2 resolved, 1 failed; e.g. episode e-1: Fix the rounding');
    expect(relevantFilesText({ retrievalId: 'r', files: [] })).toBe('No past run of a similar task changed any file yet.');
  });

  it('shows a pattern with its success rate and signed lift', () => {
    const text = relevantPatternsText({
      retrievalId: 'r-3',
      patterns: [
        {
          pattern: { id: 'p', kind: 'ERROR_RECOVERY', description: 'after TimeoutError, retry', occurrences: 4, successRate: 0.75, lift: -0.2 },
          score: { total: 0.4 },
        },
      ],
    });
    expect(text).toContain('1. ERROR_RECOVERY: after TimeoutError, retry (4 run(s), success rate 75%, lift -0.20; score 0.40)');
  });

  it('shows a pattern by its summary when the answer has one (a procedure and its counts)', () => {
    const summary = 'In django/django, `python tests/runtests.py` worked in 176 of the 178 runs that ran it: 76% of the runs in django/django.';
    const failedInstead = ['`python -m pytest` worked in 1 of the 56 runs that ran it'];
    const text = relevantPatternsText({
      retrievalId: 'r-4',
      patterns: [{ pattern: { id: 'p', kind: 'PROCEDURE', summary, failedInstead }, score: { total: 0.88 } }],
    });
    expect(text).toContain(`1. PROCEDURE: ${summary} (score 0.88)\n   usually failed there: ${failedInstead[0]}`);
  });
});

describe('episode text', () => {
  it('shows the outcome, the files and each step with its result', () => {
    const text = episodeText({
      id: 'e-1',
      status: 'FAILED',
      taskDescription: 'Fix totals',
      outcome: failure,
      stepCount: 5,
      stopReason: { kind: 'budget_exhausted', resource: 'steps' },
      steps: {
        edges: [
          {
            node: {
              stepNumber: 1,
              kind: 'tool_call',
              tool: 'bash',
              action: 'pytest',
              resultKind: 'error',
              result: { message: 'boom', errorClass: 'AssertionError' },
            },
          },
          { node: { stepNumber: 2, kind: 'tool_call', tool: 'bash', action: 'pytest -x', resultKind: 'timeout', result: {} } },
        ],
        pageInfo: { hasNextPage: true },
      },
    });
    expect(text.split('\n')).toEqual([
      'Episode e-1: FAILED, FAILURE: tests still fail: AssertionError in test_totals',
      'Task: Fix totals',
      'Stopped: budget_exhausted, steps',
      'Steps (first 2 of 5):',
      '  1. tool_call bash: pytest -> ERROR AssertionError: boom',
      '  2. tool_call bash: pytest -x -> TIMEOUT',
    ]);
  });
});

describe('refusals and steps', () => {
  it('names each field and its limit once', () => {
    expect(
      violationsText([{ field: 'steps.0.observation', limit: 10240, actual: 20480, message: 'steps.0.observation is 20480 bytes; the limit is 10240 bytes' }]),
    ).toBe('steps.0.observation is 20480 bytes; the limit is 10240 bytes');
    expect(violationsText([{ field: 'limit', limit: '1..50', actual: 90, message: 'too many' }])).toBe('limit: too many (limit 1..50, got 90)');
  });

  it('cuts long text to one line', () => {
    expect(oneLine('a\n\nb   c', 10)).toBe('a b c');
    expect(oneLine('abcdefghijkl', 5)).toBe('abcd…');
  });

  it('turns status, output and errorMessage into the step result', () => {
    expect(stepInput({ kind: 'tool_call', errorMessage: 'boom', errorClass: 'E' }).result).toEqual({
      kind: 'ERROR',
      message: 'boom',
      errorClass: 'E',
      output: undefined,
    });
    expect(stepInput({ kind: 'tool_call', output: 'ok' }).result).toEqual({ kind: 'SUCCESS', output: 'ok' });
    expect(stepInput({ kind: 'tool_call', status: 'timeout' }).result).toEqual({ kind: 'TIMEOUT' });
    expect(stepInput({ kind: 'observation', observation: 'seen' })).toEqual({ kind: 'observation', observation: 'seen', result: undefined });
  });
});

describe('the tools a key sees', () => {
  it('shows a read key the read tools only; write and admin keys all of them', () => {
    expect(toolsFor(['read']).map((t) => t.name)).toEqual(['relevant_episodes', 'relevant_files', 'relevant_patterns', 'episode', 'memory_impact']);
    expect(toolsFor(['write']).map((t) => t.name)).toHaveLength(9);
    expect(toolsFor(['admin']).map((t) => t.name)).toContain('complete_episode');
  });
});
