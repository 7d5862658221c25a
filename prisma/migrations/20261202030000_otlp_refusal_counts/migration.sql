-- Spans the OTLP door refused, counted per tenant and reason with the latest one named (issue 49):
-- a 200 with partialSuccess is invisible at an exporter's default log level, so the monitor shows
-- these. One row per tenant and reason: bounded however many spans are refused.

CREATE TABLE "otlp_refusal_counts" (
    "tenant_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "count" BIGINT NOT NULL DEFAULT 0,
    "last_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_trace_id" TEXT NOT NULL,
    "last_span_id" TEXT NOT NULL,
    "last_reason" TEXT NOT NULL,

    CONSTRAINT "otlp_refusal_counts_pkey" PRIMARY KEY ("tenant_id","kind")
);

ALTER TABLE "otlp_refusal_counts" ADD CONSTRAINT "otlp_refusal_counts_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
