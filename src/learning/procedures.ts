/**
 * Procedures: how work is done in a repository, read from the commands its runs ran. A command line
 * is split into its simple commands (`cd x && python tests/runtests.py a.b -v 2 | tail`), and each one
 * that runs a test suite, a build or a project script becomes its normalised form: the program, its
 * module or script path, and the subcommand of a tool (`python tests/runtests.py`, `python -m pytest`,
 * `npm test`, `cargo test`, `make check`, `./gradlew test`); its arguments (test names, flags) are
 * dropped, so the same way of working in two runs is one procedure. Exploration and editing (`ls`,
 * `grep`, `sed -i`, `git diff`) and inline code (`python -c`) are not procedures. A script the run
 * wrote itself (`cat > reproduce.py <<EOF`, `> x.sh`, `touch`, `tee`) or one under /tmp is the run's
 * scratch, not the repository's: it is left out. Pure.
 */

/** Interpreters, by the names they are called with, and the extension of the scripts each runs. */
const INTERPRETERS: ReadonlyArray<[RegExp, string]> = [
  [/^(?:python|pypy)(?:\d+(?:\.\d+)*)?$/, 'python'],
  [/^node(?:js)?$/, 'node'],
  [/^(?:ba|z|da)?sh$/, 'bash'],
  [/^ruby$/, 'ruby'],
  [/^perl$/, 'perl'],
  [/^php$/, 'php'],
  [/^Rscript$/, 'Rscript'],
];
const SCRIPT_INTERPRETER: Readonly<Record<string, string>> = { py: 'python', js: 'node', mjs: 'node', sh: 'bash', rb: 'ruby', pl: 'perl', php: 'php' };

/**
 * Test runners and build tools, with how many of their leading words name the work: 0 for a runner
 * (`pytest tests/x.py` is `pytest`), 1 for a tool with subcommands (`cargo test`), 2 for a tool whose
 * `run`/`exec` names a script (`npm run build`, `bundle exec rspec`).
 */
const TOOLS: Readonly<Record<string, number>> = {
  pytest: 0,
  'py.test': 0,
  nosetests: 0,
  tox: 0,
  nox: 0,
  jest: 0,
  vitest: 1,
  mocha: 0,
  rspec: 0,
  phpunit: 0,
  ctest: 0,
  make: 1,
  cmake: 0,
  ninja: 1,
  npm: 2,
  yarn: 2,
  pnpm: 2,
  bun: 2,
  npx: 1,
  cargo: 1,
  go: 1,
  mvn: 1,
  mvnw: 1,
  gradle: 1,
  gradlew: 1,
  ant: 1,
  sbt: 1,
  dotnet: 1,
  bundle: 2,
  rake: 1,
  pip: 1,
  pip3: 1,
  poetry: 2,
  uv: 2,
  pdm: 2,
  hatch: 2,
  bazel: 1,
  swift: 1,
  mix: 1,
  stack: 1,
  cabal: 1,
  dune: 1,
  composer: 1,
  deno: 1,
};
/** Subcommands after which the next word names what runs (`npm run build`, `bundle exec rspec`, `uv run pytest`). */
const RUNS_NEXT = new Set(['run', 'exec', 'run-script', 'x']);
/** Words that only wrap the command they precede. */
const WRAPPERS = new Set(['sudo', 'env', 'time', 'nice', 'nohup', 'command', 'exec', 'xvfb-run', 'stdbuf']);

export const PROCEDURE_RULES = {
  /** Characters of a procedure kept: longer forms are not a way of working but a one-off. */
  maxChars: 120,
  /** Procedures one run adds (its first ones in step order). */
  perEpisode: 12,
} as const;

/** Plain words only: a form with quotes, `$`, globs or braces left in it is a misread command, not a way of working. */
const PROCEDURE_FORM = /^[\w./@:+-]+(?: [\w./@:+-]+)*$/;

/** The procedure each simple command of `command` runs, in order, distinct; scratch scripts excluded. */
export function proceduresOf(command: string, scratch: ReadonlySet<string> = new Set()): string[] {
  const found: string[] = [];
  for (const words of simpleCommands(command)) {
    const procedure = procedureOf(words, scratch);
    if (procedure && PROCEDURE_FORM.test(procedure) && procedure.length <= PROCEDURE_RULES.maxChars && !found.includes(procedure)) found.push(procedure);
  }
  return found;
}

/** Files `command` writes (redirections, tee, touch): a script written by the run is its scratch. */
export function filesWritten(command: string): string[] {
  const written = new Set<string>();
  for (const match of stripHeredocBodies(command).matchAll(/(?:^|[^0-9&<>])>>?\s*([^\s;&|<>()'"]+)/g)) add(written, match[1]);
  for (const words of simpleCommands(command)) {
    const [program, ...rest] = words;
    if (program === 'tee' || program === 'touch') for (const w of rest) if (!w.startsWith('-')) add(written, w);
  }
  return [...written];
}

function add(paths: Set<string>, path: string | undefined): void {
  if (path && path !== '/dev/null' && !path.startsWith('&')) paths.add(normalPath(path));
}

function normalPath(path: string): string {
  return path.replace(/^\.\//, '');
}

function procedureOf(words: readonly string[], scratch: ReadonlySet<string>): string | null {
  const rest = unwrapped(words);
  const [first, ...args] = rest;
  if (!first) return null;
  const program = first.split('/').pop() ?? first;
  const interpreter = INTERPRETERS.find(([name]) => name.test(program))?.[1];
  if (interpreter) return interpreted(interpreter, args, scratch);
  if (first.includes('/') || /\.\w+$/.test(first)) {
    const script = scriptProcedure(first, scratch);
    if (script) return script;
  }
  const depth = TOOLS[program.replace(/\.(?:bat|cmd)$/, '')];
  if (depth === undefined) return null;
  const name = program === 'gradlew' || program === 'mvnw' ? `./${program}` : program;
  return [name, ...subcommands(args, depth)].join(' ');
}

/** The words after env assignments and wrappers (`FOO=1 timeout 60 python x.py` is `python x.py`). */
function unwrapped(words: readonly string[]): string[] {
  let at = 0;
  while (at < words.length) {
    const word = words[at] as string;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) at += 1;
    else if (WRAPPERS.has(word)) at += 1;
    else if (word === 'timeout') {
      at += 1;
      while (at < words.length && (words[at] as string).startsWith('-')) at += 1;
      at += 1; // its duration
    } else if (word.startsWith('-') && at > 0 && WRAPPERS.has(words[at - 1] as string)) at += 1;
    else break;
  }
  return words.slice(at);
}

function interpreted(interpreter: string, args: readonly string[], scratch: ReadonlySet<string>): string | null {
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === '-c' || arg === '-e' || arg === '--eval' || arg === '-') return null;
    if (arg === '-m') {
      const module = args[i + 1];
      if (!module || module.startsWith('-')) return null;
      const depth = TOOLS[module] ?? 0;
      return [interpreter, '-m', module, ...subcommands(args.slice(i + 2), depth)].join(' ');
    }
    if (arg.startsWith('-')) continue;
    const script = normalPath(arg);
    return isScratch(script, scratch) ? null : `${interpreter} ${script}`;
  }
  return null;
}

/** A script run directly (`./tests/runtests.py`, `bin/test`): by its interpreter when its extension names one. */
function scriptProcedure(path: string, scratch: ReadonlySet<string>): string | null {
  const script = normalPath(path);
  if (isScratch(script, scratch)) return null;
  const program = script.split('/').pop() ?? script;
  if (program === 'gradlew' || program === 'mvnw') return null; // a tool: its subcommand matters
  const interpreter = SCRIPT_INTERPRETER[/\.(\w+)$/.exec(script)?.[1] ?? ''];
  if (interpreter) return `${interpreter} ${script}`;
  return script.includes('/') ? script : null;
}

function isScratch(script: string, scratch: ReadonlySet<string>): boolean {
  return scratch.has(script) || script.startsWith('/tmp/') || script.startsWith('/dev/') || /[$`*?]/.test(script);
}

/** Options of common tools whose value is the next word (`mvn -pl core test`, `make -C build check`): not a subcommand. */
const VALUE_OPTIONS = new Set([
  '-C',
  '-f',
  '-pl',
  '-p',
  '-P',
  '-s',
  '-j',
  '-b',
  '-w',
  '--file',
  '--directory',
  '--manifest-path',
  '--prefix',
  '--filter',
  '--workspace',
]);

/** The leading positional words of a tool's arguments that name its work. */
function subcommands(args: readonly string[], depth: number): string[] {
  const values = new Set(args.flatMap((a, i) => (VALUE_OPTIONS.has(a) ? [i + 1] : [])));
  const positional = args.filter((a, i) => !values.has(i) && !a.startsWith('-') && !a.includes('=') && !a.includes('/') && /^[\w:.@-]+$/.test(a));
  const first = positional[0];
  if (depth === 0 || first === undefined) return [];
  if (depth >= 2 && RUNS_NEXT.has(first) && positional[1]) return [first, positional[1]];
  return [first];
}

/**
 * The simple commands of a command line, each as its words (quotes removed): split at newlines,
 * `&&`, `||`, `;`, `|`, `&` and parentheses outside quotes, with heredoc bodies dropped.
 */
export function simpleCommands(command: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let quote: string | null = null;
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length) commands.push(words);
    words = [];
  };
  const text = stripHeredocBodies(command);
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as string;
    if (quote) {
      if (c === quote) quote = null;
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      i += 1;
      if (text[i] !== '\n') {
        word += text[i];
        inWord = true;
      }
    } else if (c === '\n' || c === ';' || c === '|' || c === '&' || c === '(' || c === ')') endCommand();
    else if (c === ' ' || c === '\t') endWord();
    else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands.map(withoutRedirections).filter((w) => w.length > 0);
}

/** Words of a command without its redirections (`> out.txt`, `2>&1`, `<<EOF`). */
function withoutRedirections(words: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] as string;
    if (/^\d*(?:>>?|<<?-?)$/.test(word)) i += 1;
    else if (!/^\d*(?:>>?|<<?-?|>&)/.test(word)) kept.push(word);
  }
  return kept;
}

/**
 * The command line without the bodies of its heredocs (`cat <<'EOF' > x.py` ... `EOF`) and of
 * SWE-agent's edit command (`edit 10:12` ... `end_of_edit`): code, not commands.
 */
function stripHeredocBodies(command: string): string {
  const lines = command.split('\n');
  const kept: string[] = [];
  let end: string | null = null;
  for (const line of lines) {
    if (end !== null) {
      if (line.trim() === end) end = null;
      continue;
    }
    if (/^edit\s+\d+:\d+\s*$/.test(line.trim())) {
      end = 'end_of_edit';
      continue;
    }
    kept.push(line);
    end = /<<-?\s*['"]?([A-Za-z_][\w-]*)['"]?/.exec(line)?.[1] ?? null;
  }
  return kept.join('\n');
}
