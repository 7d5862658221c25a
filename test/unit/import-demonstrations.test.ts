// Which message of a trajectory is the run's own task: SWE-agent puts a demonstration (with its
// own ISSUE) in history first; the parsers skip it, flagged or not. Fixtures: test/import/fixtures.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isDemonstration, taskMessageOf, textOf } from '../../src/import/messages.ts';
import { parseMiniSweAgent, taskOf } from '../../src/import/mini-swe-agent.ts';
import { parseSweAgent } from '../../src/import/swe-agent.ts';

const FIXTURES = join(import.meta.dirname, '../import/fixtures');
const DEMO_ISSUE = /TimeDelta serialization precision/;

function sweRun(name: string) {
  const file = join(FIXTURES, 'swe-demos', `${name}.traj`);
  return { doc: JSON.parse(readFileSync(file, 'utf8')), run: parseSweAgent(file, readFileSync(file, 'utf8')) };
}

describe('demonstration messages', () => {
  it('are the flagged ones (is_demo, message_type) and any starting with the demonstration sentence', () => {
    expect(isDemonstration({ role: 'user', content: 'ISSUE:\nx\nINSTRUCTIONS:', is_demo: true })).toBe(true);
    expect(isDemonstration({ role: 'user', content: 'x', message_type: 'demonstration' })).toBe(true);
    expect(isDemonstration({ role: 'user', content: '\nHere is a demonstration of how to correctly accomplish this task.\n--- DEMONSTRATION ---' })).toBe(true);
    expect(isDemonstration({ role: 'user', content: [{ type: 'text', text: 'Here is a demonstration of how to correctly accomplish this task.' }] })).toBe(
      true,
    );
    expect(isDemonstration({ role: 'user', content: 'ISSUE:\nHere is a demonstration of how to correctly accomplish this task' })).toBe(false);
    expect(isDemonstration({ role: 'user', content: 'ISSUE:\nx', is_demo: false })).toBe(false);
  });

  it('are skipped when choosing the task message; no message left is no task', () => {
    const messages = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'demo issue', is_demo: true },
      { role: 'assistant', content: 'demo step', is_demo: true },
      { role: 'user', content: 'own issue' },
      { role: 'user', content: 'an observation' },
    ];
    expect(taskMessageOf(messages)?.content).toBe('own issue');
    expect(taskMessageOf(messages.slice(0, 3))).toBeUndefined();
    expect(textOf([{ type: 'text', text: 'a' }, 'b', { type: 'image' }])).toBe('ab');
  });
});

describe('SWE-agent trajectories with a demonstration before their task', () => {
  it.each([
    ['astropy__astropy-12907', /^Modeling's `separability_matrix` does not compute separability correctly/],
    ['django__django-11099', /^UsernameValidator allows trailing newline in usernames\nDescription\n/],
    ['sympy__sympy-20590', /^Symbol instances have __dict__ since 1\.7\?/],
  ])('%s: the task is its own issue, not the demonstration', (name, own) => {
    const { doc, run } = sweRun(name);
    // The fixture does carry the demonstration's issue before the run's own message.
    expect(JSON.stringify(doc.history).search(DEMO_ISSUE)).toBeLessThan(JSON.stringify(doc.history).search(own.source.slice(1, 30)));
    expect(run.taskDescription).toMatch(own);
    expect(run.taskDescription).not.toMatch(DEMO_ISSUE);
    expect(run.taskDescription).not.toMatch(/INSTRUCTIONS:|<pr_description>|uploaded_files/);
    expect(run).toMatchObject({ instanceId: name, startedAt: null, endedAt: null });
    expect(run.steps.every((s) => s.startedAt === null && s.endedAt === null)).toBe(true);
    expect(run.patch).toBe(doc.info.submission);
  });

  it('reads 0.x and 1.x exit statuses as the file states them', () => {
    expect(sweRun('sympy__sympy-20590').run.exitStatus).toBe('submitted (exit_cost)');
    expect(sweRun('django__django-11099').run.exitStatus).toBe('submitted');
  });
});

describe('mini-swe-agent', () => {
  it("takes the task out of mini-swe-agent's default template, not the whole prompt", () => {
    expect(taskOf('Please solve this issue: Fix the thing.\nIt breaks.\n\nYou can execute bash commands and edit files.')).toBe('Fix the thing.\nIt breaks.');
    expect(taskOf('Please solve this issue: no instructions follow')).toBe('Please solve this issue: no instructions follow');
  });

  it('imports a run without times with its times unknown and the task from its template', () => {
    const file = join(FIXTURES, 'mini-untimed', 'sphinx-doc__sphinx-8056', 'sphinx-doc__sphinx-8056.traj.json');
    const run = parseMiniSweAgent(file, readFileSync(file, 'utf8'));
    expect(run.taskDescription).toMatch(/^Render error when combining multiple input parameters in docstring\nA numpydoc parameter line/);
    expect(run.taskDescription).not.toMatch(/Recommended Workflow|Please solve/);
    expect(run).toMatchObject({ startedAt: null, endedAt: null, domain: 'sphinx-doc/sphinx' });
  });

  it('skips a demonstration before the task as SWE-agent runs do', () => {
    const messages = [
      { role: 'system', content: 'system' },
      { role: 'user', content: 'Here is a demonstration of how to correctly accomplish this task.\n<pr_description>demo</pr_description>' },
      { role: 'user', content: '<pr_description>\nConsider the following PR description:\nown task\n</pr_description>' },
      { role: 'assistant', content: 'THOUGHT: look\n\n```bash\nls\n```' },
      { role: 'user', content: '<returncode>0</returncode>\n<output>\na\n</output>' },
    ];
    const run = parseMiniSweAgent('x__y-1.traj.json', JSON.stringify({ messages, info: {} }));
    expect(run.taskDescription).toBe('own task');
    expect(run.steps.map((s) => s.tool)).toEqual(['list']);
  });
});
