-- Forgetting a whole episode (issue 52, docs/LEDGER.md §3.4): when an episode.forgotten event
-- removed its record texts, outcome, critique, reward, reflection and checkpoint states (NULL: kept).
-- Retrieval and the monitor's lists leave such a run out.
ALTER TABLE "episodes" ADD COLUMN "forgotten_at" TIMESTAMPTZ(3);

-- verifyLedger reads a tenant's episode.forgotten events before its pages, as its steps.forgotten ones.
CREATE INDEX "ledger_events_episode_forgotten_idx" ON "ledger_events" ("tenant_id", "seq")
  WHERE "type" = 'episode.forgotten';
