import type pg from 'pg';

/**
 * Runs fn in one transaction on one connection; commits before resolving, so an answer means durable.
 * @param begun fn's first statement opens the transaction itself (`BEGIN; ...` in one round trip)
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, begun = false): Promise<T> {
  const client = await pool.connect();
  try {
    if (!begun) await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
