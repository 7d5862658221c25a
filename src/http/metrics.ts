// /metrics in Prometheus format: yoga's plugin (request and execution timings) plus the gauges an
// operator of this service needs: sockets, subscriptions, job queue depth, group-commit batches.
// The endpoint needs an admin key or METRICS_TOKEN (health.ts), and every label comes from a
// bounded set, so no request can grow the answer.
import { timingSafeEqual } from 'node:crypto';
import { createCounter, createHistogram, type FillLabelsFnParams, usePrometheus } from '@graphql-yoga/plugin-prometheus';
import { type DocumentNode, getOperationAST, Kind } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { grantsScope, tokenFromHeader } from '../auth/keys.ts';
import type { Context } from '../graphql/context.ts';
import { schema } from '../graphql/schema.ts';
import { EXTRACT_JOB } from '../learning/jobs.ts';
import { DEADLINE_JOB } from '../lifecycle/deadlines.ts';
import type { Services } from '../services.ts';
import { perOperation } from './per-document.ts';
import { REFUSAL_KINDS, type RefusalKind } from './span-refusals.ts';

export const METRICS_PATH = '/metrics';

/** What the server counts itself, read when /metrics is scraped. */
export interface LiveCounts {
  openSockets: () => number;
  requestsInFlight: () => number;
}

/** Counts spans an OTLP export refused, by the kind of refusal (a bounded set). */
export type CountSpanRefusals = (kind: RefusalKind, spans: number) => void;

export function createMetrics(services: Services, live: LiveCounts): { plugin: Plugin; registry: Registry; countSpanRefusals: CountSpanRefusals } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'episodic_open_websockets',
    help: 'Open WebSocket connections',
    registers: [registry],
    collect() {
      this.set(live.openSockets());
    },
  });
  new Gauge({
    name: 'episodic_graphql_requests_in_flight',
    help: 'GraphQL POST requests read whole and not yet answered (the slots MAX_CONCURRENT_REQUESTS bounds)',
    registers: [registry],
    collect() {
      this.set(live.requestsInFlight());
    },
  });
  new Gauge({
    name: 'episodic_active_subscriptions',
    help: 'Live ledger subscribers in this process',
    registers: [registry],
    collect() {
      this.set(services.ledgerBus.subscribers);
    },
  });
  new Gauge({
    name: 'episodic_ingest_waiting_steps',
    help: 'Steps accepted and waiting for their group commit',
    registers: [registry],
    collect() {
      this.set(services.ingest.waitingRows);
    },
  });
  new Gauge({
    name: 'episodic_job_queue_depth',
    help: 'Jobs waiting in the PostgreSQL job queue',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      for (const queue of [DEADLINE_JOB, EXTRACT_JOB]) this.set({ queue }, await services.jobs.getQueueSize(queue).catch(() => -1));
    },
  });
  const requests = new Histogram({
    name: 'episodic_group_commit_requests',
    help: 'logStep/logSteps calls per group commit',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128],
    registers: [registry],
  });
  const rows = new Histogram({
    name: 'episodic_group_commit_rows',
    help: 'Steps per group commit',
    buckets: [1, 10, 50, 100, 500, 1000, 2000, 5000],
    registers: [registry],
  });
  services.ingest.onBatch((n, r) => {
    requests.observe(n);
    rows.observe(r);
  });
  // An exporter logs a partialSuccess only at debug level: this counter is how refusals show.
  const refused = new Counter({
    name: 'episodic_otlp_spans_refused_total',
    help: 'Spans /v1/traces refused (partialSuccess), by reason',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of REFUSAL_KINDS) refused.inc({ reason }, 0);
  const countSpanRefusals: CountSpanRefusals = (reason, spans) => refused.inc({ reason }, spans);
  return { registry, countSpanRefusals, plugin: usePrometheus({ endpoint: false, registry, metrics: boundedRequestMetrics(registry) }) };
}

/** A request is counted only once a key has opened it: unauthenticated traffic adds no series. */
const authenticated = (_params: FillLabelsFnParams, context: unknown) => !!(context as Partial<Context> | undefined)?.viewer;

const CODE = /^[A-Z][A-Z_]{0,39}$/;

/**
 * The request metrics with labels from a bounded set: the operation type and the root field the
 * operation selects (a schema field name, `multiple`, or `unknown`), never a client's operation
 * name, URL or error path, which are as many as clients care to send.
 */
function boundedRequestMetrics(registry: Registry) {
  const labels = (params: FillLabelsFnParams) => ({
    operationType: params.operationType ?? 'unknown',
    operation: operationLabel(params.document, params.operationName),
  });
  return {
    graphql_envelop_request: createCounter<'execute' | 'subscribe', 'operationType' | 'operation'>({
      registry,
      counter: { name: 'graphql_envelop_request', help: 'GraphQL operations executed, by root field', labelNames: ['operationType', 'operation'] },
      phases: ['execute', 'subscribe'],
      fillLabelsFn: labels,
      shouldObserve: authenticated,
    }),
    graphql_envelop_request_duration: createHistogram<'execute' | 'subscribe', 'operationType' | 'operation'>({
      registry,
      histogram: {
        name: 'graphql_envelop_request_duration',
        help: 'Time to execute a GraphQL operation, by root field',
        labelNames: ['operationType', 'operation'],
      },
      phases: ['execute', 'subscribe'],
      fillLabelsFn: labels,
      shouldObserve: authenticated,
    }),
    graphql_envelop_error_result: createCounter<'parse' | 'validate' | 'context' | 'execute' | 'subscribe', 'operationType' | 'operation' | 'code'>({
      registry,
      counter: {
        name: 'graphql_envelop_error_result',
        help: 'GraphQL results with errors, by root field and error code',
        labelNames: ['operationType', 'operation', 'code'],
      },
      phases: ['parse', 'validate', 'context', 'execute', 'subscribe'],
      fillLabelsFn: (params: FillLabelsFnParams) => {
        const code = String(params.error?.extensions?.code ?? 'NONE');
        return { ...labels(params), code: CODE.test(code) ? code : 'OTHER' };
      },
      shouldObserve: authenticated,
    }),
    // Off: the deprecated-field counter walks every document with TypeInfo, the phase timings add
    // work per request for detail an operator of this API rarely reads, and the HTTP histogram
    // labels every URL a client sends.
    graphql_yoga_http_duration: false,
    graphql_envelop_deprecated_field: false,
    graphql_envelop_request_time_summary: false,
    graphql_envelop_phase_parse: false,
    graphql_envelop_phase_validate: false,
    graphql_envelop_phase_context: false,
    graphql_envelop_phase_execute: false,
    graphql_envelop_phase_subscribe: false,
    graphql_envelop_schema_change: false,
  };
}

/** The root field an operation selects, kept per document and operation name (two metrics read it per request). */
const keptLabel = perOperation((_schema: object, document: DocumentNode, operationName: string | null | undefined) =>
  rootFieldLabel(document, operationName ?? undefined),
);

function operationLabel(document: DocumentNode | undefined, operationName: string | undefined): string {
  return document ? keptLabel(schema, document, operationName) : 'unknown';
}

/** The root field an operation selects, if the schema has it; `multiple` or `unknown` otherwise. */
function rootFieldLabel(document: DocumentNode, operationName: string | undefined): string {
  const operation = getOperationAST(document, operationName);
  const root =
    operation &&
    (operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType());
  if (!operation || !root) return 'unknown';
  const names = new Set(operation.selectionSet.selections.map((s) => (s.kind === Kind.FIELD ? s.name.value : '')));
  names.delete('__typename');
  if (names.size !== 1) return names.size ? 'multiple' : 'unknown';
  const [name] = names;
  return name && name in root.getFields() ? name : 'unknown';
}

/**
 * /metrics shows every tenant's traffic, so it needs an admin key or METRICS_TOKEN.
 * Compared in constant time: the token is a bearer secret.
 */
export async function metricsAllowed(authorization: string | undefined, services: Services): Promise<boolean> {
  const token = tokenFromHeader(authorization);
  if (!token) return false;
  const expected = services.config.metricsToken;
  if (expected && token.length === expected.length && timingSafeEqual(Buffer.from(token), Buffer.from(expected))) return true;
  const auth = await services.keys.authenticate(token);
  return 'viewer' in auth && grantsScope(auth.viewer.scopes, 'admin');
}
