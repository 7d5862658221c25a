// The raw-SQL idiom of src/db/sql.ts: each value's placeholder is where the statement uses it, and
// an insert's columns and values come from one record, so they cannot fall out of order.
import { describe, expect, it } from 'vitest';
import { insertInto, Params } from '../../src/db/sql.ts';

describe('Params', () => {
  it('numbers placeholders in the order values are added and keeps the values in that order', () => {
    const p = new Params();
    const sql = `SELECT 1 FROM t WHERE a = ${p.add('x')} AND b = ${p.add(2)} AND c = ${p.add(null)}`;
    expect(sql).toBe('SELECT 1 FROM t WHERE a = $1 AND b = $2 AND c = $3');
    expect(p.values).toEqual(['x', 2, null]);
  });
});

describe('insertInto', () => {
  it('pairs every column with its own value', () => {
    const p = new Params();
    p.add('before');
    const sql = insertInto(p, 'episodes', { tenant_id: 't', updated_at: 'now', context_pack_hash: 'h' });
    expect(sql).toBe('INSERT INTO episodes (tenant_id, updated_at, context_pack_hash) VALUES ($2, $3, $4)');
    expect(p.values).toEqual(['before', 't', 'now', 'h']);
  });
});
