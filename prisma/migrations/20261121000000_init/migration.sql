-- CreateTable
CREATE TABLE "tenants" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "work_items" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "last_episode_number" INTEGER NOT NULL DEFAULT 0,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "work_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "leases" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "work_item_id" UUID NOT NULL,
    "parent_id" UUID,
    "issuer" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "scope" TEXT[],
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "max_episodes" INTEGER,
    "max_tool_calls" INTEGER,
    "max_tokens" BIGINT,
    "max_wall_ms" BIGINT,
    "used_episodes" INTEGER NOT NULL DEFAULT 0,
    "used_tool_calls" INTEGER NOT NULL DEFAULT 0,
    "used_tokens" BIGINT NOT NULL DEFAULT 0,
    "used_wall_ms" BIGINT NOT NULL DEFAULT 0,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "leases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "episodes" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "work_item_id" UUID,
    "lease_id" UUID,
    "parent_episode_id" UUID,
    "episode_number" INTEGER,
    "agent" TEXT,
    "task_description" TEXT NOT NULL,
    "task_type" TEXT NOT NULL,
    "language" TEXT,
    "framework" TEXT,
    "complexity" TEXT NOT NULL DEFAULT 'moderate',
    "domain" TEXT,
    "tags" TEXT[],
    "goal_spec" JSONB,
    "dedupe_key" TEXT,
    "input_hash" TEXT,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "max_attempts" INTEGER NOT NULL DEFAULT 1,
    "mode" TEXT NOT NULL DEFAULT 'live',
    "status" TEXT NOT NULL DEFAULT 'running',
    "phase" TEXT,
    "on_budget_exhausted" TEXT NOT NULL DEFAULT 'fail',
    "max_tokens" BIGINT,
    "max_steps" INTEGER,
    "max_wall_ms" BIGINT,
    "used_tokens" BIGINT NOT NULL DEFAULT 0,
    "used_tool_calls" INTEGER NOT NULL DEFAULT 0,
    "used_cost" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "step_count" INTEGER NOT NULL DEFAULT 0,
    "size_bytes" BIGINT NOT NULL DEFAULT 0,
    "outcome_kind" TEXT,
    "outcome" JSONB,
    "stop_reason" JSONB,
    "blocked_reason" TEXT,
    "approval_request" JSONB,
    "critique" JSONB,
    "reward_score" DOUBLE PRECISION,
    "reward" JSONB,
    "reflection" JSONB,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deadline_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "episodes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "steps" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "episode_id" UUID NOT NULL,
    "step_number" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "tool" TEXT,
    "action" TEXT,
    "parameters" JSONB,
    "args_hash" TEXT,
    "result_kind" TEXT,
    "result" JSONB,
    "observation" TEXT,
    "latency_ms" INTEGER,
    "tokens" INTEGER NOT NULL DEFAULT 0,
    "cost" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "side_effect_key" TEXT,
    "world_before" JSONB,
    "world_after" JSONB,
    "metadata" JSONB,
    "content_hash" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "steps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "checkpoints" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "episode_id" UUID NOT NULL,
    "step_number" INTEGER NOT NULL,
    "label" TEXT,
    "state" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_heads" (
    "tenant_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL DEFAULT 0,
    "hash" TEXT NOT NULL,

    CONSTRAINT "ledger_heads_pkey" PRIMARY KEY ("tenant_id")
);

-- CreateTable
CREATE TABLE "ledger_events" (
    "tenant_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "type" TEXT NOT NULL,
    "episode_id" UUID,
    "work_item_id" UUID,
    "payload" JSONB NOT NULL,
    "prev_hash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ledger_events_pkey" PRIMARY KEY ("tenant_id","seq")
);

-- CreateIndex
CREATE UNIQUE INDEX "tenants_name_key" ON "tenants"("name");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_prefix_key" ON "api_keys"("prefix");

-- CreateIndex
CREATE INDEX "api_keys_tenant_id_idx" ON "api_keys"("tenant_id");

-- CreateIndex
CREATE INDEX "work_items_tenant_id_created_at_idx" ON "work_items"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "leases_tenant_id_work_item_id_idx" ON "leases"("tenant_id", "work_item_id");

-- CreateIndex
CREATE INDEX "leases_parent_id_idx" ON "leases"("parent_id");

-- CreateIndex
CREATE INDEX "episodes_tenant_id_started_at_idx" ON "episodes"("tenant_id", "started_at");

-- CreateIndex
CREATE INDEX "episodes_tenant_id_status_idx" ON "episodes"("tenant_id", "status");

-- CreateIndex
CREATE INDEX "episodes_status_deadline_at_idx" ON "episodes"("status", "deadline_at");

-- CreateIndex
CREATE UNIQUE INDEX "episodes_tenant_id_dedupe_key_key" ON "episodes"("tenant_id", "dedupe_key");

-- CreateIndex
CREATE UNIQUE INDEX "episodes_work_item_id_episode_number_key" ON "episodes"("work_item_id", "episode_number");

-- CreateIndex
CREATE INDEX "steps_tenant_id_idx" ON "steps"("tenant_id");

-- CreateIndex
CREATE UNIQUE INDEX "steps_episode_id_step_number_key" ON "steps"("episode_id", "step_number");

-- CreateIndex
CREATE UNIQUE INDEX "steps_episode_id_side_effect_key_key" ON "steps"("episode_id", "side_effect_key");

-- CreateIndex
CREATE INDEX "checkpoints_episode_id_created_at_idx" ON "checkpoints"("episode_id", "created_at");

-- CreateIndex
CREATE INDEX "checkpoints_tenant_id_idx" ON "checkpoints"("tenant_id");

-- CreateIndex
CREATE INDEX "ledger_events_tenant_id_episode_id_seq_idx" ON "ledger_events"("tenant_id", "episode_id", "seq");

-- CreateIndex
CREATE INDEX "ledger_events_tenant_id_work_item_id_seq_idx" ON "ledger_events"("tenant_id", "work_item_id", "seq");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "work_items" ADD CONSTRAINT "work_items_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "leases" ADD CONSTRAINT "leases_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "leases" ADD CONSTRAINT "leases_work_item_id_fkey" FOREIGN KEY ("work_item_id") REFERENCES "work_items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "leases" ADD CONSTRAINT "leases_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "leases"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "episodes" ADD CONSTRAINT "episodes_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "episodes" ADD CONSTRAINT "episodes_work_item_id_fkey" FOREIGN KEY ("work_item_id") REFERENCES "work_items"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "episodes" ADD CONSTRAINT "episodes_lease_id_fkey" FOREIGN KEY ("lease_id") REFERENCES "leases"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "episodes" ADD CONSTRAINT "episodes_parent_episode_id_fkey" FOREIGN KEY ("parent_episode_id") REFERENCES "episodes"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "steps" ADD CONSTRAINT "steps_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "steps" ADD CONSTRAINT "steps_episode_id_fkey" FOREIGN KEY ("episode_id") REFERENCES "episodes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkpoints" ADD CONSTRAINT "checkpoints_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkpoints" ADD CONSTRAINT "checkpoints_episode_id_fkey" FOREIGN KEY ("episode_id") REFERENCES "episodes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_heads" ADD CONSTRAINT "ledger_heads_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_events" ADD CONSTRAINT "ledger_events_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
