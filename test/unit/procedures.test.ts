// Procedures from commands (src/learning/procedures.ts): the ways of working a repository's runs share,
// normalised, with exploration, inline code and the runs' own scratch scripts left out.
import { describe, expect, it } from 'vitest';
import { filesWritten, proceduresOf, simpleCommands } from '../../src/learning/procedures.ts';
import { shellCommandOf } from '../../src/steps/command.ts';

describe('proceduresOf', () => {
  it('normalises a test runner call to its program and script, dropping arguments and the cd before it', () => {
    expect(proceduresOf('cd /testbed && python3 tests/runtests.py admin_views.tests -v 2 2>&1 | tail -20')).toEqual(['python tests/runtests.py']);
    expect(proceduresOf('./tests/runtests.py queries')).toEqual(['python tests/runtests.py']);
    expect(proceduresOf('bin/test sympy/core/tests/test_basic.py')).toEqual(['bin/test']);
  });

  it('keeps a module, a runner or a tool with its subcommand', () => {
    expect(proceduresOf('python -m pytest tests/test_ext.py -k autodoc -x')).toEqual(['python -m pytest']);
    expect(proceduresOf('PYTHONPATH=. timeout 300 pytest -q tests/')).toEqual(['pytest']);
    expect(proceduresOf('npm run build && npm test -- --watch=false')).toEqual(['npm run build', 'npm test']);
    expect(proceduresOf('cargo test --lib parser::tests')).toEqual(['cargo test']);
    expect(proceduresOf('./gradlew :core:test --info')).toEqual(['./gradlew :core:test']);
    expect(proceduresOf('mvn -q -pl core test')).toEqual(['mvn test']);
    expect(proceduresOf('make -C build -j 4 check')).toEqual(['make check']);
    expect(proceduresOf('go test ./pkg/... -run TestX')).toEqual(['go test']);
  });

  it('finds nothing in exploration, edits and inline code', () => {
    for (const command of ['ls -R django/core | grep validators.py', "sed -i 's/a/b/' x.py", 'git diff', 'grep -rn "def f" .', 'python -c "print(1)"'])
      expect(proceduresOf(command)).toEqual([]);
  });

  it("leaves out the run's own scripts and those under /tmp", () => {
    const command = "cat <<'EOF' > reproduce_issue.py\nimport django\nprint('x && pytest')\nEOF\npython reproduce_issue.py";
    expect(filesWritten(command)).toEqual(['reproduce_issue.py']);
    expect(proceduresOf(command, new Set(filesWritten(command)))).toEqual([]);
    expect(proceduresOf('python /tmp/check.py')).toEqual([]);
    expect(proceduresOf('python reproduce_issue.py', new Set(['reproduce_issue.py']))).toEqual([]);
  });

  it('reads the files a command writes by redirection, tee and touch', () => {
    expect(filesWritten('echo hi > out.txt; python x.py 2>&1 | tee log.txt; touch a/b.py')).toEqual(['out.txt', 'log.txt', 'a/b.py']);
    expect(filesWritten('make 2>&1 > /dev/null')).toEqual([]);
  });
});

describe('commands of other harnesses', () => {
  it("reads Codex's argv commands and leaves SWE-agent's edit blocks out", () => {
    expect(shellCommandOf({ command: ['bash', '-lc', 'cd repo && cargo test -q'] })).toBe('cd repo && cargo test -q');
    expect(shellCommandOf({ command: ['pytest', '-q', 'tests'] })).toBe('pytest -q tests');
    expect(shellCommandOf({ file_path: 'src/app.py' })).toBeNull();
    expect(proceduresOf('edit 10:12\n    npm test\n    make check\nend_of_edit')).toEqual([]);
    expect(proceduresOf('python -m pytest tests/test_x.py')).toEqual(['python -m pytest']);
  });
});

describe('simpleCommands', () => {
  it('splits at operators outside quotes only and drops heredoc bodies', () => {
    expect(simpleCommands(`cd a && echo "x && y" | grep 'z;w'; ls`)).toEqual([['cd', 'a'], ['echo', 'x && y'], ['grep', 'z;w'], ['ls']]);
    expect(simpleCommands('cat <<EOF > f.py\nrm -rf /\nEOF\npython f.py')).toEqual([['cat'], ['python', 'f.py']]);
  });
});
