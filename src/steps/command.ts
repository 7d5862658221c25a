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
  for (const key of COMMAND_KEYS) if (typeof record[key] === 'string' && record[key]) return record[key] as string;
  return null;
}

function onlyString(parameters: unknown): string | null {
  if (!parameters || typeof parameters !== 'object') return null;
  const strings = Object.values(parameters as Record<string, unknown>).filter((v): v is string => typeof v === 'string' && v !== '');
  return strings.length === 1 ? (strings[0] ?? null) : null;
}
