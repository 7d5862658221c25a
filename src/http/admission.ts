// Admission control: at most MAX_CONCURRENT_REQUESTS requests are worked on at once, shared fairly
// between tenants and keys (src/core/fair-queue.ts). A request takes its slot only after every shape check
// (parse, depth, aliases, tokens, node limit, scopes), so a bad request is its 400 whatever the load
// (one exception: a POST of a key whose queue is already full is refused before its body is read,
// src/http/refusal-before-body.ts), and half-sent requests hold none (node's headers and request
// timeouts close them with 408). A waiting request holds its parsed body: a key's queue is bounded
// by count and by bytes (MAX_QUEUED_PER_KEY, MAX_QUEUED_BYTES_PER_KEY). Every
// door takes slots here: GraphQL over HTTP and graphql-ws, each call of an MCP batch, OTLP exports,
// blob downloads. Subscriptions take no slot: they count against their key's stream cap instead
// (src/http/streams.ts).
import diagnostics from 'node:diagnostics_channel';
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Viewer } from '../auth/store.ts';
import { FairQueue, FairQueueRefusal, type Release } from '../core/fair-queue.ts';
import { PacedWork } from '../core/paced-work.ts';
import { requestScope } from '../log.ts';

export interface AdmissionLimits {
  maxConcurrentRequests: number;
  maxRequestsPerKey: number;
  maxRequestsPerKeyShared: number;
  maxQueuedPerKey: number;
  maxQueuedBytesPerKey: number;
  admissionWaitMs: number;
  /** While another key is active, a key's large answers and downloads (bytes) and OTLP spans per second; 0: not paced. */
  pacedBytesPerSecond: number;
  pacedSpansPerSecond: number;
  /** While another key is active, a key's retrievals (relevantEpisodes, relevantPatterns, relevantFiles) per second, over every door; 0: not paced. */
  pacedRetrievalsPerSecond: number;
}

export function overloadedError(message: string, limit: number, code = 'OVERLOADED'): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code, retryAfterMs: 1000, limit, http: { status: 503, headers: { 'retry-after': '1' } } },
  });
}

/** Who a request works for: its API key within its tenant. */
export interface Caller {
  tenantId: string;
  keyId: string;
}

export class Admission {
  private readonly slots: FairQueue;
  /** One key's heavy work by its cost while another key is active: bytes of large answers and downloads (both doors, one schedule), OTLP spans. */
  readonly pacedBytes: PacedWork;
  readonly pacedSpans: PacedWork;
  /** One key's retrievals while another key is active: each is a ranking (~5 ms of CPU here, ~4 in PostgreSQL), whether an alias of a request or a call of an MCP batch. */
  readonly pacedRetrievals: PacedWork;

  constructor(private readonly limits: AdmissionLimits) {
    const othersActive = (keyId: string) => this.slots.othersActive(keyId);
    this.pacedBytes = new PacedWork(othersActive, limits.pacedBytesPerSecond);
    this.pacedSpans = new PacedWork(othersActive, limits.pacedSpansPerSecond);
    this.pacedRetrievals = new PacedWork(othersActive, limits.pacedRetrievalsPerSecond);
    this.slots = new FairQueue({
      capacity: limits.maxConcurrentRequests,
      perKey: limits.maxRequestsPerKey,
      sharedPerKey: limits.maxRequestsPerKeyShared,
      queuedPerKey: limits.maxQueuedPerKey,
      queuedBytesPerKey: limits.maxQueuedBytesPerKey,
      waitMs: limits.admissionWaitMs,
    });
  }

  /** Every slot is taken: /readyz says so, so a balancer sends new work elsewhere. */
  get saturated(): boolean {
    return this.slots.full;
  }

  get inFlight(): number {
    return this.slots.inUse;
  }

  /** Some request waits for a slot: only then can a key's queue be full. */
  get queuing(): boolean {
    return this.slots.anyWaiting;
  }

  /** Another key than `keyId` is active (holds a slot, waits, or asked within the last second): heavy work of `keyId` is paced (src/http/paced-work.ts). */
  othersActive(keyId: string): boolean {
    return this.slots.othersActive(keyId);
  }

  /** A call of `caller` with a body of `bytes` would be refused now (its key's queue is full): the refusal it would get, else null. */
  refusalNow(caller: Caller, bytes = 0): GraphQLError | null {
    const reason = this.slots.refusalNow(caller.tenantId, caller.keyId, bytes);
    return reason ? this.refusal(new FairQueueRefusal(reason), caller.keyId) : null;
  }

  /**
   * `units` slots for `caller` (its work's cost: 1 for a GraphQL operation, an OTLP export's spans,
   * an MCP batch's calls; at most MAX_REQUESTS_PER_KEY_SHARED), in its fair turn, while holding `bytes`
   * (its request's body) if it waits: the release at once when the slots are free (no promise on the
   * usual path), else a promise of it that rejects with the one OVERLOADED error a refused call gets.
   * `signal` aborting (the client went away) gives up the wait.
   */
  claim(caller: Caller, units = 1, bytes = 0, signal?: AbortSignal): Release | Promise<Release> {
    const slots = this.slots.claim(caller.tenantId, caller.keyId, units, bytes, signal);
    if (!(slots instanceof Promise)) return slots;
    return slots.catch((err: unknown) => {
      throw err instanceof FairQueueRefusal ? this.refusal(err, caller.keyId) : err;
    });
  }

  /** Slots held until `res` closes (doors outside GraphQL: OTLP, MCP, blob downloads); `bytes`: the body it holds while it waits, given up when `res` closes first. */
  async takeFor(caller: Caller, res: ServerResponse, units = 1, bytes = 0): Promise<void> {
    markCaller(caller);
    const gone = new AbortController();
    const abort = () => gone.abort();
    res.once('close', abort);
    let release: Release;
    try {
      release = await this.claim(caller, units, bytes, gone.signal);
    } finally {
      res.off('close', abort);
    }
    if (res.closed) release();
    else res.once('close', release);
  }

  private refusal(err: FairQueueRefusal, keyId: string): GraphQLError {
    const { maxRequestsPerKey, maxRequestsPerKeyShared, maxConcurrentRequests, maxQueuedPerKey, maxQueuedBytesPerKey, admissionWaitMs } = this.limits;
    const queueFull = `${maxQueuedPerKey} requests or ${maxQueuedBytesPerKey} bytes of request bodies waiting (MAX_QUEUED_PER_KEY, MAX_QUEUED_BYTES_PER_KEY)`;
    if (err.reason === 'key-busy') {
      const share = this.slots.shareOf(keyId);
      return overloadedError(
        `This API key holds ${share} request slots, the most one key may now (MAX_REQUESTS_PER_KEY ${maxRequestsPerKey} alone, MAX_REQUESTS_PER_KEY_SHARED ${maxRequestsPerKeyShared} while other keys are active; an OTLP export takes one per span, an MCP POST one per call), and has ${queueFull}; retry shortly.`,
        share,
      );
    }
    const why = {
      timeout: `no slot came free within ${admissionWaitMs} ms (ADMISSION_WAIT_MS)`,
      full: `this API key has ${queueFull}`,
      aborted: 'the request was given up while it waited',
    }[err.reason];
    return overloadedError(
      `The server is working on ${maxConcurrentRequests} requests, the most it takes at once (MAX_CONCURRENT_REQUESTS), and ${why}; retry shortly.`,
      maxConcurrentRequests,
    );
  }
}

/** Slots an operation asks for instead of one, set by a plugin before admission (useResponseBudget: a large read). */
const operationUnits = new WeakMap<object, number>();

/** The operation of `context` takes `units` slots (its work's cost) when it is admitted. */
export function chargeOperation(context: object, units: number): void {
  operationUnits.set(context, units);
}

/** Marks the request scope with its caller, so the database connections it asks for are shared fairly too (src/db/fair-pool.ts). */
export function markCaller(caller: Caller): void {
  const scope = requestScope.getStore();
  if (scope) Object.assign(scope, { tenantId: caller.tenantId, keyId: caller.keyId });
}

/**
 * Where a GraphQL request's time goes around admission, for whoever subscribes (bench/fairness.ts;
 * nothing is built when nobody does): `{ requestId, phase, at }` (performance.now() ms) when its
 * body has been read and parsed ('parsed'), when every check before admission has passed and it
 * asks for its slots ('asked'), when it has them ('granted', also for a refusal: 'refused'), and
 * when its execution has ended ('done').
 */
export const admissionPhases = diagnostics.channel('episodic:admission-phase');

export type AdmissionPhase = 'parsed' | 'asked' | 'granted' | 'refused' | 'done';

function phase(name: AdmissionPhase): void {
  if (admissionPhases.hasSubscribers) admissionPhases.publish({ requestId: requestScope.getStore()?.requestId, phase: name, at: performance.now() });
}

/**
 * Takes the caller's slot at execution, after every shape check (this plugin comes after them), and
 * gives it back when the result is ready. Subscriptions (SSE, graphql-ws) take none.
 */
export function useAdmission(admission: Admission, maxBodyBytes: number): Plugin {
  return {
    onRequestParse() {
      return { onRequestParseDone: () => phase('parsed') };
    },
    onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as unknown as { viewer: Viewer | null; request?: Request };
      const viewer = context.viewer;
      // An operation of an MCP batch: the door holds the batch's slots, one per call.
      if (!viewer || requestScope.getStore()?.admitted) return undefined;
      markCaller(viewer);
      const units = operationUnits.get(args.contextValue as object) ?? 1;
      phase('asked');
      // A free slot is taken at once (no promise, no turn of the event loop); only a wait is a promise.
      const slots = admission.claim(viewer, units, bodyBytes(context.request, maxBodyBytes), context.request?.signal);
      if (!(slots instanceof Promise)) return granted(slots);
      return slots.then(granted, (err: unknown) => {
        if (!(err instanceof GraphQLError)) throw err;
        phase('refused');
        setResultAndStopExecution({ errors: [err] });
        return undefined;
      });
    },
  };
}

/** The execution's end gives the slots back: a slot taken at once or after a wait. */
function granted(release: Release): { onExecuteDone: () => void } {
  phase('granted');
  return {
    onExecuteDone: () => {
      release();
      phase('done');
    },
  };
}

/**
 * The bytes a waiting request holds for its body: its declared Content-Length; a POST without one
 * (chunked) as much as MAX_BODY_BYTES lets it send, since its size is not kept once it is parsed; none for a GET.
 */
function bodyBytes(request: Pick<Request, 'method' | 'headers'> | undefined, maxBodyBytes: number): number {
  if (request?.method !== 'POST') return 0;
  const declared = request.headers.get('content-length');
  return declared === null ? maxBodyBytes : Number(declared);
}

/** Codes of a call shed for load: however many resolvers met it, the client is told once. */
const SHED_CODES: ReadonlySet<unknown> = new Set(['OVERLOADED', 'DATABASE_UNAVAILABLE']);

/** The errors with each shed code after its first left out (a 1,000-step logSteps once answered ~40 identical OVERLOADED errors). */
function oneErrorPerShedCode<E extends { extensions?: Record<string, unknown> }>(errors: readonly E[]): E[] {
  const seen = new Set<unknown>();
  return errors.filter((e) => {
    const code = e.extensions?.code;
    if (!SHED_CODES.has(code)) return true;
    if (seen.has(code)) return false;
    seen.add(code);
    return true;
  });
}

/** A shed call gets one OVERLOADED (or DATABASE_UNAVAILABLE) error with its Retry-After, never one per field. */
export function useOneErrorPerRefusal(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || !('errors' in result) || !result.errors || result.errors.length < 2) return;
      const errors = oneErrorPerShedCode(result.errors as readonly GraphQLError[]);
      if (errors.length < result.errors.length) setResult({ ...result, errors });
    },
  };
}
