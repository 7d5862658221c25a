-- Experiments on the memory (issue 54, src/experiments): holdouts and interleavings, the arm each
-- episode was assigned, and the arm (and interleaving teams) on each retrieval receipt.

CREATE TABLE "experiments" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "control_share" DOUBLE PRECISION NOT NULL,
    "control" TEXT NOT NULL,
    "min_sample" INTEGER NOT NULL,
    "seed" TEXT NOT NULL,
    "scope_work_item_id" UUID,
    "scope_agent" TEXT,
    "scope_task_type" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "paused_at" TIMESTAMPTZ(3),

    CONSTRAINT "experiments_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "experiments_tenant_id_status_idx" ON "experiments"("tenant_id", "status");

ALTER TABLE "experiments" ADD CONSTRAINT "experiments_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "experiment_assignments" (
    "experiment_id" UUID NOT NULL,
    "episode_id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "arm" TEXT NOT NULL,
    "assigned_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "experiment_assignments_pkey" PRIMARY KEY ("experiment_id","episode_id")
);

CREATE INDEX "experiment_assignments_tenant_id_idx" ON "experiment_assignments"("tenant_id");

ALTER TABLE "experiment_assignments" ADD CONSTRAINT "experiment_assignments_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "retrievals" ADD COLUMN "arm" TEXT,
ADD COLUMN "experiment_id" UUID,
ADD COLUMN "teams" TEXT[] DEFAULT '{}';

CREATE INDEX "retrievals_experiment_id_idx" ON "retrievals"("experiment_id");
