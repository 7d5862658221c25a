-- OTLP from instrumentation libraries (issue 49): GenAI log events of a span (the official
-- OpenTelemetry instrumentations send a model call's messages as logs), and the open runs of
-- model calls without an agent root span, grouped by session, conversation or service.

CREATE TABLE "otlp_span_events" (
    "tenant_id" UUID NOT NULL,
    "trace_id" TEXT NOT NULL,
    "span_id" TEXT NOT NULL,
    "event_key" TEXT NOT NULL,
    "event" JSONB NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "otlp_span_events_pkey" PRIMARY KEY ("tenant_id","trace_id","span_id","event_key")
);

ALTER TABLE "otlp_span_events" ADD CONSTRAINT "otlp_span_events_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "otlp_open_runs" (
    "tenant_id" UUID NOT NULL,
    "run_key" TEXT NOT NULL,
    "episode_id" UUID NOT NULL,
    "last_span_end_ms" BIGINT NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "otlp_open_runs_pkey" PRIMARY KEY ("tenant_id","run_key")
);

CREATE INDEX "otlp_open_runs_last_seen_at_idx" ON "otlp_open_runs"("last_seen_at");

ALTER TABLE "otlp_open_runs" ADD CONSTRAINT "otlp_open_runs_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
