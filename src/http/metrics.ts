// /metrics in Prometheus format: yoga's plugin (request and execution timings) plus the gauges an
// operator of this service needs: sockets, subscriptions, job queue depth, group-commit batches.
import { usePrometheus } from '@graphql-yoga/plugin-prometheus';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Plugin } from 'graphql-yoga';
import type { Services } from '../services.ts';
import { DEADLINE_JOB } from '../episodes/deadlines.ts';
import { EXTRACT_JOB } from '../learning/jobs.ts';

export const METRICS_PATH = '/metrics';

export function metricsPlugin(services: Services, openSockets: () => number): Plugin<any> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({ name: 'episodic_open_websockets', help: 'Open WebSocket connections', registers: [registry], collect() { this.set(openSockets()); } });
  new Gauge({ name: 'episodic_active_subscriptions', help: 'Live ledger subscribers in this process', registers: [registry], collect() { this.set(services.ledgerBus.subscribers); } });
  new Gauge({ name: 'episodic_ingest_waiting_steps', help: 'Steps accepted and waiting for their group commit', registers: [registry], collect() { this.set(services.ingest.waitingRows); } });
  new Gauge({
    name: 'episodic_job_queue_depth',
    help: 'Jobs waiting in the PostgreSQL job queue',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      for (const queue of [DEADLINE_JOB, EXTRACT_JOB]) this.set({ queue }, await services.jobs.getQueueSize(queue).catch(() => -1));
    },
  });
  const requests = new Histogram({ name: 'episodic_group_commit_requests', help: 'logStep/logSteps calls per group commit', buckets: [1, 2, 4, 8, 16, 32, 64, 128], registers: [registry] });
  const rows = new Histogram({ name: 'episodic_group_commit_rows', help: 'Steps per group commit', buckets: [1, 10, 50, 100, 500, 1000, 2000, 5000], registers: [registry] });
  services.ingest.onBatch((n, r) => {
    requests.observe(n);
    rows.observe(r);
  });
  return usePrometheus({ endpoint: METRICS_PATH, registry, metrics: {
      graphql_yoga_http_duration: true,
      graphql_envelop_request: true,
      graphql_envelop_request_duration: true,
      graphql_envelop_error_result: true,
      // Off: each costs work on every request (the deprecated-field counter walks every document
      // with TypeInfo) for detail an operator of this API rarely reads; the total duration stays.
      graphql_envelop_deprecated_field: false,
      graphql_envelop_request_time_summary: false,
      graphql_envelop_phase_parse: false,
      graphql_envelop_phase_validate: false,
      graphql_envelop_phase_context: false,
      graphql_envelop_phase_execute: false,
      graphql_envelop_phase_subscribe: false,
    },
  });
}
