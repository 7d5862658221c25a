-- A tenant's own retention periods (issue 52, docs/LEDGER.md §3.4), set by an admin key and recorded
-- by a tenant.retention_set event; NULL: the server's STEP_RETENTION_DAYS / RUN_RETENTION_DAYS.
ALTER TABLE "tenants" ADD COLUMN "step_retention_days" INTEGER, ADD COLUMN "run_retention_days" INTEGER;
