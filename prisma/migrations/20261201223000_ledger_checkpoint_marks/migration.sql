-- The largest tree size ever signed per tenant (issue 52): a checkpoint is kept forever, so a
-- newest checkpoint below this mark was deleted. The timer refuses to sign that tree again with a
-- new issuedAt, and verifyLedger reports the deleted checkpoint (or the tail deleted with it).
CREATE TABLE "ledger_checkpoint_marks" (
    "tenant_id" UUID NOT NULL,
    "tree_size" BIGINT NOT NULL,

    CONSTRAINT "ledger_checkpoint_marks_pkey" PRIMARY KEY ("tenant_id")
);

ALTER TABLE "ledger_checkpoint_marks" ADD CONSTRAINT "ledger_checkpoint_marks_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
