// The commands that talk to a running server, by name. A new command is a RemoteCommand (name,
// summary, help, options, run returning { text, json }) added to the list below: it gets --help,
// --json, --url/--key, the exit codes and escaped output from remote.ts and errors.ts.
import { keysCommand } from './api-keys.ts';
import { completeCommand, listCommand, startCommand } from './episode-commands.ts';
import { experimentCommand, impactCommand } from './experiments.ts';
import { importCommand } from './import.ts';
import { exportCommand, tailCommand } from './ledger-commands.ts';
import { logCommand } from './log.ts';
import { relevantCommand } from './relevant.ts';
import type { RemoteCommand } from './remote.ts';
import { retentionCommand } from './retention.ts';
import { showCommand } from './show.ts';

export const REMOTE_COMMANDS: Record<string, RemoteCommand> = Object.fromEntries(
  [
    startCommand,
    logCommand,
    importCommand,
    completeCommand,
    showCommand,
    listCommand,
    relevantCommand,
    tailCommand,
    exportCommand,
    keysCommand,
    retentionCommand,
    experimentCommand,
    impactCommand,
  ].map((c) => [c.name, c]),
);

/** The remote command argv asks for; `keys` goes to the database instead when --tenant is given. */
export function remoteCommandFor(argv: string[]): RemoteCommand | undefined {
  const name = argv.find((a, i) => !a.startsWith('-') && !['--url', '--key'].includes(argv[i - 1] ?? ''));
  if (!name || (name === 'keys' && argv.some((a) => a === '--tenant' || a.startsWith('--tenant=')))) return undefined;
  return REMOTE_COMMANDS[name];
}

export function remoteCommandsHelp(): string {
  return Object.values(REMOTE_COMMANDS)
    .map((c) => `  ${c.name.padEnd(10)}  ${c.summary}`)
    .join('\n');
}
