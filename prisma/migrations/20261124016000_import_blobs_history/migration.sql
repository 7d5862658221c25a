-- Importing real runs: content-addressed blobs for step content too large to keep inline, step
-- start/end times, and historical (imported) episodes.

-- CreateTable
CREATE TABLE "blobs" (
    "tenant_id" UUID NOT NULL,
    "hash" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "blobs_pkey" PRIMARY KEY ("tenant_id","hash")
);

-- CreateTable
CREATE TABLE "blob_usage" (
    "tenant_id" UUID NOT NULL,
    "bytes" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "blob_usage_pkey" PRIMARY KEY ("tenant_id")
);

-- AlterTable
ALTER TABLE "steps" ADD COLUMN "content_refs" JSONB,
ADD COLUMN "started_at" TIMESTAMPTZ(3),
ADD COLUMN "ended_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "episodes" ADD COLUMN "historical" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "import_source" JSONB;

-- AddForeignKey
ALTER TABLE "blobs" ADD CONSTRAINT "blobs_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "blob_usage" ADD CONSTRAINT "blob_usage_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
