// Tells "the database is unreachable right now" apart from errors that retrying cannot fix.

/** SQLSTATE classes of a lost or refused connection: 08 connection, 53 resources, 57 operator intervention (shutdown, terminated). */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57']);
const SQLSTATE = /^[0-9A-Z]{5}$/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
/** node-postgres and pg-pool report these without any code. */
const CONNECTION_MESSAGES = /Connection terminated|is not queryable/;
/** pg-pool's error when every pooled connection stayed busy for connectionTimeoutMillis (none free to check out). */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && SQLSTATE.test(code)) return UNAVAILABLE_CLASSES.has(code.slice(0, 2));
  if (typeof code === 'string') return NETWORK_CODES.has(code);
  return CONNECTION_MESSAGES.test(err.message);
}

/**
 * Every pooled connection stayed busy past the checkout timeout: the database answers, this process
 * is saturated. Retrying later helps, as after an outage, but the cause is load, not reachability.
 */
export function isPoolSaturated(err: unknown): boolean {
  return err instanceof Error && err.message === POOL_WAIT_TIMEOUT;
}
