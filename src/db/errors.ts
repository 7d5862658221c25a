// Tells "the database is unreachable right now" apart from "the database answers, but this request
// got no connection in time" (load: shed with OVERLOADED) and from errors that retrying cannot fix.

/** SQLSTATE classes of a lost or refused connection: 08 connection, 53 resources, 57 operator intervention (shutdown, terminated). */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57']);
const SQLSTATE = /^[0-9A-Z]{5}$/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
/** node-postgres and pg-pool report these without any code. */
const CONNECTION_MESSAGES = /Connection terminated|is not queryable/;
/** pg-pool's error when every pooled connection stayed busy for connectionTimeoutMillis (none free to check out). */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';
/** PostgreSQL answered the connection attempt: it already serves max_connections ("too many clients"). */
const TOO_MANY_CONNECTIONS = '53300';
/** pg-pool's error when a new connection did not finish its handshake within connectionTimeoutMillis. */
const CONNECT_TIMEOUT = 'Connection terminated due to connection timeout';
/** Prisma's codes for a server it cannot reach, a timeout reaching it, a closed connection. */
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017']);
/** Prisma's own pool timeout (no connection free in time): load, as pg-pool's wait timeout. */
const PRISMA_POOL_TIMEOUT = 'P2024';

const codeOf = (err: unknown): unknown => (err as { code?: unknown } | null)?.code;

export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = codeOf(err);
  if (typeof code === 'string' && SQLSTATE.test(code)) return UNAVAILABLE_CLASSES.has(code.slice(0, 2));
  if (typeof code === 'string') return NETWORK_CODES.has(code);
  return CONNECTION_MESSAGES.test(err.message);
}

/**
 * No connection was to be had although the database answers: every pooled connection stayed busy
 * past the checkout timeout, or PostgreSQL refused a new one for having max_connections already.
 * Retrying later helps, as after an outage, but the cause is load, not reachability.
 */
export function isPoolSaturated(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = codeOf(err);
  return err.message === POOL_WAIT_TIMEOUT || code === TOO_MANY_CONNECTIONS || code === PRISMA_POOL_TIMEOUT;
}

/** A new connection's handshake outlasted the connect timeout: a database away, or one (or a process) too busy to finish it in time. */
function isConnectTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === CONNECT_TIMEOUT;
}

/** The error and the causes it wraps (Prisma, GraphQL and pg-pool wrap driver errors), at most five deep. */
export function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = err; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

export type DatabaseTrouble = 'saturated' | 'unavailable';

/**
 * What a failed request's error says about the database: `saturated` (answer OVERLOADED) when it
 * answers but no connection was free or opened in time, `unavailable` (DATABASE_UNAVAILABLE) when it
 * cannot be reached, null for anything else. A connect timeout alone cannot tell a database away
 * from a busy one (on a busy machine the timer fires before the handshake's answer is read), so
 * `answeredRecently` decides it: did the database answer another query within the connect timeout,
 * that is while this connection was being opened.
 */
export function databaseTrouble(err: unknown, answeredRecently: boolean): DatabaseTrouble | null {
  const chain = causes(err);
  if (chain.some(isPoolSaturated)) return 'saturated';
  if (chain.some(isConnectTimeout)) return answeredRecently ? 'saturated' : 'unavailable';
  if (chain.some((e) => isUnavailable(e) || PRISMA_UNAVAILABLE.has(String(codeOf(e))))) return 'unavailable';
  return null;
}
