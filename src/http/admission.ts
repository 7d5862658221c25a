// Admission control for GraphQL POSTs. A request takes a slot only once its body has arrived (yoga's
// onParams), so clients that open connections and send half a request hold no slot: node's headers
// and request timeouts close them (408). Of the process-wide slots, one API key may hold at most
// maxRequestsPerKey, so one busy key leaves room for every other. Subscriptions (SSE) take no slot:
// they count against their key's stream cap instead (src/http/streams.ts).
import type { ServerResponse } from 'node:http';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export interface AdmissionLimits {
  maxConcurrentRequests: number;
  maxRequestsPerKey: number;
}

export function overloadedError(message: string, limit: number, code = 'OVERLOADED'): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code, retryAfterMs: 1000, limit, http: { status: 503, headers: { 'retry-after': '1' } } },
  });
}

export class Admission {
  private working = 0;
  private readonly byKey = new Map<string, number>();

  constructor(private readonly limits: AdmissionLimits) {}

  /** Every slot is taken: /readyz says so, so a balancer sends new work elsewhere. */
  get saturated(): boolean {
    return this.working >= this.limits.maxConcurrentRequests;
  }

  get inFlight(): number {
    return this.working;
  }

  /** Takes a process-wide slot until `res` closes; false when none is free. */
  enter(res: ServerResponse): boolean {
    if (this.saturated) return false;
    this.working += 1;
    res.once('close', () => (this.working -= 1));
    return true;
  }

  /** Takes one of `keyId`'s slots until `res` closes; false when the key holds its share. */
  enterKey(keyId: string, res: ServerResponse): boolean {
    const held = this.byKey.get(keyId) ?? 0;
    if (held >= this.limits.maxRequestsPerKey) return false;
    this.byKey.set(keyId, held + 1);
    res.once('close', () => {
      const left = (this.byKey.get(keyId) ?? 1) - 1;
      if (left > 0) this.byKey.set(keyId, left);
      else this.byKey.delete(keyId);
    });
    return true;
  }

  /** Throws OVERLOADED when `keyId` already holds its share of the slots (over SSE no slot is taken). */
  admitKey(keyId: string, res: ServerResponse | undefined): void {
    if (!res || isEventStream(res.req?.headers.accept)) return;
    if (this.enterKey(keyId, res)) return;
    const max = this.limits.maxRequestsPerKey;
    throw overloadedError(`This API key has ${max} requests in progress, the most one key may (MAX_REQUESTS_PER_KEY); retry shortly.`, max);
  }
}

function isEventStream(accept: string | string[] | undefined): boolean {
  return String(accept ?? '').includes('text/event-stream');
}

/** The process-wide slot, taken once the request's body has been read and parsed. */
export function useAdmission(admission: Admission, max: number): Plugin {
  return {
    onParams({ request, context, setResult }) {
      const res = (context as { res?: ServerResponse }).res;
      if (!res || request.method !== 'POST' || isEventStream(request.headers.get('accept') ?? undefined)) return;
      if (admission.enter(res)) return;
      setResult({
        errors: [overloadedError(`The server is working on ${max} requests, the most it takes at once (MAX_CONCURRENT_REQUESTS); retry shortly.`, max)],
      });
    },
  };
}
