// relevantEpisodes latency at scale, on episodes bootstrapped from the development set (issue 15).
// Each synthetic episode copies a real pool run: its real task description (stored), and the terms
// of its description and of what it did (its steps' commands, errors, tools and final patch, as the
// importer journals them) with their real frequencies, so document lengths and common words follow
// the real distribution. Identifiers seen in at most RARE_DF runs of the set are renamed, with
// probability RENAME_SHARE, to one of a growing, skewed set of variants, so rare terms stay rare as
// the corpus grows instead of every copy sharing them. Episode rows are inserted, and their index
// postings written with the same BM25 impacts the product writes at completion (term-index.ts);
// step rows are not inserted: the query never reads the steps table, only the postings built from
// the steps. The queries are the real held-out task texts, text only and text + context.
// Run: npm run bench:memory-scale -- 100000   (BENCH_DATABASE_URL to use a server)
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { BM25 } from '../src/retrieval/bm25.ts';
import { rankEpisodes } from '../src/retrieval/store.ts';
import { documentLength, type TermCounts, taskTerms, workTerms } from '../src/retrieval/terms.ts';
import { type DevRun, loadDevRuns } from './memory-data.ts';
import { seededRandom, splitByRepository } from './memory-split.ts';
import { fmt, openBenchDatabase, percentile, startBenchServer } from './support.ts';

const N = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 100_000);
const CHUNK = 1000;
const RARE_DF = 3;
const RENAME_SHARE = 0.9;

interface Base {
  run: DevRun;
  fields: [TermCounts, TermCounts];
}

/** The work field as the importer journals a run: one step per command, the patch as the submit step's output. */
function workOf(run: DevRun): TermCounts {
  return workTerms({
    artifacts: run.files,
    failure: run.resolved ? null : 'not resolved',
    steps: run.steps.map((s, i) => {
      const submit = i === run.steps.length - 1 && s.command.includes('SUBMIT');
      const ok = submit || s.returnCode === 0 || s.returnCode === null;
      return {
        tool: submit ? 'submit' : (/^[A-Za-z0-9_.-]+/.exec(s.command)?.[0] ?? 'run'),
        action: null,
        parameters: JSON.stringify({ command: s.command }),
        errorClass: ok ? null : `exit ${s.returnCode}`,
        errorMessage: ok ? null : s.output,
        output: submit ? run.patch : ok ? s.output : null,
      };
    }),
  });
}

function documentFrequencies(bases: Base[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const b of bases) for (const term of new Set([...b.fields[0].keys(), ...b.fields[1].keys()])) df.set(term, (df.get(term) ?? 0) + 1);
  return df;
}

/** A copy of a base document with its rare terms renamed to skewed variants (the same variant in both fields). */
function bootstrap(base: Base, rare: Set<string>, random: () => number, variants: number): [TermCounts, TermCounts] {
  const renamed = new Map<string, string>();
  const name = (term: string) => {
    if (!rare.has(term)) return term;
    let out = renamed.get(term);
    if (out === undefined) {
      out = random() < RENAME_SHARE ? `${term}v${Math.floor(variants * random() ** 2)}` : term;
      renamed.set(term, out);
    }
    return out;
  };
  return base.fields.map((counts) => {
    const copy: TermCounts = new Map();
    for (const [term, tf] of counts) copy.set(name(term), (copy.get(name(term)) ?? 0) + tf);
    return copy;
  }) as [TermCounts, TermCounts];
}

async function dropTermIndexes(pool: pg.Pool) {
  await pool.query(
    'ALTER TABLE episode_terms DROP CONSTRAINT episode_terms_pkey, DROP CONSTRAINT episode_terms_episode_id_fkey, DROP CONSTRAINT episode_terms_tenant_id_fkey',
  );
  await pool.query('DROP INDEX episode_terms_tenant_id_field_term_impact_episode_id_idx');
}

async function createTermIndexes(pool: pg.Pool): Promise<number> {
  const t0 = performance.now();
  const client = await pool.connect();
  try {
    await client.query(`SET maintenance_work_mem = '1GB'`);
    await client.query('ALTER TABLE episode_terms ADD CONSTRAINT episode_terms_pkey PRIMARY KEY (episode_id, field, term)');
    await client.query(
      'CREATE INDEX episode_terms_tenant_id_field_term_impact_episode_id_idx ON episode_terms (tenant_id, field, term, impact DESC, episode_id)',
    );
    await client.query(
      'ALTER TABLE episode_terms ADD CONSTRAINT episode_terms_episode_id_fkey FOREIGN KEY (episode_id) REFERENCES episodes(id) ON DELETE CASCADE ON UPDATE CASCADE',
    );
    await client.query(
      'ALTER TABLE episode_terms ADD CONSTRAINT episode_terms_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE ON UPDATE CASCADE',
    );
    // What autovacuum does after inserts (the migration tunes it for this table): the visibility
    // map lets the postings query run index-only; the statistics give the planner its estimates.
    for (const table of ['episode_terms', 'episode_term_df', 'episode_term_totals', 'episodes']) await client.query(`VACUUM ANALYZE ${table}`);
  } finally {
    client.release();
  }
  return (performance.now() - t0) / 1000;
}

async function load(pool: pg.Pool, tenantId: string, bases: Base[]) {
  const df = documentFrequencies(bases);
  const rare = new Set([...df].filter(([, n]) => n <= RARE_DF).map(([term]) => term));
  const random = seededRandom(15);
  const average = [0, 1].map((f) => bases.reduce((sum, b) => sum + documentLength(b.fields[f] ?? new Map()), 0) / bases.length);
  const frequencies = [new Map<string, number>(), new Map<string, number>()];
  const lengths = [0, 0];
  const variants = Math.max(10, Math.round(N / 20));
  let postings = 0;
  for (let start = 0; start < N; start += CHUNK) {
    const episodes: Array<{ id: string; base: Base }> = [];
    const cols = { episode: [] as string[], field: [] as number[], term: [] as string[], impact: [] as number[] };
    for (let i = start; i < Math.min(N, start + CHUNK); i++) {
      const base = bases[Math.floor(random() * bases.length)] as Base;
      const id = randomUUID();
      episodes.push({ id, base });
      bootstrap(base, rare, random, variants).forEach((counts, field) => {
        const length = documentLength(counts);
        lengths[field] = (lengths[field] ?? 0) + length;
        for (const [term, tf] of counts) {
          cols.episode.push(id);
          cols.field.push(field);
          cols.term.push(term);
          cols.impact.push(BM25.impact(tf, length, average[field] ?? length, field));
          frequencies[field]?.set(term, (frequencies[field]?.get(term) ?? 0) + 1);
        }
      });
    }
    await pool.query(
      `INSERT INTO episodes (id, tenant_id, task_description, task_type, domain, language, status, agent, outcome_kind, outcome, reward_score, ended_at, step_count)
       SELECT id, $1, d, 'code_change', dom, 'python', st, 'mini-swe-agent', ok, o::jsonb, rw, now() - interval '1 day', sc
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::float8[], $9::int[]) AS t(id, d, dom, st, ok, o, rw, sc)`,
      [
        tenantId,
        episodes.map((e) => e.id),
        episodes.map((e) => e.base.run.description.replace(/\u0000/g, '')),
        episodes.map((e) => e.base.run.repository),
        episodes.map((e) => (e.base.run.resolved ? 'completed' : 'failed')),
        episodes.map((e) => (e.base.run.resolved ? 'success' : 'failure')),
        episodes.map((e) =>
          JSON.stringify(
            e.base.run.resolved ? { kind: 'success', verdict: 'resolved', artifacts: e.base.run.files } : { kind: 'failure', reason: 'not resolved' },
          ),
        ),
        episodes.map((e) => (e.base.run.resolved ? 0.8 : 0.1)),
        episodes.map((e) => e.base.run.steps.length),
      ],
    );
    await pool.query(
      `INSERT INTO episode_terms (tenant_id, episode_id, field, term, impact) SELECT $1, * FROM unnest($2::uuid[], $3::int[], $4::text[], $5::float8[])`,
      [tenantId, cols.episode, cols.field, cols.term, cols.impact],
    );
    postings += cols.term.length;
    if ((start + CHUNK) % 10_000 === 0) console.error(`loaded ${fmt(start + CHUNK)} episodes, ${fmt(postings)} postings`);
  }
  for (const [field, map] of frequencies.entries()) {
    const entries = [...map];
    for (let i = 0; i < entries.length; i += 100_000) {
      const part = entries.slice(i, i + 100_000);
      await pool.query(`INSERT INTO episode_term_df (tenant_id, field, term, df) SELECT $1, $2, * FROM unnest($3::text[], $4::int[])`, [
        tenantId,
        field,
        part.map((e) => e[0]),
        part.map((e) => e[1]),
      ]);
    }
    await pool.query('INSERT INTO episode_term_totals (tenant_id, field, documents, length) VALUES ($1, $2, $3, $4)', [tenantId, field, N, lengths[field]]);
  }
  return postings;
}

/** Prints the plan of the first held-out query's ranking statement (--explain). */
async function explainOne(pool: pg.Pool, tenantId: string, q: DevRun | undefined) {
  if (!q) return;
  const query = pool.query.bind(pool) as (sql: string, values?: unknown[]) => Promise<pg.QueryResult>;
  const spy = Object.assign(Object.create(pool) as pg.Pool, {
    query: async (sql: string, values?: unknown[]) => {
      if (sql.trimStart().startsWith('WITH')) {
        const plan = await query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, values);
        console.log(plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
      }
      return query(sql, values);
    },
  });
  await rankEpisodes(spy, {
    tenantId,
    query: { description: q.description.slice(0, 10_000), taskType: null, context: { domain: null, language: null, framework: null, tags: [] } },
    statuses: ['completed', 'failed'],
    limit: 5,
    now: new Date(),
  });
}

async function main() {
  const runs = loadDevRuns();
  const { pool: devPool, heldOut } = splitByRepository(runs);
  const bases: Base[] = devPool.map((run) => ({ run, fields: [taskTerms(run.description), workOf(run)] }));
  const database = await openBenchDatabase();
  const server = await startBenchServer(database.url);
  const pool = database.db.pool;
  try {
    await dropTermIndexes(pool);
    const t0 = performance.now();
    const postings = await load(pool, server.tenantId, bases);
    const loadSeconds = (performance.now() - t0) / 1000;
    const indexSeconds = await createTermIndexes(pool);
    const { rows: size } = await pool.query(
      `SELECT pg_size_pretty(pg_total_relation_size('episode_terms')) AS terms, pg_size_pretty(pg_total_relation_size('episodes')) AS episodes`,
    );
    console.log(`# relevantEpisodes at ${fmt(N)} episodes bootstrapped from ${bases.length} real runs\n`);
    console.log(
      `${fmt(postings)} postings (${size[0].terms} with indexes; episodes ${size[0].episodes}); loaded in ${fmt(loadSeconds, 0)} s, indexed and vacuumed in ${fmt(indexSeconds, 0)} s.\n`,
    );
    if (process.argv.includes('--explain')) await explainOne(pool, server.tenantId, heldOut[0]);
    console.log('| query | p50 ms | p95 ms | p99 ms | queries | candidates (mean) |\n|---|---|---|---|---|---|');
    for (const mode of ['text', 'context'] as const) {
      const ms: number[] = [];
      const candidates: number[] = [];
      for (const pass of [0, 1, 2]) {
        for (const q of heldOut) {
          const stats = { candidates: 0, fallback: false };
          const context =
            mode === 'context'
              ? { domain: q.repository, language: q.language, framework: null, tags: [] }
              : { domain: null, language: null, framework: null, tags: [] };
          const started = performance.now();
          await rankEpisodes(pool, {
            tenantId: server.tenantId,
            query: { description: q.description.slice(0, 10_000), taskType: null, context },
            statuses: ['completed', 'failed'],
            limit: 5,
            now: new Date(),
            stats,
          });
          if (pass > 0) {
            ms.push(performance.now() - started);
            candidates.push(stats.candidates);
          }
        }
      }
      ms.sort((a, b) => a - b);
      console.log(
        `| ${mode === 'text' ? 'task text' : 'text + context'} | ${fmt(percentile(ms, 50), 1)} | ${fmt(percentile(ms, 95), 1)} | ${fmt(percentile(ms, 99), 1)} | ${ms.length} | ${fmt(candidates.reduce((a, b) => a + b, 0) / candidates.length, 0)} |`,
      );
    }
  } finally {
    await server.stop();
    await database.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
