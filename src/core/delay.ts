// A wait that never holds the process open: the shutdown paths (server.ts, jobs/queue.ts) race it
// against the work they wait for, and a process whose work is done exits without waiting it out.

/** Resolves after ms without keeping the process alive for it. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Resolves on the event loop's next turn, after the I/O that came meanwhile: long work (an OTLP
 * export's span batches, an MCP batch's calls) awaits it between parts, so another tenant's
 * request is read and answered between them instead of after the whole (issue 50).
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
