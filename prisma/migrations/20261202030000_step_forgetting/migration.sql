-- Verifiable forgetting (issue 52, docs/LEDGER.md §3.4): a step's salt, a random value hashed with
-- its content so that the logged hash cannot confirm a guess of that content once the salt is
-- deleted with it; and when a steps.forgotten event removed the content (NULL: kept).
ALTER TABLE "steps" ADD COLUMN "salt" TEXT;
ALTER TABLE "steps" ADD COLUMN "forgotten_at" TIMESTAMPTZ(3);

-- verifyLedger reads a tenant's steps.forgotten events before its pages (docs/LEDGER.md §7.5).
CREATE INDEX "ledger_events_forgotten_idx" ON "ledger_events" ("tenant_id", "seq")
  WHERE "type" = 'steps.forgotten';
