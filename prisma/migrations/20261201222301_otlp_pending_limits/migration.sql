-- Spans waiting for their root get a per-tenant byte cap and an expiry (src/otlp/pending-limits.ts):
-- each row keeps the size of its span, and expired rows are found by when they came.

ALTER TABLE "otlp_pending_spans" ADD COLUMN "bytes" INTEGER NOT NULL DEFAULT 0;

CREATE INDEX "otlp_pending_spans_received_at_idx" ON "otlp_pending_spans"("received_at");
