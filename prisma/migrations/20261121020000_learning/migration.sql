-- Learning and retrieval: patterns, their source episodes, retrieval receipts, and the episode
-- columns and indexes that relevantEpisodes ranks over (docs/LEARNING.md, "Episode retrieval").

-- pg_trgm ships with PostgreSQL (contrib) and with embedded-postgres.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- AlterTable
ALTER TABLE "episodes" ADD COLUMN     "feedback_credit" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "learning_state" TEXT;

-- CreateTable
CREATE TABLE "patterns" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "signature" TEXT[],
    "description" TEXT NOT NULL,
    "domain" TEXT,
    "language" TEXT,
    "framework" TEXT,
    "tags" TEXT[],
    "first_episode_id" UUID,
    "occurrences" INTEGER NOT NULL DEFAULT 0,
    "successes" INTEGER NOT NULL DEFAULT 0,
    "success_rate" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "mean_reward" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "effectiveness" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'candidate',
    "superseded_at" TIMESTAMPTZ(3),
    "feedback_credit" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "patterns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pattern_episodes" (
    "pattern_id" UUID NOT NULL,
    "episode_id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "success" BOOLEAN NOT NULL,
    "reward" DOUBLE PRECISION NOT NULL,
    "kept" BOOLEAN NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pattern_episodes_pkey" PRIMARY KEY ("pattern_id","episode_id")
);

-- CreateTable
CREATE TABLE "retrievals" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "query_hash" TEXT NOT NULL,
    "results_hash" TEXT NOT NULL,
    "episode_ids" UUID[],
    "warning_ids" UUID[],
    "pattern_ids" UUID[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "retrievals_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "episodes_tags_idx" ON "episodes" USING GIN ("tags");

-- CreateIndex
CREATE INDEX "episodes_tenant_id_status_domain_reward_score_idx" ON "episodes"("tenant_id", "status", "domain", "reward_score");

-- CreateIndex
CREATE INDEX "episodes_tenant_id_status_language_reward_score_idx" ON "episodes"("tenant_id", "status", "language", "reward_score");

-- CreateIndex
CREATE INDEX "episodes_learning_state_ended_at_idx" ON "episodes"("learning_state", "ended_at");

-- CreateIndex
CREATE UNIQUE INDEX "patterns_tenant_id_key_key" ON "patterns"("tenant_id", "key");

-- CreateIndex
CREATE INDEX "patterns_tenant_id_status_effectiveness_idx" ON "patterns"("tenant_id", "status", "effectiveness");

-- CreateIndex
CREATE INDEX "pattern_episodes_pattern_id_observed_at_idx" ON "pattern_episodes"("pattern_id", "observed_at");

-- CreateIndex
CREATE INDEX "pattern_episodes_episode_id_idx" ON "pattern_episodes"("episode_id");

-- CreateIndex
CREATE INDEX "pattern_episodes_tenant_id_idx" ON "pattern_episodes"("tenant_id");

-- CreateIndex
CREATE INDEX "retrievals_tenant_id_created_at_idx" ON "retrievals"("tenant_id", "created_at");

-- AddForeignKey
ALTER TABLE "patterns" ADD CONSTRAINT "patterns_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pattern_episodes" ADD CONSTRAINT "pattern_episodes_pattern_id_fkey" FOREIGN KEY ("pattern_id") REFERENCES "patterns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pattern_episodes" ADD CONSTRAINT "pattern_episodes_episode_id_fkey" FOREIGN KEY ("episode_id") REFERENCES "episodes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pattern_episodes" ADD CONSTRAINT "pattern_episodes_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "retrievals" ADD CONSTRAINT "retrievals_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Raw SQL that schema.prisma cannot express (listed in prisma/raw-sql.json, which the drift test
-- reads): a stored tsvector of the task description under the 'simple' configuration (lower-cased
-- words, no stemming and no stop words, so it treats every language alike), its GIN index, and a
-- trigram GIN index on the description for text that full-text search cannot split into words.
-- pg_trgm and the 'simple' parser classify non-ASCII letters by the database's LC_CTYPE: use a
-- UTF-8 locale (C.UTF-8, en_US.UTF-8, ...), as the embedded server does.
ALTER TABLE "episodes" ADD COLUMN "task_document" tsvector
    GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, "task_description")) STORED;

CREATE INDEX "episodes_task_document_idx" ON "episodes" USING GIN ("task_document");

CREATE INDEX "episodes_task_description_trgm_idx" ON "episodes" USING GIN ("task_description" gin_trgm_ops);
