// `episodic verify` as a command: the check itself is verify.ts; this turns its report into the
// CLI's output (a summary line, or the report with --json) and exit code 3 when not verified.
import { CliError, type Output } from './errors.ts';
import { VERIFY_FAILED_EXIT, verifyFile } from './verify.ts';

export async function verifyCommand(path: string, publicKey: string | undefined): Promise<Output> {
  const result = await verifyFile(path, publicKey);
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
  const extra = result.kind === 'bundle' ? `, ${result.stepsChecked ?? 0} steps` : `, ${result.checkpointsChecked ?? 0} signed checkpoints`;
  return { text: `verified ${result.kind}: ${result.checked} events${extra} checked`, json: result };
}
