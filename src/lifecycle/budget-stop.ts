// Stopping an episode whose budget ran out (a step batch crossed it, or its wall-time deadline
// passed): the outcome its policy gives, the budget event, then the ending (finish.ts).
import type pg from 'pg';
import type { NewLedgerEvent } from '../core/write-context.ts';
import { statusAfterBudgetStop } from '../episodes/budget.ts';
import { budgetFailureOutcome, convergeOutcome } from '../episodes/outcome.ts';
import type { EpisodeRow } from '../episodes/row.ts';
import { stepDigests } from '../steps/store.ts';
import type { BudgetResource } from '../stops/resources.ts';
import { finishEpisode } from './finish.ts';

/** Stops an episode whose budget ran out, by its policy (wall time always fails, whatever the policy). */
export async function stopForBudget(client: pg.PoolClient, ep: EpisodeRow, resource: BudgetResource, now: Date, events: NewLedgerEvent[]) {
  const usage = { tokens: ep.usedTokens, steps: ep.stepCount, toolCalls: ep.usedToolCalls, wallMs: now.getTime() - ep.startedAt.getTime() };
  const converge = statusAfterBudgetStop(ep.onBudgetExhausted, resource) === 'completed';
  const outcome = converge
    ? convergeOutcome({ resource, budget: ep.budget, usage, steps: await stepDigests(client, ep.id) })
    : budgetFailureOutcome({ resource, budget: ep.budget, usage });
  events.push({
    type: 'episode.budget_exhausted',
    episodeId: ep.id,
    workItemId: ep.workItemId,
    payload: { resource, policy: converge ? 'converge' : 'fail', usage },
  });
  await finishEpisode(
    client,
    ep,
    {
      status: converge ? 'completed' : 'failed',
      stopReason: { kind: 'budget_exhausted', resource },
      outcome,
      eventType: converge ? 'episode.completed' : 'episode.failed',
    },
    now,
    events,
  );
}
