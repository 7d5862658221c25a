-- Import speed (issue 55): the postings' foreign key to episodes checked every posting row (an
-- import batch writes about 8,000), a third of the postings' insert (EXPLAIN ANALYZE: 150-290 of
-- 470-970 ms). Postings are written only for an episode the same transaction ended (term-index.ts),
-- so the check guards nothing; what the key did besides is deleting an episode's postings with
-- it, which this trigger keeps doing (a tenant's deletion cascades to its episodes, and so here).
ALTER TABLE "episode_terms" DROP CONSTRAINT "episode_terms_episode_id_fkey";

CREATE FUNCTION "episode_terms_delete_episode"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "episode_terms" WHERE "episode_id" = OLD."id";
  RETURN OLD;
END
$$;

CREATE TRIGGER "episode_terms_delete_episode" AFTER DELETE ON "episodes"
  FOR EACH ROW EXECUTE FUNCTION "episode_terms_delete_episode"();
