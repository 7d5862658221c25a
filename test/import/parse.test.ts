// The pure parts of importing: commands to tools, exit codes to result kinds, repositories and
// changed files, verdict files, and large text offloaded into blobs or truncated.
import { describe, expect, it } from 'vitest';
import { actionOf, mainCommand, resultKindOf, toolOf } from '../../src/import/commands.ts';
import { parseGenericJsonl } from '../../src/import/jsonl.ts';
import { taskOf } from '../../src/import/mini-swe-agent.ts';
import { changedFiles, languageOf, lineAt, repositoryOf } from '../../src/import/run.ts';
import { sweAgentToolOf } from '../../src/import/swe-agent.ts';
import { parseVerdicts } from '../../src/import/verdicts.ts';
import { blobHash, offloadLargeContent, preview } from '../../src/steps/large-content.ts';
import { utf8Bytes } from '../../src/validation/violations.ts';

describe('commands', () => {
  it.each([
    ['grep -rn "def slugify" django/utils', 'search'],
    ['find . -name "*.py" | xargs grep -l urlize', 'search'],
    ['git grep -n foo', 'search'],
    ['cat django/utils/text.py', 'view'],
    ["sed -n '10,20p' a.py", 'view'],
    ["sed -i 's/a/b/' a.py", 'edit'],
    ["cat <<'EOF' > reproduce.py\nprint(1)\nEOF", 'edit'],
    ['echo "x = 1" >> settings.py', 'edit'],
    ['cd /testbed && ./tests/runtests.py utils_tests', 'test'],
    ['python -m pytest sympy/core/tests/test_add.py -x', 'test'],
    ['python reproduce.py', 'run'],
    ['ls -la django/core', 'list'],
    ['git diff', 'git'],
    ['pip install -e .', 'install'],
    ['echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached', 'submit'],
    ['sleep 5', 'shell'],
  ])('%s -> %s', (command, tool) => {
    expect(toolOf(command)).toBe(tool);
  });

  it('finds the command that does the work in a chain', () => {
    expect(mainCommand('cd /repo && export A=1 && FOO=bar python x.py | head')).toBe('python x.py | head');
  });

  it('maps SWE-agent commands, falling back to shell commands', () => {
    expect(['open a.py', 'search_dir foo', 'edit 1:2\nx\nend_of_edit', 'str_replace_editor view /a', 'submit', 'pytest'].map(sweAgentToolOf)).toEqual([
      'view',
      'search',
      'edit',
      'view',
      'submit',
      'test',
    ]);
  });

  it('summarises a command in its first line, at most 200 characters', () => {
    expect(actionOf("cat <<'EOF' > a.py\nbody\nEOF")).toBe("cat <<'EOF' > a.py");
    expect(Array.from(actionOf('é'.repeat(500)))).toHaveLength(200);
  });

  it('maps exit codes to result kinds', () => {
    expect([0, 1, 2, 124, 137, null].map((c) => resultKindOf(c))).toEqual(['SUCCESS', 'ERROR', 'ERROR', 'TIMEOUT', 'TIMEOUT', 'SUCCESS']);
    expect(resultKindOf(0, true)).toBe('TIMEOUT');
  });
});

describe('runs', () => {
  it('reads the repository from a SWE-bench instance id', () => {
    expect(repositoryOf('django__django-10097')).toBe('django/django');
    expect(repositoryOf('sphinx-doc__sphinx-8056')).toBe('sphinx-doc/sphinx');
    expect(repositoryOf('not-an-instance')).toBeNull();
  });

  it('lists the files a patch changes, once each, and their language', () => {
    const patch = 'diff --git a/x/a.py b/x/a.py\n+1\ndiff --git a/x/b.py b/x/b.py\n+2\ndiff --git a/x/a.py b/x/a.py\n';
    expect(changedFiles(patch)).toEqual(['x/a.py', 'x/b.py']);
    expect(languageOf(['a.ts', 'b.ts', 'c.py'])).toBe('typescript');
    expect(languageOf(['README'])).toBeNull();
  });

  it('takes the task out of the mini-swe-agent template', () => {
    expect(taskOf('<pr_description>\nConsider the following PR description:\nFix it\nplease\n</pr_description>\n<instructions>x</instructions>')).toBe(
      'Fix it\nplease',
    );
  });

  it('counts lines', () => {
    expect(lineAt('a\nb\nc', 4)).toBe(3);
  });

  it('reads verdicts from CSV and JSON, naming a bad line', () => {
    expect([...parseVerdicts('r.csv', 'instance_id,resolved\na__b-1,True\na__b-2,False\n')]).toEqual([
      ['a__b-1', true],
      ['a__b-2', false],
    ]);
    expect([...parseVerdicts('r.json', '{"resolved_ids":["a__b-1"]}')]).toEqual([['a__b-1', true]]);
    expect(() => parseVerdicts('r.csv', 'id,ok\n')).toThrow(/r\.csv:1: a verdict CSV needs the columns instance_id and resolved/);
    expect(() => parseVerdicts('r.csv', 'instance_id,x,resolved\na__b-1\n')).toThrow(/r\.csv:2: expected 3 columns/);
  });

  it('names the JSONL line of a bad step field', () => {
    const text = '{"type":"run","id":"a","task":"t"}\n{"type":"step","command":"ls","exitCode":"zero"}\n';
    expect(() => parseGenericJsonl('f.jsonl', text)).toThrow('f.jsonl:2: "exitCode" must be a number');
    expect(() => parseGenericJsonl('f.jsonl', '{"type":"step","command":"ls"}')).toThrow('f.jsonl:1: the first line must be {"type":"run", ...}');
  });
});

describe('large content', () => {
  const ref = { hash: 'h'.repeat(64), sizeBytes: 100_000, stored: true };

  it('previews head and tail within the limit, never splitting a character', () => {
    const text = `${'ä'.repeat(20_000)}END`;
    const shown = preview(text, 10 * 1024, { ...ref, sizeBytes: utf8Bytes(text) });
    expect(utf8Bytes(shown)).toBeLessThanOrEqual(10 * 1024);
    expect(shown).not.toContain('\uFFFD');
    expect(shown.startsWith('ää')).toBe(true);
    expect(shown.endsWith('äEND')).toBe(true);
    expect(utf8Bytes(preview('x'.repeat(10_000), 4 * 1024, ref))).toBeLessThanOrEqual(4 * 1024);
  });

  it('moves only fields past their inline limit, as blobs or truncated, and leaves refuse mode alone', () => {
    const observation = 'o'.repeat(20_000);
    const step = { kind: 'tool_call', observation, action: 'short', result: { kind: 'error' as const, message: 'm'.repeat(11_000), output: 'small' } };
    const blob = offloadLargeContent(step, 'blob');
    expect(Object.keys(blob.refs ?? {})).toEqual(['observation', 'result.message']);
    expect(blob.blobs.map((b) => b.hash)).toEqual([blobHash(observation), blobHash('m'.repeat(11_000))]);
    expect(blob.step.action).toBe('short');
    const truncated = offloadLargeContent(step, 'truncate');
    expect(truncated.blobs).toEqual([]);
    expect(truncated.refs?.observation).toEqual({ hash: blobHash(observation), sizeBytes: 20_000, stored: false });
    expect(offloadLargeContent(step, 'refuse')).toEqual({ step, refs: null, blobs: [] });
    expect(offloadLargeContent({ kind: 'x', observation: `a\u0000${'b'.repeat(20_000)}` }, 'blob').refs).toBeNull();
  });

  it('hashes text as BLAKE3 of its UTF-8 bytes', () => {
    expect(blobHash('abc')).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
  });
});
