-- Patterns about tasks (issue 15): one pattern per fact, scoped to the domain, strength measured as
-- lift over comparable episodes without it, from order-independent counts.
--
-- The harness-level kinds (tool_sequence, decision_point, error_recovery, context_pattern) are
-- derived data and are dropped; episodes whose extraction ran go back to `pending`, so the learning
-- sweep re-extracts them under the new rules.
DELETE FROM "patterns";
UPDATE "episodes" SET "learning_state" = 'pending' WHERE "learning_state" = 'done';

ALTER TABLE "patterns"
  ADD COLUMN "scope" TEXT NOT NULL DEFAULT '*',
  ADD COLUMN "cue" TEXT NOT NULL DEFAULT '',
  ADD COLUMN "target" TEXT NOT NULL DEFAULT '',
  ADD COLUMN "lift" DOUBLE PRECISION,
  ADD COLUMN "baseline_rate" DOUBLE PRECISION NOT NULL DEFAULT 0;

-- relevantPatterns: the active patterns of a scope whose cue the task mentions.
CREATE INDEX "patterns_tenant_id_cue_status_idx" ON "patterns"("tenant_id", "cue", "status");
-- The refresh after an extraction: the patterns of a scope with enough support to be judged.
CREATE INDEX "patterns_tenant_id_scope_occurrences_idx" ON "patterns"("tenant_id", "scope", "occurrences");

-- Per harness stratum (the episode's agent): episodes with the antecedent, and of those with the consequent.
CREATE TABLE "pattern_strata" (
    "pattern_id" UUID NOT NULL,
    "stratum" TEXT NOT NULL,
    "tenant_id" UUID NOT NULL,
    "support" INTEGER NOT NULL DEFAULT 0,
    "hits" INTEGER NOT NULL DEFAULT 0,
    "reward_sum" DOUBLE PRECISION NOT NULL DEFAULT 0,
    CONSTRAINT "pattern_strata_pkey" PRIMARY KEY ("pattern_id","stratum")
);
CREATE INDEX "pattern_strata_tenant_id_idx" ON "pattern_strata"("tenant_id");
ALTER TABLE "pattern_strata" ADD CONSTRAINT "pattern_strata_pattern_id_fkey" FOREIGN KEY ("pattern_id") REFERENCES "patterns"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "pattern_strata" ADD CONSTRAINT "pattern_strata_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Per scope and stratum: every episode (target '', hits = successes) and each changed file (target 'file:<path>').
CREATE TABLE "pattern_baselines" (
    "tenant_id" UUID NOT NULL,
    "scope" TEXT NOT NULL,
    "stratum" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "episodes" INTEGER NOT NULL DEFAULT 0,
    "hits" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "pattern_baselines_pkey" PRIMARY KEY ("tenant_id","scope","stratum","target")
);
ALTER TABLE "pattern_baselines" ADD CONSTRAINT "pattern_baselines_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
