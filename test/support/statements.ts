// The SQL statements requests sent while a piece of a test ran: Prisma's and raw SQL share pg, and
// only statements sent inside a request's scope count (the server's own jobs are left out).
import pg from 'pg';
import { vi } from 'vitest';
import { requestScope } from '../../src/log.ts';

export async function statementsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const original = pg.Client.prototype.query;
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: Parameters<typeof original>) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | undefined)?.text;
    if (requestScope.getStore() && typeof text === 'string') sent.push(text);
    return Reflect.apply(original, this, args);
  } as typeof original);
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return sent;
}
