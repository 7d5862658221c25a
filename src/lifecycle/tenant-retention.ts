// A tenant's retention periods (docs/LEDGER.md §3.4): each tenant may set its own, in days after a
// run ended, for step content and for whole runs; null keeps the server's default
// (STEP_RETENTION_DAYS, RUN_RETENTION_DAYS). Set by an admin key, and recorded by a
// tenant.retention_set event naming who set them, committed with the change.
import type pg from 'pg';
import { InputLimitError, type LimitViolation } from '../core/errors.ts';
import type { WriteContext } from '../core/write-context.ts';
import type { TenantsRow } from '../db/rows.ts';
import { Params, queryRows } from '../db/sql.ts';
import { integerViolations } from '../validation/violations.ts';

/** The longest period a tenant may set: 100 years, as the server-wide settings. */
export const RETENTION_MAX_DAYS = 36_500;

const TENANT_RETENTION_SET = 'tenant.retention_set';

export interface TenantRetentionInput {
  /** Days after its end a run's step content is forgotten; null: the server's default. */
  stepDays: number | null;
  /** Days after its end a run is forgotten whole; null: the server's default. */
  runDays: number | null;
}

export interface TenantRetention extends TenantRetentionInput {
  /** What applies: the tenant's own period, or else the server's (null: kept). */
  effectiveStepDays: number | null;
  effectiveRunDays: number | null;
}

/** Who set them: the admin key of the request. */
export interface RetentionActor {
  keyId: string;
}

export interface RetentionDefaults {
  days: number | null;
  runDays: number | null;
}

export function retentionViolations(input: TenantRetentionInput): LimitViolation[] {
  return [...integerViolations('stepDays', input.stepDays, 1, RETENTION_MAX_DAYS), ...integerViolations('runDays', input.runDays, 1, RETENTION_MAX_DAYS)];
}

const withDefaults = (own: TenantRetentionInput, defaults: RetentionDefaults): TenantRetention => ({
  ...own,
  effectiveStepDays: own.stepDays ?? defaults.days,
  effectiveRunDays: own.runDays ?? defaults.runDays,
});

type Columns = Pick<TenantsRow, 'step_retention_days' | 'run_retention_days'>;

export async function readTenantRetention(db: pg.Pool | pg.PoolClient, tenantId: string, defaults: RetentionDefaults): Promise<TenantRetention> {
  const p = new Params();
  const [row] = await queryRows<Columns>(db, `SELECT step_retention_days, run_retention_days FROM tenants WHERE id = ${p.add(tenantId)}`, p);
  return withDefaults({ stepDays: row?.step_retention_days ?? null, runDays: row?.run_retention_days ?? null }, defaults);
}

/** Sets the tenant's periods and records who set them (bad input: InputLimitError, nothing changed). */
export async function setTenantRetentionRecorded(
  w: WriteContext,
  input: TenantRetentionInput,
  actor: RetentionActor,
  defaults: RetentionDefaults,
): Promise<TenantRetention> {
  const violations = retentionViolations(input);
  if (violations.length) throw new InputLimitError(violations);
  const p = new Params();
  await w.client.query(
    `UPDATE tenants SET step_retention_days = ${p.add(input.stepDays)}, run_retention_days = ${p.add(input.runDays)} WHERE id = ${p.add(w.tenantId)}`,
    p.values,
  );
  w.events.push({ type: TENANT_RETENTION_SET, payload: { stepDays: input.stepDays, runDays: input.runDays, byKeyId: actor.keyId } });
  return withDefaults(input, defaults);
}
