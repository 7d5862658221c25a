-- Retrieval under concurrency (issue 55): a server keeps a tenant's term statistics and postings in
-- memory between relevantEpisodes calls (src/retrieval/term-cache.ts). Every write of the term index
-- (an ending, an import batch, a forgetting) updates the tenant's totals rows in its own transaction;
-- each such update now also adds 1 to the row's generation, so the sum over the tenant's rows grows
-- with every committed index write, and a ranking statement that reads it knows whether what the
-- server kept is still what the index holds in the statement's snapshot.
ALTER TABLE "episode_term_totals" ADD COLUMN "generation" BIGINT NOT NULL DEFAULT 0;
