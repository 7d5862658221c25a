// What the ledger tests share: the `episodic` CLI in-process with an empty environment (so no
// EPISODIC_* variable of the machine leaks in), and raw SQL on an app's pool, to tamper with rows
// as an attacker with database access would.
import { startInProcess } from '../client/cli-run.ts';
import type { TestApp } from './app.ts';

export async function cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const r = await startInProcess(args, { env: {} }).exited;
  return { code: r.code, out: r.stdout, err: r.stderr };
}

export function sqlOn(app: () => TestApp) {
  return (text: string, values: unknown[] = []) => app().services.db.pool.query(text, values);
}
