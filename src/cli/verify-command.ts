// `episodic verify` as a command: the check itself is verify.ts; this turns its report into the
// CLI's output (a summary line, or the report with --json) and exit code 3 when not verified.
import { CliError, type Output } from './errors.ts';
import { readVerifierState, VERIFY_FAILED_EXIT, verifyFile, writeVerifierState } from './verify.ts';

export async function verifyCommand(path: string, publicKey: string | undefined, statePath?: string): Promise<Output> {
  const state = statePath ? await readVerifierState(statePath) : undefined;
  const result = await verifyFile(path, publicKey, state);
  if (!result.ok) {
    const first = result.problems[0];
    throw Object.assign(
      new CliError(
        `NOT VERIFIED (${result.kind}): ${first ? `seq ${first.seq ?? '?'}: ${first.problem}: ${first.reason}` : 'unknown problem'}`,
        VERIFY_FAILED_EXIT,
      ),
      { details: result },
    );
  }
  if (statePath) {
    if (result.kind !== 'export') throw new CliError('--state applies to ledger exports, not to proof bundles', 2);
    if (!result.state) throw new CliError('--state: the first check must be of an export from seq 1 (episodic export), to verify the root itself', 2);
    await writeVerifierState(statePath, result.state);
  }
  const extra =
    result.kind === 'bundle'
      ? `, ${result.stepsChecked ?? 0} steps, ${result.stepsForgotten ?? 0} steps forgotten, ${result.rowsChecked ?? 0} hashed rows, ${result.rowsForgotten ?? 0} hashed rows forgotten`
      : `, ${result.checkpointsChecked ?? 0} signed checkpoints, ${result.rowsChecked ?? 0} hashed rows, ${result.stepsForgotten ?? 0} steps forgotten, ${result.rowsForgotten ?? 0} hashed rows forgotten`;
  const kept = statePath && result.state ? `; state at tree size ${result.state.treeSize} written to ${statePath}` : '';
  return { text: `verified ${result.kind}: ${result.checked} events${extra} checked${kept}`, json: result };
}
