-- The learned ranker (issue 27): per tenant, a linear model over the retrieval's evidence features
-- (src/retrieval/ranker.ts), fitted on the tenant's own history by the learning queue. One row per
-- tenant, replaced at each refit; no row: relevantEpisodes ranks by the fixed formula.

CREATE TABLE "ranking_models" (
    "tenant_id" UUID NOT NULL,
    "features" TEXT[],
    "weights" DOUBLE PRECISION[],
    "means" DOUBLE PRECISION[],
    "scales" DOUBLE PRECISION[],
    "episodes" INTEGER NOT NULL,
    "queries" INTEGER NOT NULL,
    "pairs" INTEGER NOT NULL,
    "trained_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ranking_models_pkey" PRIMARY KEY ("tenant_id")
);

ALTER TABLE "ranking_models" ADD CONSTRAINT "ranking_models_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
