-- The monitor dashboard's aggregates (src/monitor/): hourly rollups rebuilt for the hours the
-- ledger shows changed (rollup.ts), and indexes for what is read raw. docs/BENCHMARKS.md,
-- "Monitor dashboard", has the figures at 1M episodes.

CREATE TABLE "monitor_hours" (
    "tenant_id" UUID NOT NULL,
    "dimension" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "runs" INTEGER NOT NULL,
    "running" INTEGER NOT NULL,
    "blocked" INTEGER NOT NULL,
    "completed" INTEGER NOT NULL,
    "failed" INTEGER NOT NULL,
    "cancelled" INTEGER NOT NULL,
    "escalated" INTEGER NOT NULL,
    "successes" INTEGER NOT NULL,
    "partials" INTEGER NOT NULL,
    "failures" INTEGER NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "cost" DOUBLE PRECISION NOT NULL,
    CONSTRAINT "monitor_hours_pkey" PRIMARY KEY ("tenant_id", "dimension", "value", "hour")
);

CREATE TABLE "monitor_hour_tools" (
    "tenant_id" UUID NOT NULL,
    "dimension" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "tool" TEXT NOT NULL,
    "calls" INTEGER NOT NULL,
    "errors" INTEGER NOT NULL,
    "timeouts" INTEGER NOT NULL,
    CONSTRAINT "monitor_hour_tools_pkey" PRIMARY KEY ("tenant_id", "dimension", "value", "hour", "tool")
);

CREATE TABLE "monitor_hour_latencies" (
    "tenant_id" UUID NOT NULL,
    "dimension" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "bucket" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,
    CONSTRAINT "monitor_hour_latencies_pkey" PRIMARY KEY ("tenant_id", "dimension", "value", "hour", "bucket")
);

CREATE TABLE "monitor_hour_budgets" (
    "tenant_id" UUID NOT NULL,
    "dimension" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "resource" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    CONSTRAINT "monitor_hour_budgets_pkey" PRIMARY KEY ("tenant_id", "dimension", "value", "hour", "resource")
);

CREATE TABLE "monitor_rollup_states" (
    "tenant_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    CONSTRAINT "monitor_rollup_states_pkey" PRIMARY KEY ("tenant_id")
);

-- Raw SQL (prisma/raw-sql.json): partial and BRIN indexes Prisma cannot express.

-- Rebuilding an hour's steps: steps are appended in time order, so a BRIN index finds an hour for
-- almost nothing on the write path (a btree would cost every journaled step).
CREATE INDEX "steps_created_at_brin_idx" ON "steps" USING brin ("created_at");

-- Retrieval credit: the retrieval.feedback events by time, and by the retrievals they credited.
CREATE INDEX "ledger_events_feedback_idx" ON "ledger_events" ("tenant_id", "created_at")
  WHERE "type" = 'retrieval.feedback';
CREATE INDEX "ledger_events_feedback_payload_idx" ON "ledger_events" USING gin ("payload" jsonb_path_ops)
  WHERE "type" = 'retrieval.feedback';

-- Patterns learned per bucket.
CREATE INDEX "patterns_created_idx" ON "patterns" ("tenant_id", "created_at");
