-- Import speed (issue 31): an ending writes about 230 postings and upserts about 430 document
-- frequencies, and each row's foreign key check on tenants cost as much again (EXPLAIN ANALYZE: 2.8 ms
-- of triggers for 363 postings, 3.1 of 7.1 ms for 434 frequencies). A posting's tenant is its
-- episode's, whose key cascades; the frequencies lose theirs, and a trigger on tenants keeps
-- deleting a tenant's rows with it.
ALTER TABLE "episode_terms" DROP CONSTRAINT "episode_terms_tenant_id_fkey";
ALTER TABLE "episode_term_df" DROP CONSTRAINT "episode_term_df_tenant_id_fkey";

CREATE FUNCTION "episode_term_df_delete_tenant"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "episode_term_df" WHERE "tenant_id" = OLD."id";
  RETURN OLD;
END
$$;

CREATE TRIGGER "episode_term_df_delete_tenant" AFTER DELETE ON "tenants"
  FOR EACH ROW EXECUTE FUNCTION "episode_term_df_delete_tenant"();
