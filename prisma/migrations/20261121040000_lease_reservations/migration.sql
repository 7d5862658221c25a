-- Lease reservations (an episode holds part of its lease while it runs, and a child lease holds
-- its budget on its parent), an episode cap on tool calls, and the work item loop's stop condition
-- evaluated by the server (seed 000 INV-EP04).

-- AlterTable
ALTER TABLE "episodes" ADD COLUMN "lease_hold" JSONB,
ADD COLUMN "max_tool_calls" INTEGER;

-- AlterTable
ALTER TABLE "work_items" ADD COLUMN "max_episodes" INTEGER,
ADD COLUMN "stop_condition" JSONB,
ADD COLUMN "stopped_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "episodes_lease_id_status_idx" ON "episodes"("lease_id", "status");
