// The command a step ran, read from its parameters. Pure.

/** Keys a shell tool's parameters name its command by (Bash {command}, execute_bash {command}, exec {cmd}). */
const COMMAND_KEYS = ['command', 'cmd', 'script'] as const;

/** The command a step ran, from its parameters (`command`, `cmd`, `script`, or the only string). */
export function commandOf(parameters: unknown): string | null {
  return shellCommandOf(parameters) ?? onlyString(parameters);
}

/**
 * The shell command a step ran, only when its parameters name one (`command`, `cmd`, `script`) or are
 * one string: a file tool's only string is a path (Read {file_path}), not a command to learn from.
 */
export function shellCommandOf(parameters: unknown): string | null {
  if (typeof parameters === 'string') return parameters || null;
  if (!parameters || typeof parameters !== 'object') return null;
  const record = parameters as Record<string, unknown>;
  for (const key of COMMAND_KEYS) {
    const value = record[key];
    if (typeof value === 'string' && value) return value;
    if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) return argvCommand(value as string[]);
  }
  return null;
}

/** An argv command (Codex's shell tool: `["bash", "-lc", "pytest -q"]`): the script a shell runs, else the words joined. */
function argvCommand(argv: string[]): string {
  const [program, flag, script] = argv;
  const shell = /(?:^|\/)(?:ba|z|da)?sh$/.test(program ?? '');
  return shell && /^-\w*c$/.test(flag ?? '') && script !== undefined ? script : argv.join(' ');
}

function onlyString(parameters: unknown): string | null {
  if (!parameters || typeof parameters !== 'object') return null;
  const strings = Object.values(parameters as Record<string, unknown>).filter((v): v is string => typeof v === 'string' && v !== '');
  return strings.length === 1 ? (strings[0] ?? null) : null;
}
