// bench:dashboard: the monitor dashboard (src/monitor/store.ts, read from the hourly rollup) at
// 1,000,000 episodes (3M steps, 300k retrieval receipts, 100k feedback events, 5k patterns, over
// 90 days), against the baseline measured in the same run: the same runs and step aggregates
// computed from the raw rows (bench/dashboard-raw.ts). Also times the rollup's first build and an
// incremental refresh after one episode changed. Prints medians and ratios.
//   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:dashboard
//   DASHBOARD_EPISODES=200000 for a quicker run.
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { must } from '../src/core/must.ts';
import { type DashboardFilter, wholeHours } from '../src/monitor/dashboard.ts';
import { refreshRollup } from '../src/monitor/rollup.ts';
import { loadDashboard } from '../src/monitor/store.ts';
import { rawDashboard } from './dashboard-raw.ts';
import { fmt, openBenchDatabase } from './support.ts';

const EPISODES = Number(process.env.DASHBOARD_EPISODES ?? 1_000_000);
const DAYS = 90;
const RUNS = 5;
const CHUNK = 100_000;
// Retrieval's text indexes serve none of these queries; dropping them keeps seeding to minutes.
const UNRELATED_INDEXES = ['episodes_task_document_idx', 'episodes_task_description_trgm_idx', 'episodes_tags_idx'];

const log = (line: string) => process.stdout.write(`${line}\n`);

async function seed(pool: pg.Pool, tenantId: string, episodes: number, end: Date): Promise<void> {
  const spanSeconds = DAYS * 86_400;
  for (let first = 0; first < episodes; first += CHUNK) {
    const last = Math.min(episodes, first + CHUNK) - 1;
    // Episode i starts i/episodes of the way through the 90 days: rows arrive in time order, as they do live.
    await pool.query(
      `INSERT INTO episodes (tenant_id, task_description, task_type, domain, status, outcome_kind, stop_reason, used_tokens, used_cost, step_count, started_at, ended_at)
       SELECT $1, 'run ' || i, 'type-' || (i % 8), 'org/repo-' || (i % 50),
              CASE WHEN i % 100 < 70 THEN 'completed' WHEN i % 100 < 90 THEN 'failed' WHEN i % 100 < 95 THEN 'running' WHEN i % 100 < 98 THEN 'blocked' ELSE 'cancelled' END,
              CASE WHEN i % 100 < 60 THEN 'success' WHEN i % 100 < 70 THEN 'partial' WHEN i % 100 < 90 THEN 'failure' END,
              CASE WHEN i % 100 BETWEEN 87 AND 89 THEN jsonb_build_object('kind', 'budget_exhausted', 'resource', CASE WHEN i % 2 = 0 THEN 'tokens' ELSE 'steps' END) END,
              (i % 5000) + 100, ((i % 5000) + 100) * 0.00001, 3,
              $2::timestamptz + make_interval(secs => i::float8 * $3 / $4), $2::timestamptz + make_interval(secs => i::float8 * $3 / $4 + 60)
         FROM generate_series($5::int, $6::int) AS i`,
      [tenantId, new Date(end.getTime() - spanSeconds * 1000), spanSeconds, episodes, first, last],
    );
    log(`  episodes ${fmt(last + 1)} / ${fmt(episodes)}`);
  }
  log('  steps (3 per episode, in time order)');
  await pool.query(
    `INSERT INTO steps (tenant_id, episode_id, step_number, kind, tool, result_kind, latency_ms, tokens, content_hash, size_bytes, created_at)
     SELECT e.tenant_id, e.id, n, 'tool_call', 'tool-' || ((hashtext(e.id::text) + n) & 7),
            CASE WHEN (hashtext(e.id::text) + n) % 50 = 0 THEN 'timeout' WHEN (hashtext(e.id::text) + n) % 12 = 0 THEN 'error' ELSE 'success' END,
            50 + abs(hashtext(e.id::text || n)) % 4000, 100, md5(e.id::text || n), 200, e.started_at + make_interval(secs => n * 10)
       FROM episodes e CROSS JOIN generate_series(1, 3) AS n WHERE e.tenant_id = $1 ORDER BY e.started_at, n`,
    [tenantId],
  );
  log('  retrievals, feedback events, patterns');
  await pool.query(
    `INSERT INTO retrievals (tenant_id, kind, query_hash, results_hash, episode_ids, warning_ids, pattern_ids, created_at)
     SELECT $1, 'episodes', md5(i::text), md5(i::text), '{}', '{}', '{}', $2::timestamptz - make_interval(secs => i * 26) FROM generate_series(1, 300000) AS i`,
    [tenantId, end],
  );
  await pool.query(
    `INSERT INTO ledger_events (tenant_id, seq, type, payload, prev_hash, hash, created_at)
     SELECT $1, i, 'retrieval.feedback', jsonb_build_object('retrievalIds', jsonb_build_array(gen_random_uuid()), 'target', 1), md5(i::text), md5(i::text), $2::timestamptz - make_interval(secs => i * 77)
       FROM generate_series(1, 100000) AS i`,
    [tenantId, end],
  );
  await pool.query(
    `INSERT INTO patterns (tenant_id, key, kind, signature, description, domain, status, created_at)
     SELECT $1, 'k' || i, 'tool_sequence', '{}', 'p' || i, 'org/repo-' || (i % 50), CASE WHEN i % 3 = 0 THEN 'candidate' ELSE 'active' END, $2::timestamptz - make_interval(secs => i * 1500)
       FROM generate_series(1, 5000) AS i`,
    [tenantId, end],
  );
}

interface Case {
  name: string;
  filter: DashboardFilter;
}

function cases(end: Date): Case[] {
  const ago = (days: number) => new Date(end.getTime() - days * 86_400_000);
  const range = (days: number, extra: Partial<DashboardFilter> = {}) => ({ from: ago(days), to: end, taskType: null, domain: null, ...extra });
  return [
    { name: 'last 24 hours (24 hourly buckets)', filter: range(1) },
    { name: 'last 7 days (168 hourly buckets)', filter: range(7) },
    { name: 'last 30 days (30 daily buckets)', filter: range(30) },
    { name: 'all 90 days (90 daily buckets)', filter: range(90) },
    { name: 'last 7 days, one task type', filter: range(7, { taskType: 'type-3' }) },
    { name: 'last 7 days, one domain', filter: range(7, { domain: 'org/repo-7' }) },
    { name: 'all 90 days, one task type and one domain', filter: range(90, { taskType: 'type-3', domain: 'org/repo-3' }) },
  ];
}

type Load = (pool: pg.Pool, tenantId: string, f: DashboardFilter) => Promise<{ totals: { runs: number } }>;

async function measure(pool: pg.Pool, tenantId: string, list: Case[], load: Load): Promise<Map<string, { median: number; runs: number }>> {
  const out = new Map<string, { median: number; runs: number }>();
  for (const c of list) {
    await load(pool, tenantId, c.filter); // warm the cache as a dashboard in use would be
    const times: number[] = [];
    let runs = 0;
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const d = await load(pool, tenantId, c.filter);
      times.push(performance.now() - t0);
      runs = d.totals.runs;
    }
    times.sort((a, b) => a - b);
    out.set(c.name, { median: times[Math.floor(RUNS / 2)] ?? 0, runs });
  }
  return out;
}

/** One episode changes (a ledger event names it): the next read rebuilds its hours only. */
async function incremental(pool: pg.Pool, tenantId: string, end: Date): Promise<{ refreshMs: number; readMs: number }> {
  const { rows } = await pool.query<{ id: string }>('SELECT id FROM episodes WHERE tenant_id = $1 ORDER BY started_at DESC LIMIT 1', [tenantId]);
  const id = rows[0]?.id;
  await pool.query(
    `INSERT INTO ledger_events (tenant_id, seq, type, episode_id, payload, prev_hash, hash, created_at)
     SELECT $1, coalesce(max(seq), 0) + 1, 'steps.logged', $2, '{}', '', '', now() FROM ledger_events WHERE tenant_id = $1`,
    [tenantId, id],
  );
  await pool.query(
    `INSERT INTO ledger_heads (tenant_id, seq, hash) SELECT $1, max(seq), '' FROM ledger_events WHERE tenant_id = $1
    ON CONFLICT (tenant_id) DO UPDATE SET seq = excluded.seq`,
    [tenantId],
  );
  let t0 = performance.now();
  const hours = await refreshRollup(pool, tenantId);
  const refreshMs = performance.now() - t0;
  if (!Array.isArray(hours) || hours.length === 0) throw new Error("expected the changed episode's hours to be rebuilt");
  t0 = performance.now();
  await loadDashboard(pool, tenantId, must(cases(end)[0]).filter);
  return { refreshMs, readMs: performance.now() - t0 };
}

async function main() {
  const bench = await openBenchDatabase();
  const pool = bench.db.pool;
  try {
    const end = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    const [{ id: tenantId }] = (await pool.query<{ id: string }>(`INSERT INTO tenants (name) VALUES ('bench') RETURNING id`)).rows as [{ id: string }];
    const [{ id: otherTenant }] = (await pool.query<{ id: string }>(`INSERT INTO tenants (name) VALUES ('other') RETURNING id`)).rows as [{ id: string }];
    for (const name of UNRELATED_INDEXES) await pool.query(`DROP INDEX IF EXISTS ${name}`);
    log(`seeding ${fmt(EPISODES)} episodes over ${DAYS} days (and 10,000 of another tenant)`);
    let t0 = performance.now();
    await seed(pool, tenantId, EPISODES, end);
    await seed(pool, otherTenant, 10_000, end);
    await pool.query('VACUUM ANALYZE');
    log(`seeded in ${fmt((performance.now() - t0) / 1000, 1)} s`);

    t0 = performance.now();
    await refreshRollup(pool, tenantId);
    const buildSeconds = (performance.now() - t0) / 1000;
    await pool.query('VACUUM ANALYZE monitor_hours, monitor_hour_tools, monitor_hour_latencies');
    log(`rollup first build: ${fmt(buildSeconds, 1)} s`);

    const list = cases(end);
    const rollup = await measure(pool, tenantId, list, loadDashboard);
    const raw = await measure(pool, tenantId, list, (p, tenant, f) => rawDashboard(p, tenant, wholeHours(f)));
    const inc = await incremental(pool, tenantId, end);

    log(`\n| Dashboard range (${fmt(EPISODES)} episodes, ${fmt(EPISODES * 3)} steps) | runs in range | raw rows (ms) | rollup (ms) | speed-up |`);
    log('|---|---:|---:|---:|---:|');
    for (const c of list) {
      const a = rollup.get(c.name);
      const b = raw.get(c.name);
      if (!a || !b) continue;
      if (a.runs !== b.runs) throw new Error(`${c.name}: rollup counts ${a.runs} runs, raw rows ${b.runs}`);
      log(`| ${c.name} | ${fmt(a.runs)} | ${fmt(b.median, 1)} | ${fmt(a.median, 1)} | ${fmt(b.median / a.median, 1)}x |`);
    }
    log(
      `\nrollup first build (no state yet): ${fmt(buildSeconds, 1)} s; after one episode changed: refresh ${fmt(inc.refreshMs, 1)} ms, then a 24-hour read ${fmt(inc.readMs, 1)} ms`,
    );
  } finally {
    await bench.close();
  }
}

await main();
