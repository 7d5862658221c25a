// The endpoints beside /graphql that a balancer or a scraper reads: liveness, readiness, metrics.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { migrationsApplied } from '../db/migrate.ts';
import type { Services } from '../services.ts';
import type { Admission } from './admission.ts';
import { type createMetrics, metricsAllowed } from './metrics.ts';

export async function sendMetrics(req: IncomingMessage, res: ServerResponse, services: Services, metrics: ReturnType<typeof createMetrics>) {
  if (!(await metricsAllowed(req.headers.authorization, services))) {
    res.setHeader('www-authenticate', 'Bearer');
    return sendJson(res, 401, { error: 'metrics need an admin API key or METRICS_TOKEN: Authorization: Bearer <token>' });
  }
  res.writeHead(200, { 'content-type': metrics.registry.contentType });
  res.end(await metrics.registry.metrics());
}

/** Ready once the server listens and the migrations are applied; 503 with the reason otherwise. */
export async function sendReadiness(res: ServerResponse, services: Services, admission: Admission, listening: boolean) {
  // Every request slot taken: alive, but a balancer should send new work elsewhere for now.
  if (admission.saturated)
    return sendJson(res, 503, { status: 'saturated', inFlight: admission.inFlight, limit: services.config.admission.maxConcurrentRequests });
  try {
    const migrated = await migrationsApplied(services.db.pool);
    if (!listening || !migrated) return sendJson(res, 503, { status: 'not ready', database: 'reachable', migrations: migrated ? 'applied' : 'pending' });
    // A reconnecting fan-out does not make the server unready: subscribers fall back to safety re-reads.
    const fanout = services.ledgerBus.healthy ? 'connected' : 'reconnecting';
    return sendJson(res, 200, { status: 'ready', database: 'reachable', migrations: 'applied', fanout });
  } catch (err) {
    return sendJson(res, 503, { status: 'not ready', database: 'unreachable', error: (err as Error).message });
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
