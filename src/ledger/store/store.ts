// Appends events to a tenant's chain inside the caller's transaction. The head row is locked for
// the rest of the transaction, so seq is assigned in commit order and the chain never forks.
import type pg from 'pg';
import { canonicalId } from '../../core/ids.ts';
import { must } from '../../core/must.ts';
import type { NewLedgerEvent } from '../../core/write-context.ts';
import { insertInto, Params, queryRows, unnestAs } from '../../db/sql.ts';
import { preparedStatementNames } from '../../db/statement-names.ts';
import { chainHash, GENESIS_HASH, type StoredLedgerEvent } from '../format/hash.ts';

/** Names of the group commit's statements (insertChained with a leading write). */
const groupCommitStatement = preparedStatementNames('episodic_append_');

async function lockHead(client: pg.PoolClient, tenantId: string): Promise<{ seq: number; hash: string }> {
  const select = () => {
    const p = new Params();
    return queryRows<{ seq: string; hash: string }>(
      client,
      `SELECT seq::text AS seq, hash FROM ledger_heads WHERE tenant_id = ${p.add(tenantId)} FOR UPDATE`,
      p,
    );
  };
  let rows = await select();
  if (!rows.length) {
    const p = new Params();
    await client.query(`${insertInto(p, 'ledger_heads', { tenant_id: tenantId, seq: 0, hash: GENESIS_HASH })} ON CONFLICT DO NOTHING`, p.values);
    rows = await select();
  }
  return { seq: Number(must(rows[0]).seq), hash: must(rows[0]).hash };
}

/** The tail each tenant's latest append in this process computed: committed, or about to be. */
const tails = new Map<string, ChainTail>();

interface ChainTail {
  seq: number;
  hash: string;
}

/**
 * Chains and inserts the events; returns them as stored. `leading`, when given, is written by the
 * same statement, before the head is touched (or on its own when no event is to be appended).
 *
 * Optimistic first: the events are chained onto the tail this process computed last and stored
 * with one statement that moves the head only if it still is that tail. The head's row lock is
 * then held for that statement and the commit alone, and an append queued behind another of this
 * process's appends is handed the lock inside PostgreSQL (its condition is re-checked against the
 * committed head) without waiting for a round trip through Node. When the head moved elsewhere
 * (another process, a rolled-back append), the head is locked and read, and the events re-chained.
 */
export async function appendEvents(client: pg.PoolClient, tenantId: string, events: NewLedgerEvent[], leading?: LeadingWrite): Promise<StoredLedgerEvent[]> {
  const expected = tails.get(tenantId);
  if (expected && events.length) {
    const stored = chainEvents(tenantId, expected, events);
    if (await insertChained(client, tenantId, expected, stored, undefined, leading)) return stored;
    leading = undefined; // written by that statement all the same
  }
  if (leading) {
    const p = new Params();
    const { ctes, done } = leading(p);
    await client.query(`WITH ${ctes} SELECT ${done}`, p.values);
  }
  if (!events.length) return [];
  const head = await lockHead(client, tenantId);
  const stored = chainEvents(tenantId, head, events);
  // Under the lock the head cannot have moved; if it did, nothing may be acknowledged.
  if (!(await insertChained(client, tenantId, head, stored))) throw new Error(`ledger head of tenant ${tenantId} moved while locked`);
  return stored;
}

function chainEvents(tenantId: string, head: ChainTail, events: NewLedgerEvent[]): StoredLedgerEvent[] {
  const createdAt = new Date().toISOString();
  let prevHash = head.hash;
  const stored = events.map((e, i): StoredLedgerEvent => {
    const entry = {
      tenantId,
      seq: head.seq + 1 + i,
      type: e.type,
      // Hashed as the uuid columns will hold them (lower case): an id a client sent in upper case
      // would otherwise hash one way and read back another, and the chain would fail to verify.
      episodeId: e.episodeId == null ? null : canonicalId(e.episodeId),
      workItemId: e.workItemId == null ? null : canonicalId(e.workItemId),
      payload: typeof e.payload === 'function' ? e.payload({ seq: head.seq + i, hash: prevHash }) : e.payload,
      createdAt,
    };
    const hash = chainHash(prevHash, entry);
    const event = { ...entry, prevHash, hash };
    prevHash = hash;
    return event;
  });
  const last = must(stored[stored.length - 1]);
  tails.set(tenantId, { seq: last.seq, hash: last.hash });
  return stored;
}

/**
 * Writes that go first in the append's statement (a group commit's step rows: one round trip
 * fewer per batch): data-modifying CTEs, and an expression that reads them, which the head's
 * update waits for, so that the head's row lock is taken only after they ran.
 */
export type LeadingWrite = (p: Params) => { ctes: string; done: string };

/**
 * A domain write that is one data-modifying statement (an INSERT ... SELECT ... WHERE `when`), so
 * that it and its ledger events can be one autocommit statement (appendInOneStatement).
 */
export type RowsStatement = (p: Params, when: string) => string;

/**
 * The write `rows` and its events in one autocommit statement: one round trip, no BEGIN and COMMIT.
 * Only onto the tail this process knows; null when it knows none or the head moved elsewhere, and
 * then nothing was written (`rows` runs only where the head moved), so the caller takes the
 * transactional path, which locks the head.
 */
export async function appendInOneStatement(
  pool: pg.Pool,
  tenantId: string,
  events: NewLedgerEvent[],
  rows: RowsStatement | readonly RowsStatement[],
): Promise<StoredLedgerEvent[] | null> {
  const expected = tails.get(tenantId);
  if (!expected || !events.length) return null;
  const stored = chainEvents(tenantId, expected, events);
  if (await insertChained(pool, tenantId, expected, stored, rows)) return stored;
  // Nothing was written: forget the tail, so the next append locks the head and reads it.
  if (tails.get(tenantId)?.hash === must(stored[stored.length - 1]).hash) tails.delete(tenantId);
  return null;
}

/**
 * Inserts the events and moves the head, in one statement, if the head is `from`; false if it was
 * not. `rows`, when given (one statement or several), is written by the same statement under the same condition.
 */
async function insertChained(
  client: pg.PoolClient | pg.Pool,
  tenantId: string,
  from: ChainTail,
  stored: StoredLedgerEvent[],
  rows: RowsStatement | readonly RowsStatement[] = [],
  leading?: LeadingWrite,
): Promise<boolean> {
  const last = must(stored[stored.length - 1]);
  const p = new Params();
  const first = leading?.(p);
  const tenant = p.add(tenantId);
  const [toSeq, toHash, fromSeq, fromHash] = [p.add(last.seq), p.add(last.hash), p.add(from.seq), p.add(from.hash)];
  // The payloads as one JSON document: a steps.logged event's 100 hashes, escaped into an array
  // literal of jsonb texts, cost as much as the event's chaining (db/sql.ts JsonValuesColumn).
  const events = unnestAs(p, 'u', {
    seq: [stored.map((e) => e.seq), 'bigint'],
    type: [stored.map((e) => e.type), 'text'],
    episode_id: [stored.map((e) => e.episodeId), 'uuid'],
    work_item_id: [stored.map((e) => e.workItemId), 'uuid'],
    payload: { json: stored.map((e) => e.payload), nulls: 'json' },
    prev_hash: [stored.map((e) => e.prevHash), 'text'],
    hash: [stored.map((e) => e.hash), 'text'],
    created_at: [stored.map((e) => e.createdAt), 'timestamptz'],
  });
  const [leadingCtes, afterLeading] = first ? [`${first.ctes},\n     `, ` AND ${first.done}`] : ['', ''];
  const alongside = (typeof rows === 'function' ? [rows] : rows).map((r, i) => `,\n     rows${i} AS (${r(p, '(SELECT moved FROM head)')})`).join('');
  // The row is matched on the tenant alone, so an append queued behind an uncommitted one waits
  // for its row lock and then sees the head that one committed (READ COMMITTED re-reads a row
  // updated under it); the CASE moves it only from the expected tail. A condition on seq in the
  // WHERE would be tested against the snapshot's older head, and never match while queued.
  const sql = `WITH ${leadingCtes}head AS (
       UPDATE ledger_heads
          SET seq = CASE WHEN seq = ${fromSeq} AND hash = ${fromHash} THEN ${toSeq} ELSE seq END,
              hash = CASE WHEN seq = ${fromSeq} AND hash = ${fromHash} THEN ${toHash} ELSE hash END
        WHERE tenant_id = ${tenant}${afterLeading}
       RETURNING seq = ${toSeq} AND hash = ${toHash} AS moved)${alongside}
     INSERT INTO ledger_events (tenant_id, seq, type, episode_id, work_item_id, payload, prev_hash, hash, created_at)
     SELECT ${tenant}, u.* FROM ${events}
      WHERE (SELECT moved FROM head)`;
  // A group commit's statement (steps, usage, event, head) has one text per shape: prepared once
  // per connection, it is only bound after that, not parsed and planned again for every batch.
  const name = leading ? groupCommitStatement(sql) : '';
  const { rowCount } = await client.query({ name, text: sql, values: p.values });
  return rowCount === stored.length;
}
