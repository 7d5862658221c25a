// episodic retention [set --step-days <n|default>] [--run-days <n|default>]: the tenant's retention
// periods over the API (docs/LEDGER.md §3.4); set needs an admin key, and the server records it in
// the ledger (tenant.retention_set) with the key that set it.
import type { TenantRetention } from '../client/types-results.ts';
import { defineCommand, failOnErrorResult, usage } from './remote.ts';

const HELP = `Usage: episodic retention [show]                          the tenant's periods and what applies
       episodic retention set [--step-days <n|default>] [--run-days <n|default>]
                        (admin key) days after a run ended its step content, or the whole run, is
                        forgotten; "default" returns to the server's setting; an option left out
                        keeps the tenant's current value`;

/** A period as typed: a whole number of days, or "default" (null: the server's). */
function period(value: string | undefined, current: number | null, option: string): number | null {
  if (value === undefined) return current;
  if (value === 'default') return null;
  if (!/^\d+$/.test(value)) throw usage(`${option} must be a whole number of days or "default", got "${value}"`, HELP);
  return Number(value);
}

const days = (own: number | null, applied: number | null) => `${applied === null ? 'kept' : `${applied} days`}${own === null ? " (the server's)" : ''}`;
const described = (r: TenantRetention) => `step content: ${days(r.stepDays, r.effectiveStepDays)}\nruns: ${days(r.runDays, r.effectiveRunDays)}`;

export const retentionCommand = defineCommand({
  name: 'retention',
  summary: "show or set the tenant's retention periods",
  help: HELP,
  options: { 'step-days': { type: 'string' }, 'run-days': { type: 'string' } },
  async run({ values: v, positionals, client }) {
    const [action = 'show'] = positionals;
    const current = await client.retention();
    if (action === 'show') return { text: described(current), json: current };
    if (action !== 'set') throw usage(`unknown retention command "${action}"`, HELP);
    const stepDays = period(v['step-days'], current.stepDays, '--step-days');
    const runDays = period(v['run-days'], current.runDays, '--run-days');
    const { __typename: _type, ...set } = failOnErrorResult(await client.setRetention({ stepDays, runDays }));
    return { text: described(set), json: set };
  },
});
