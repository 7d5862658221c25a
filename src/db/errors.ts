// Tells "the database is unreachable right now" apart from errors that retrying cannot fix.

/** SQLSTATE classes of a lost or refused connection: 08 connection, 53 resources, 57 operator intervention (shutdown, terminated). */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57']);
const SQLSTATE = /^[0-9A-Z]{5}$/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
/** node-postgres and pg-pool report these without any code. */
const CONNECTION_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|is not queryable/;

export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && SQLSTATE.test(code)) return UNAVAILABLE_CLASSES.has(code.slice(0, 2));
  if (typeof code === 'string') return NETWORK_CODES.has(code);
  return CONNECTION_MESSAGES.test(err.message);
}
