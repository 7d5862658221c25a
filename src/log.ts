import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'episodic' } });
}

/**
 * Carries the request id to code that has no context (error masking), and, once the request is
 * admitted, its caller, by which database connections are shared fairly (src/db/fair-pool.ts).
 */
export const requestScope = new AsyncLocalStorage<{
  requestId: string;
  tenantId?: string;
  keyId?: string;
  /** The door took the slots and the rate allowance of every operation it runs in this scope (an MCP batch, call by call). */
  admitted?: boolean;
}>();
