// The work-item and lease calls, as every door makes them: the input checked, then the write in one
// tenant transaction with its ledger events.
import { pastExpiryViolations } from '../auth/keys.ts';
import { InputLimitError, throwIfViolations } from '../core/errors.ts';
import type { Writer } from '../write.ts';
import { validateLeaseInput, validateResumeWorkItem, validateWorkItem } from './limits.ts';
import * as loop from './loop.ts';
import * as store from './store.ts';
import type { WorkItemInput } from './work-items.ts';

/** What the lease calls need of the services. */
export interface LeaseDeps {
  writer: Writer;
}

/** Creates a work item: the loop of episodes that leases budget. */
export function createWorkItem(deps: LeaseDeps, tenantId: string, input: WorkItemInput): Promise<string> {
  throwIfViolations(validateWorkItem(input));
  return deps.writer.run(tenantId, (w) => store.createWorkItem(w.client, w.tenantId, input, w.now, w.events));
}

/** Lets a stopped loop of episodes go on, optionally with a higher maxEpisodes. */
export async function resumeWorkItem(deps: LeaseDeps, tenantId: string, id: string, maxEpisodes: number | null): Promise<void> {
  throwIfViolations(validateResumeWorkItem(maxEpisodes));
  await deps.writer.run(tenantId, (w) => loop.resumeWorkItem(w.client, w.tenantId, id, maxEpisodes, w.now, w.events));
}

/** Issues a lease on a work item (a child lease only narrows its parent); refuses an expiry in the past. */
export function issueLease(deps: LeaseDeps, tenantId: string, input: store.IssueLeaseInput): Promise<string> {
  throwIfViolations(validateLeaseInput({ issuer: input.issuer, holder: input.holder, scope: input.scope, budget: { ...input.budget } }));
  const past = pastExpiryViolations('expiresAt', input.expiresAt, new Date());
  if (past.length) throw new InputLimitError(past);
  return deps.writer.run(tenantId, (w) => store.issueLease(w.client, w.tenantId, input, w.now, w.events));
}

/** Revokes a lease and every lease derived from it. */
export async function revokeLease(deps: LeaseDeps, tenantId: string, id: string): Promise<void> {
  await deps.writer.run(tenantId, (w) => store.revokeLease(w.client, w.tenantId, id, w.now, w.events));
}
