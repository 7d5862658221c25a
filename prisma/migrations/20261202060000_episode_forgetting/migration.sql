-- Forgetting a whole episode (issue 52, docs/LEDGER.md §3.4): when an episode.forgotten event
-- removed its record texts, outcome, critique, reward, reflection and checkpoint states (NULL: kept).
-- Retrieval and the monitor's lists leave such a run out.
ALTER TABLE "episodes" ADD COLUMN "forgotten_at" TIMESTAMPTZ(3);
