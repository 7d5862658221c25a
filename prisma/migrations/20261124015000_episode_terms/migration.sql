-- Episode retrieval index (issue 15): per-episode term frequencies turned into BM25 term weights
-- ("impacts") at write time, in two fields (0 = task description, 1 = what the episode did), the
-- document frequency of each term, and each field's document count and total length.

CREATE TABLE "episode_terms" (
    "tenant_id" UUID NOT NULL,
    "episode_id" UUID NOT NULL,
    "field" INTEGER NOT NULL,
    "term" TEXT NOT NULL,
    "impact" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "episode_terms_pkey" PRIMARY KEY ("episode_id","field","term")
);

CREATE TABLE "episode_term_df" (
    "tenant_id" UUID NOT NULL,
    "field" INTEGER NOT NULL,
    "term" TEXT NOT NULL,
    "df" INTEGER NOT NULL,

    CONSTRAINT "episode_term_df_pkey" PRIMARY KEY ("tenant_id","field","term")
);

CREATE TABLE "episode_term_totals" (
    "tenant_id" UUID NOT NULL,
    "field" INTEGER NOT NULL,
    "documents" INTEGER NOT NULL,
    "length" BIGINT NOT NULL,

    CONSTRAINT "episode_term_totals_pkey" PRIMARY KEY ("tenant_id","field")
);

-- Impact-ordered postings: a query reads the best M postings of each term from the index alone.
CREATE INDEX "episode_terms_tenant_id_field_term_impact_episode_id_idx" ON "episode_terms"("tenant_id", "field", "term", "impact" DESC, "episode_id");

ALTER TABLE "episode_terms" ADD CONSTRAINT "episode_terms_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "episode_terms" ADD CONSTRAINT "episode_terms_episode_id_fkey" FOREIGN KEY ("episode_id") REFERENCES "episodes"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "episode_term_df" ADD CONSTRAINT "episode_term_df_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "episode_term_totals" ADD CONSTRAINT "episode_term_totals_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Append-only postings: vacuum after inserts, so the visibility map stays set and the postings
-- query stays index-only (DESIGN.md measured p95 80 ms instead of 14 ms before a vacuum).
ALTER TABLE "episode_terms" SET (autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_vacuum_insert_threshold = 10000);
