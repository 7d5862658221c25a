// The stored size of pages of episodes' steps (steps.size_bytes, the JSON size of each step's
// content), summed by PostgreSQL in one statement for any number of pages, without reading a
// content column: what a request's byte budget charges before it reads the pages (src/http/response-budget.ts).
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';

/** One page as Prisma reads it: `take` rows by step number (descending when backward), after (before) the cursor's step when given. */
export interface StepPage {
  episodeId: string;
  take: number;
  backward: boolean;
  /** A step id; a page after a step that is not the tenant's has no rows (the read refuses such a cursor). */
  cursor: string | null;
}

/** Bytes the pages hold together (a page of another tenant's episode holds nothing). */
export async function stepPagesBytes(pool: pg.Pool, tenantId: string, pages: readonly StepPage[]): Promise<number> {
  if (!pages.length) return 0;
  const p = new Params();
  const tenant = p.add(tenantId);
  // Each page by the (episode_id, step_number) index, forwards or backwards; a cursor step is placed by its number.
  const page = (backward: boolean) => `(SELECT s.size_bytes FROM steps s
      WHERE ${backward ? '' : 'NOT '}r.backward AND s.tenant_id = ${tenant} AND s.episode_id = r.episode_id
        AND (r.cursor IS NULL OR s.step_number ${backward ? '<' : '>'} (SELECT c.step_number FROM steps c WHERE c.id = r.cursor AND c.tenant_id = ${tenant}))
      ORDER BY s.step_number ${backward ? 'DESC' : 'ASC'} LIMIT r.take)`;
  const sql = `SELECT coalesce(sum(page.size_bytes), 0)::bigint AS bytes
    FROM unnest(${p.add(pages.map((g) => g.episodeId))}::uuid[], ${p.add(pages.map((g) => g.take))}::int[],
                ${p.add(pages.map((g) => g.backward))}::bool[], ${p.add(pages.map((g) => g.cursor))}::uuid[]) AS r(episode_id, take, backward, cursor)
    CROSS JOIN LATERAL (${page(false)} UNION ALL ${page(true)}) AS page`;
  return Number((await queryRows<{ bytes: string }>(pool, sql, p))[0]?.bytes ?? 0);
}
