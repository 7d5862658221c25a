// A tenant's retention periods (src/lifecycle/tenant-retention.ts, docs/LEDGER.md §3.4): read with
// any key, set with an admin key; the change and its tenant.retention_set ledger event commit together.
import { InputLimitError } from '../core/errors.ts';
import { RETENTION_MAX_DAYS, readTenantRetention, setTenantRetentionRecorded, type TenantRetention } from '../lifecycle/tenant-retention.ts';
import { builder } from './builder.ts';
import { tenantOf } from './ledger.ts';

const TenantRetentionRef = builder.objectRef<TenantRetention>('TenantRetention').implement({
  description:
    "The tenant's retention periods, in days after a run ended: its own (null: the server's STEP_RETENTION_DAYS / RUN_RETENTION_DAYS) and what applies. A sweep forgets what is past them, recorded in the ledger (docs/LEDGER.md §3.4).",
  fields: (t) => ({
    stepDays: t.exposeInt('stepDays', { nullable: true, description: "The tenant's own period for step content; null: the server's." }),
    runDays: t.exposeInt('runDays', { nullable: true, description: "The tenant's own period for whole runs; null: the server's." }),
    effectiveStepDays: t.exposeInt('effectiveStepDays', { nullable: true, description: 'The period applied to step content; null: kept.' }),
    effectiveRunDays: t.exposeInt('effectiveRunDays', { nullable: true, description: 'The period applied to whole runs; null: kept.' }),
  }),
});

builder.queryFields((t) => ({
  retention: t.field({
    type: TenantRetentionRef,
    description: "The tenant's retention periods (docs/LEDGER.md §3.4).",
    resolve: (_root, _args, ctx) => readTenantRetention(ctx.services.db.pool, tenantOf(ctx), ctx.services.retention.opts),
  }),
}));

builder.mutationFields((t) => ({
  setRetention: t.withAuth({ admin: true }).field({
    type: TenantRetentionRef,
    errors: { types: [InputLimitError] },
    description: `Sets the tenant's retention periods (both: an omitted one returns to the server's default). A tenant.retention_set ledger event, committed with it, records them and the admin key that set them. Each from 1 to ${RETENTION_MAX_DAYS} days.`,
    args: {
      stepDays: t.arg.int({ description: "Days after its end a run's step content is forgotten; omitted or null: the server's STEP_RETENTION_DAYS." }),
      runDays: t.arg.int({ description: "Days after its end a run is forgotten whole; omitted or null: the server's RUN_RETENTION_DAYS." }),
    },
    resolve: (_root, { stepDays, runDays }, ctx) => {
      const { tenantId, keyId } = ctx.viewer;
      const input = { stepDays: stepDays ?? null, runDays: runDays ?? null };
      return ctx.services.writer.run(tenantId, (w) => setTenantRetentionRecorded(w, input, { keyId }, ctx.services.retention.opts));
    },
  }),
}));
