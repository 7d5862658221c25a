// Appends chain optimistically onto the tail this process computed last. These cases force each
// path against the real database: an append queued behind an uncommitted one, a tail that was
// rolled back, and a head moved by someone else; and the one-statement write (a receipt) on both paths. The chain must stay gapless and valid throughout.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../../src/auth/store.ts';
import { must } from '../../src/core/must.ts';
import { insertWhere, type Params } from '../../src/db/sql.ts';
import { verifyChain } from '../../src/ledger/proofs/verify.ts';
import { readEvents, readHead } from '../../src/ledger/store/read.ts';
import { appendEvents, appendInOneStatement } from '../../src/ledger/store/store.ts';
import { createWriter } from '../../src/write.ts';
import { createMigratedDatabase, type MigratedDatabase } from '../support/db.ts';

let m: MigratedDatabase;
beforeAll(async () => {
  m = await createMigratedDatabase();
});
afterAll(() => m.drop());

const event = (n: string) => ({ type: 'work_item.created', workItemId: randomUUID(), payload: { title: n } });

async function begin() {
  const client = await m.db.pool.connect();
  await client.query('BEGIN');
  const pid = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  return {
    client,
    append: (names: string[]) => appendEvents(client, tenantId, names.map(event)),
    commit: async () => void (await client.query('COMMIT'), client.release()),
    rollback: async () => void (await client.query('ROLLBACK'), client.release()),
    /** Resolves once this transaction waits for a lock another one holds (not after a guessed time). */
    blocked: () => waitForLockWait(pid),
  };
}

let tenantId: string;

async function waitForLockWait(pid: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  const waiting = async () => (await m.db.pool.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`, [pid])).rowCount === 1;
  while (!(await waiting())) {
    if (Date.now() > deadline) throw new Error(`backend ${pid} never waited for a lock`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The SQL texts the client (or pool) sends from now on, until `stop`. */
function recordQueries(client: import('pg').PoolClient | import('pg').Pool): { sent: string[]; stop(): void } {
  const sent: string[] = [];
  const original = client.query;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (text: unknown, ...rest: unknown[]) => {
    sent.push(typeof text === 'object' && text !== null && 'text' in text ? String(text.text) : String(text));
    return query(text, ...rest);
  };
  return { sent, stop: () => void ((client as { query: unknown }).query = original) };
}

/** A second instance of the store module: its own tails, as another server process has. */
async function anotherProcess(tag: string): Promise<typeof import('../../src/ledger/store/store.ts')> {
  const instance = `../../src/ledger/store/store.ts?${tag}`;
  return (await import(/* @vite-ignore */ instance)) as typeof import('../../src/ledger/store/store.ts');
}

async function chain() {
  const events = await readEvents(m.db.pool, tenantId, { afterSeq: 0, limit: 1000 });
  return { events, report: verifyChain(events, { tenantId }), head: await readHead(m.db.pool, tenantId) };
}

describe('appendEvents', () => {
  it('hands the head to an append queued behind an uncommitted one, in order', async () => {
    tenantId = (await createTenant(m.db.prisma, `t-${randomUUID()}`)).id;
    const first = await begin(); // creates the head row, which a queued UPDATE can then wait on
    await first.append(['first']);
    await first.commit();
    const a = await begin();
    await a.append(['a1', 'a2']);
    const b = await begin();
    const { sent } = recordQueries(b.client);
    const pending = b.append(['b1']); // waits for a's row lock on the head
    await b.blocked();
    await a.commit();
    const stored = await pending;
    const appendSent = [...sent];
    await b.commit();
    expect(stored.map((e) => e.seq)).toEqual([4]);
    const { events, report, head } = await chain();
    expect(report).toMatchObject({ ok: true, checked: 4 });
    expect(events.map((e) => (e.payload as { title: string }).title)).toEqual(['first', 'a1', 'a2', 'b1']);
    expect(head.seq).toBe(4);
    // Handed over inside PostgreSQL: one statement, no second trip to lock and re-read the head.
    expect(appendSent).toHaveLength(1);
    expect(appendSent[0]).not.toMatch(/FOR UPDATE/);
  });

  it('re-chains onto the real head when the tail it built on was rolled back', async () => {
    const a = await begin();
    await a.append(['lost']);
    const b = await begin();
    const pending = b.append(['kept']);
    await b.blocked();
    await a.rollback();
    expect((await pending).map((e) => e.seq)).toEqual([5]);
    await b.commit();
    const { events, report } = await chain();
    expect(report).toMatchObject({ ok: true, checked: 5 });
    expect(must(events.at(-1)).payload).toEqual({ title: 'kept' });
  });

  it('re-chains when another process moved the head past the tail this process knows', async () => {
    const otherProcess = await anotherProcess('another-process');
    expect(otherProcess.appendEvents).not.toBe(appendEvents);
    const before = await chain();
    const mine = await begin();
    await mine.append(['mine 1']);
    await mine.commit();
    const theirs = await begin();
    const [foreign] = await otherProcess.appendEvents(theirs.client, tenantId, [event('theirs')]);
    await theirs.commit();
    const again = await begin();
    const stored = await again.append(['mine 2']);
    await again.commit();
    expect([must(foreign).seq, must(stored[0]).seq]).toEqual([before.head.seq + 2, before.head.seq + 3]);
    const { events, report } = await chain();
    expect(report).toMatchObject({ ok: true, checked: before.head.seq + 3 });
    expect(events.slice(-3).map((e) => (e.payload as { title: string }).title)).toEqual(['mine 1', 'theirs', 'mine 2']);
  });
});

describe('Writer.runStatement: a write and its events as one autocommit statement', () => {
  /** A retrieval row marked by its query hash, written only where the condition holds. */
  const receipt = (mark: string) => (p: Params, when: string) =>
    insertWhere(p, 'retrievals', { tenant_id: [tenantId, 'uuid'], kind: ['episodes', 'text'], query_hash: [mark, 'text'], results_hash: ['r', 'text'] }, when);
  const marked = async (mark: string) =>
    Number((await m.db.pool.query('SELECT count(*) AS n FROM retrievals WHERE tenant_id = $1 AND query_hash = $2', [tenantId, mark])).rows[0].n);

  it('writes the row and chains its event in one statement onto the tail this process knows', async () => {
    tenantId = (await createTenant(m.db.prisma, `t-${randomUUID()}`)).id;
    const writer = createWriter(m.db.pool, []);
    await writer.run(tenantId, async (ctx) => void ctx.events.push(event('known tail')));
    const { sent, stop } = recordQueries(m.db.pool);
    try {
      await writer.runStatement(tenantId, receipt('one'), [event('one statement')]);
    } finally {
      stop();
    }
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/INSERT INTO retrievals/);
    expect(await marked('one')).toBe(1);
    const { events, report } = await chain();
    expect(report).toMatchObject({ ok: true, checked: 2 });
    expect(must(events.at(-1)).payload).toEqual({ title: 'one statement' });
  });

  it('writes nothing in that statement when another process moved the head, then writes once under the lock', async () => {
    const otherProcess = await anotherProcess('another-process-2');
    const theirs = await begin();
    await otherProcess.appendEvents(theirs.client, tenantId, [event('theirs')]);
    await theirs.commit();
    const writer = createWriter(m.db.pool, []);
    expect(await appendInOneStatement(m.db.pool, tenantId, [event('refused')], receipt('refused'))).toBeNull();
    expect(await marked('refused')).toBe(0);
    await writer.runStatement(tenantId, receipt('after'), [event('after the move')]);
    expect(await marked('after')).toBe(1);
    const { events, report } = await chain();
    expect(report).toMatchObject({ ok: true, checked: 4 });
    expect(events.slice(-2).map((e) => (e.payload as { title: string }).title)).toEqual(['theirs', 'after the move']);
  });

  it('group-commits concurrent writes of one tenant: those that arrive while one is in flight go in one statement, in order', async () => {
    tenantId = (await createTenant(m.db.prisma, `t-${randomUUID()}`)).id;
    const writer = createWriter(m.db.pool, []);
    await writer.run(tenantId, async (ctx) => void ctx.events.push(event('known tail')));
    const marks = Array.from({ length: 12 }, (_, i) => `batched-${i}`);
    const { sent, stop } = recordQueries(m.db.pool);
    try {
      await Promise.all(marks.map((mark) => writer.runStatement(tenantId, receipt(mark), [event(mark)])));
    } finally {
      stop();
    }
    // The first goes alone; the other eleven arrived while it was in flight and go together.
    expect(sent).toHaveLength(2);
    expect(sent.every((text) => /INSERT INTO retrievals/.test(text) && !/BEGIN|FOR UPDATE/.test(text))).toBe(true);
    for (const mark of marks) expect(await marked(mark)).toBe(1);
    const { events, report } = await chain();
    expect(report).toMatchObject({ ok: true, checked: 13 });
    expect(events.slice(1).map((e) => (e.payload as { title: string }).title)).toEqual(marks);
  });

  it('fails only the write whose statement fails: its batch is written again one by one', async () => {
    const writer = createWriter(m.db.pool, []);
    await writer.run(tenantId, async (ctx) => void ctx.events.push(event('tail again')));
    const broken = (p: Params, when: string) => `${receipt('never')(p, when)} AND 1/0 = 1`;
    const first = writer.runStatement(tenantId, receipt('alone'), [event('alone')]);
    const failing = [writer.runStatement(tenantId, broken, [event('broken')]), writer.runStatement(tenantId, receipt('beside'), [event('beside')])];
    await first;
    await expect(failing[0]).rejects.toThrow(/division by zero/);
    await failing[1];
    await writer.runStatement(tenantId, receipt('later'), [event('later')]);
    expect([await marked('alone'), await marked('never'), await marked('beside'), await marked('later')]).toEqual([1, 0, 1, 1]);
    expect((await chain()).report).toMatchObject({ ok: true });
  });
});
