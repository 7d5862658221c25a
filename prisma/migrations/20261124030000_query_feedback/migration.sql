-- Query-relative retrieval feedback (issue 15): the receipt keeps the terms its query ranked by
-- (each with its idf), and every reported use of an episode retrieval is a row, so a later query
-- applies the credit only as far as it resembles the query that served the episode
-- (src/retrieval/feedback.ts). Receipts recorded before have no terms: their uses resemble nothing.

ALTER TABLE "retrievals"
  ADD COLUMN "query_terms" TEXT[] DEFAULT '{}',
  ADD COLUMN "query_weights" DOUBLE PRECISION[] DEFAULT '{}';

CREATE TABLE "episode_feedback" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "episode_id" UUID NOT NULL,
    "retrieval_id" UUID NOT NULL,
    "used_by" UUID NOT NULL,
    "target" DOUBLE PRECISION NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "episode_feedback_pkey" PRIMARY KEY ("id")
);

-- Ranking reads the newest uses of each candidate episode.
CREATE INDEX "episode_feedback_episode_id_created_at_idx" ON "episode_feedback"("episode_id", "created_at" DESC);
CREATE INDEX "episode_feedback_retrieval_id_idx" ON "episode_feedback"("retrieval_id");

ALTER TABLE "episode_feedback" ADD CONSTRAINT "episode_feedback_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "episode_feedback" ADD CONSTRAINT "episode_feedback_episode_id_fkey" FOREIGN KEY ("episode_id") REFERENCES "episodes"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "episode_feedback" ADD CONSTRAINT "episode_feedback_retrieval_id_fkey" FOREIGN KEY ("retrieval_id") REFERENCES "retrievals"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "episode_feedback" ADD CONSTRAINT "episode_feedback_used_by_fkey" FOREIGN KEY ("used_by") REFERENCES "episodes"("id") ON DELETE CASCADE ON UPDATE CASCADE;
