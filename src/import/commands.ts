// Shell commands to meaningful tool names, and exit codes to result kinds. Pure.
import type { ResultKind } from './run.ts';

const TEST =
  /(^|[\s/])(pytest|py\.test|runtests\.py|tox|nosetests|unittest|bin\/test|manage\.py test|npm (run )?test|yarn test|go test|cargo test|mvn test|make test)\b/;
const SEARCH = /^(grep|egrep|fgrep|rg|ag|ack|find|git grep|locate)\b/;
const LIST = /^(ls|tree|pwd|du)\b/;
const VIEW = /^(cat|head|tail|less|more|nl|wc|sed -n|awk|bat|view|open|file|stat|diff)\b/;
const GIT = /^git\b/;
const INSTALL = /^(pip3?|python3? -m pip|npm (install|i|ci)|yarn add|apt(-get)?|conda|poetry|uv pip|cargo install|go get)\b/;
const EDIT_PREFIX = /^(sed -i|perl -pi|perl -i|ed\b|patch\b|apply_patch|str_replace|edit\b|create\b|insert\b|tee\b|touch\b|mv\b|cp\b|rm\b|mkdir\b)/;
// A heredoc or echo into a file writes it; a bare heredoc into an interpreter runs it.
const WRITES_FILE = /^(cat|echo|printf)\b[^|]*>{1,2}\s*\S/;
const RUN = /^(python3?|node|bash|sh|ruby|perl|go run|java|make|\.\/)/;

/** Mini-swe-agent's and SWE-agent's end-of-run markers. */
const SUBMIT = /COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT|^submit\b/;

/** The first command of a pipeline or chain that does the work: `cd x && y` is y, env assignments dropped. */
export function mainCommand(command: string): string {
  const parts = command
    .trim()
    .split(/\s*(?:&&|\|\||;|\n)\s*/)
    .map((p) => p.trim())
    .filter(Boolean);
  const working = parts.find((p) => !/^(cd|export|source|set|\.|true|clear)\b/.test(p) && !/^\w+=\S*$/.test(p)) ?? parts[0] ?? '';
  return working.replace(/^(\w+=\S*\s+)+/, '').replace(/^(sudo|time|timeout \d+\w?)\s+/, '');
}

/** view, edit, search, list, test, run, git, install, submit, or shell for anything else. */
export function toolOf(command: string): string {
  if (SUBMIT.test(command)) return 'submit';
  const main = mainCommand(command);
  if (TEST.test(main)) return 'test';
  if (EDIT_PREFIX.test(main) || WRITES_FILE.test(main)) return 'edit';
  if (/^python3? -c\b/.test(main) && /open\([^)]*['"]w/.test(main)) return 'edit';
  if (GIT.test(main)) return SEARCH.test(main) ? 'search' : 'git';
  if (SEARCH.test(main)) return 'search';
  if (LIST.test(main)) return 'list';
  if (VIEW.test(main)) return 'view';
  if (INSTALL.test(main)) return 'install';
  if (RUN.test(main)) return 'run';
  return 'shell';
}

/** The command's first line, at most 200 characters: the step's action. */
export function actionOf(command: string): string {
  const first = command.trim().split('\n')[0] ?? '';
  const chars = Array.from(first);
  const short = chars.length > 200 ? `${chars.slice(0, 199).join('')}…` : first;
  return short || '(empty command)';
}

/** Exit code 0 succeeds; 124 and 137 (timeout, killed) time out; any other code is an error. */
export function resultKindOf(exitCode: number | null, timedOut = false): ResultKind {
  if (timedOut || exitCode === 124 || exitCode === 137) return 'TIMEOUT';
  return exitCode === 0 || exitCode === null ? 'SUCCESS' : 'ERROR';
}
