-- OTLP trace ingest (issue 28): spans whose trace has no episode yet wait here, per tenant, until
-- the trace's root span arrives (src/otlp/pending.ts). The key is the span's identity, so a retried
-- export stores nothing twice.

CREATE TABLE "otlp_pending_spans" (
    "tenant_id" UUID NOT NULL,
    "trace_id" TEXT NOT NULL,
    "span_id" TEXT NOT NULL,
    "span" JSONB NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "otlp_pending_spans_pkey" PRIMARY KEY ("tenant_id","trace_id","span_id")
);

ALTER TABLE "otlp_pending_spans" ADD CONSTRAINT "otlp_pending_spans_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
