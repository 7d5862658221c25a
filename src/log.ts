import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'episodic' } });
}

/** Carries the request id to code that has no context (error masking). */
export const requestScope = new AsyncLocalStorage<{ requestId: string }>();
