/**
 * Episode status: a closed state machine (DESIGN invariant: illegal transitions are typed errors).
 *
 *   running --block--> blocked --resume--> running
 *   running | blocked --fail | cancel | escalate--> failed | cancelled | escalated
 *   running --complete--> completed
 *
 * Terminal statuses have no exits. Actions that do not change status (logSteps, checkpoint,
 * critique) go through the same table so a resolver never has to special-case them.
 */

import { IllegalTransitionError } from '../core/errors.ts';

export const EPISODE_STATUSES = ['running', 'blocked', 'completed', 'failed', 'cancelled', 'escalated'] as const;
export type EpisodeStatus = (typeof EPISODE_STATUSES)[number];

export const EPISODE_ACTIONS = [
  'block',
  'resume',
  'complete',
  'fail',
  'cancel',
  'escalate',
  'logSteps',
  'checkpoint',
  'critique',
  'appendLateTelemetry',
] as const;
export type EpisodeAction = (typeof EPISODE_ACTIONS)[number];

export type TransitionCheck =
  | { ok: true; to: EpisodeStatus }
  | { ok: false; from: EpisodeStatus; action: EpisodeAction; allowed: EpisodeAction[]; message: string };

const TRANSITIONS: Record<EpisodeStatus, Partial<Record<EpisodeAction, EpisodeStatus>>> = {
  running: {
    block: 'blocked',
    complete: 'completed',
    fail: 'failed',
    cancel: 'cancelled',
    escalate: 'escalated',
    logSteps: 'running',
    checkpoint: 'running',
    critique: 'running',
  },
  // A blocked episode waits for a decision; it cannot complete without resuming first.
  blocked: {
    resume: 'running',
    fail: 'failed',
    cancel: 'cancelled',
    escalate: 'escalated',
    critique: 'blocked',
  },
  // Critique of a finished episode is how the critic result arrives after completion. Late
  // telemetry: a traced run's span that ended after the root span completed its episode (OTLP,
  // within OTLP_LATE_SPAN_GRACE_MS) is still the run's step.
  completed: { critique: 'completed', appendLateTelemetry: 'completed' },
  failed: {},
  cancelled: {},
  escalated: {},
};

const TERMINAL: ReadonlySet<EpisodeStatus> = new Set(['completed', 'failed', 'cancelled', 'escalated']);

export function isEpisodeStatus(value: string): value is EpisodeStatus {
  return (EPISODE_STATUSES as readonly string[]).includes(value);
}

export function isTerminal(status: EpisodeStatus): boolean {
  return TERMINAL.has(status);
}

// Done by the service itself (the OTLP door's late spans), never asked for by a client, so an
// error's `allowed` list does not offer it.
const SERVICE_ACTIONS: ReadonlySet<EpisodeAction> = new Set(['appendLateTelemetry']);

/** Actions a client may take in `status`, in EPISODE_ACTIONS order. */
export function allowedActions(status: EpisodeStatus): EpisodeAction[] {
  return EPISODE_ACTIONS.filter((action) => TRANSITIONS[status][action] !== undefined && !SERVICE_ACTIONS.has(action));
}

/**
 * Whether `action` is allowed in `status`. A forgotten episode (docs/LEDGER.md §3.4) allows none:
 * a critique or late span would claim values again that its episode.forgotten event deleted.
 */
export function checkTransition(status: EpisodeStatus, action: EpisodeAction, forgotten = false): TransitionCheck {
  if (forgotten) return { ok: false, from: status, action, allowed: [], message: `Cannot ${action} an episode that was forgotten (it is final)` };
  const to = TRANSITIONS[status][action];
  if (to !== undefined) return { ok: true, to };
  const allowed = allowedActions(status);
  const hint = allowed.length === 0 ? 'it is final' : `allowed: ${allowed.join(', ')}`;
  return {
    ok: false,
    from: status,
    action,
    allowed,
    message: `Cannot ${action} an episode that is ${status} (${hint})`,
  };
}

/** The status `action` leads to from the episode's; throws IllegalTransitionError when it is not allowed. */
export function requireTransition(ep: { status: EpisodeStatus; forgotten?: boolean }, action: EpisodeAction): EpisodeStatus {
  const check = checkTransition(ep.status, action, ep.forgotten === true);
  if (!check.ok) throw new IllegalTransitionError(check.from, check.action, check.allowed, check.message);
  return check.to;
}
