// A wait that never holds the process open: the shutdown paths (server.ts, jobs/queue.ts) race it
// against the work they wait for, and a process whose work is done exits without waiting it out.

/** Resolves after ms without keeping the process alive for it. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
