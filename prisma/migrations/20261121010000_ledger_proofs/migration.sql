-- AlterTable
ALTER TABLE "episodes" ADD COLUMN     "context_pack_hash" TEXT,
ADD COLUMN     "manifest_hash" TEXT;

-- CreateTable
CREATE TABLE "ledger_checkpoints" (
    "tenant_id" UUID NOT NULL,
    "tree_size" BIGINT NOT NULL,
    "root_hash" TEXT NOT NULL,
    "head_hash" TEXT NOT NULL,
    "issued_at" TIMESTAMPTZ(3) NOT NULL,
    "signature" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,

    CONSTRAINT "ledger_checkpoints_pkey" PRIMARY KEY ("tenant_id","tree_size")
);

-- CreateTable
CREATE TABLE "pack_misses" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "episode_id" UUID NOT NULL,
    "stable_id" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "pack_hash" TEXT,
    "occurrences" INTEGER NOT NULL DEFAULT 1,
    "first_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pack_misses_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "pack_misses_tenant_id_idx" ON "pack_misses"("tenant_id");

-- CreateIndex
CREATE UNIQUE INDEX "pack_misses_episode_id_stable_id_key" ON "pack_misses"("episode_id", "stable_id");

-- AddForeignKey
ALTER TABLE "ledger_checkpoints" ADD CONSTRAINT "ledger_checkpoints_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pack_misses" ADD CONSTRAINT "pack_misses_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pack_misses" ADD CONSTRAINT "pack_misses_episode_id_fkey" FOREIGN KEY ("episode_id") REFERENCES "episodes"("id") ON DELETE CASCADE ON UPDATE CASCADE;
