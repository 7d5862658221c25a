// The calls that change a running episode, as every door makes them: the input checked, then the
// change in one tenant transaction with its ledger events, after stopping the episode if its
// wall-time deadline has passed (the budget comes first even when the deadline job has not run
// yet, so a late ending finds the episode failed and is refused as an illegal transition).
import type pg from 'pg';
import { type LimitViolation, throwIfViolations } from '../core/errors.ts';
import type { WriteContext } from '../core/write-context.ts';
import { CALL_LIMITS, freeTextViolations } from '../episodes/call-limits.ts';
import { timeRangeViolations } from '../episodes/import-limits.ts';
import { validateGoalSpec } from '../episodes/limits.ts';
import type { Outcome } from '../episodes/outcome.ts';
import { validateOutcome } from '../episodes/outcome-limits.ts';
import type { JsonValue } from '../validation/json.ts';
import type { Writer } from '../write.ts';
import { blockEpisode, resumeEpisode } from './approval.ts';
import { type CompletionResult, completeAndLearn, type LearningOptions } from './complete.ts';
import { stopIfOverdue } from './deadlines.ts';
import { type Ending, endEpisode } from './end.ts';

/** What a change of an episode needs of the services. */
export interface ChangeDeps {
  db: { pool: pg.Pool };
  writer: Writer;
}

/** Runs a change of a live episode in one tenant transaction, after its deadline is enforced. */
export async function changeEpisode<T>(deps: ChangeDeps, tenantId: string, episodeId: string, change: (w: WriteContext) => Promise<T>): Promise<T> {
  await stopIfOverdue(deps.db.pool, deps.writer, tenantId, episodeId);
  return deps.writer.run(tenantId, change);
}

/** Blocks an episode for approval (journaled as an approval_requested step). */
export async function block(deps: ChangeDeps, tenantId: string, episodeId: string, reason: string, approvalRequest: JsonValue | null): Promise<void> {
  throwIfViolations([...freeTextViolations('reason', reason), ...(approvalRequest == null ? [] : validateGoalSpec(approvalRequest, 'approvalRequest'))]);
  await changeEpisode(deps, tenantId, episodeId, (w) => blockEpisode(w, episodeId, reason, approvalRequest));
}

export interface ApprovalDecision {
  approved: boolean;
  decidedBy: string | null;
  comment: string | null;
}

/** Resumes a blocked episode with the approval decision (journaled as an approval_resolved step). */
export async function resume(deps: ChangeDeps, tenantId: string, episodeId: string, decision: ApprovalDecision): Promise<void> {
  throwIfViolations([...freeTextViolations('decidedBy', decision.decidedBy, CALL_LIMITS.labelBytes), ...freeTextViolations('comment', decision.comment)]);
  await changeEpisode(deps, tenantId, episodeId, (w) => resumeEpisode(w, episodeId, decision));
}

/** What is out of its limits in a completion: its outcome (named under `field.outcome`) and its end (`field.endedAt`: not in the future). */
export function completionViolations(outcome: Outcome, endedAt: Date | null | undefined, field = 'input'): LimitViolation[] {
  const endedAtField = field === 'input' ? 'endedAt' : `${field}.endedAt`;
  return [...validateOutcome(outcome, `${field}.outcome`), ...timeRangeViolations(endedAtField, endedAtField, endedAt, null)];
}

/** Refuses (InputLimitError) a completion whose outcome is out of its limits or whose end is in the future. */
function checkCompletion(outcome: Outcome, endedAt: Date | null | undefined): void {
  throwIfViolations(completionViolations(outcome, endedAt));
}

/** Completes an episode with its outcome and learns from it (reward, reflection, retrieval credit, patterns). */
export async function complete(deps: ChangeDeps, tenantId: string, episodeId: string, outcome: Outcome, options: LearningOptions): Promise<CompletionResult> {
  checkCompletion(outcome, options.endedAt);
  return changeEpisode(deps, tenantId, episodeId, (w) => completeAndLearn(w, episodeId, outcome, options));
}

/** Fails, cancels or escalates an episode. */
export async function end(deps: ChangeDeps, tenantId: string, episodeId: string, action: Ending, reason: string | null, recoverable = false) {
  throwIfViolations(freeTextViolations('reason', reason));
  return changeEpisode(deps, tenantId, episodeId, (w) => endEpisode(w, episodeId, action, reason ?? '', recoverable));
}
