// Loads generated episodes and their steps straight into PostgreSQL with parameterised UNNEST
// inserts (DESIGN.md: the fast multi-row path without COPY streams). The retrieval indexes are
// dropped for the load and rebuilt afterwards, as a bulk import would do; their build times are
// reported.
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { GeneratedEpisode } from './retrieval-data.ts';

export const RETRIEVAL_INDEXES = [
  'episodes_task_document_idx',
  'episodes_task_description_trgm_idx',
  'episodes_tags_idx',
  'episodes_tenant_id_status_domain_reward_score_idx',
  'episodes_tenant_id_status_language_reward_score_idx',
];

export async function dropRetrievalIndexes(pool: pg.Pool): Promise<Array<{ name: string; definition: string }>> {
  const { rows } = await pool.query<{ name: string; definition: string }>(
    'SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE indexname = ANY($1::text[])',
    [RETRIEVAL_INDEXES],
  );
  if (rows.length !== RETRIEVAL_INDEXES.length) throw new Error(`expected ${RETRIEVAL_INDEXES.length} retrieval indexes, found ${rows.length}`);
  for (const r of rows) await pool.query(`DROP INDEX "${r.name}"`);
  return rows;
}

export async function rebuildIndexes(pool: pg.Pool, defs: Array<{ name: string; definition: string }>): Promise<Array<{ name: string; seconds: number }>> {
  const client = await pool.connect();
  try {
    await client.query(`SET maintenance_work_mem = '1GB'`);
    const times: Array<{ name: string; seconds: number }> = [];
    for (const d of defs) {
      const t0 = performance.now();
      await client.query(d.definition);
      times.push({ name: d.name, seconds: (performance.now() - t0) / 1000 });
    }
    await client.query('ANALYZE episodes');
    await client.query('ANALYZE steps');
    return times;
  } finally {
    client.release();
  }
}

const tagLiteral = (tags: readonly string[]) => `{${tags.map((t) => `"${t.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;

export async function insertEpisodes(pool: pg.Pool, tenantId: string, episodes: readonly GeneratedEpisode[]): Promise<void> {
  const col = <T>(f: (e: GeneratedEpisode) => T) => episodes.map(f);
  await pool.query(
    `INSERT INTO episodes (id, tenant_id, task_description, task_type, language, framework, complexity, domain, tags, status, outcome, outcome_kind,
       stop_reason, critique, reward, reward_score, reflection, learning_state, step_count, used_tokens, used_tool_calls, started_at, ended_at, updated_at)
     SELECT u.id, $1, u.description, u.task_type, u.language, u.framework, u.complexity, u.domain, u.tags::text[], u.status, u.outcome, u.outcome_kind,
            u.stop_reason, u.critique, u.reward, u.reward_score, u.reflection, 'done', u.step_count, u.used_tokens, u.step_count, u.started_at, u.ended_at, u.ended_at
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::jsonb[], $12::text[],
                   $13::jsonb[], $14::jsonb[], $15::jsonb[], $16::float8[], $17::jsonb[], $18::int[], $19::int8[], $20::timestamptz[], $21::timestamptz[])
         AS u(id, description, task_type, language, framework, complexity, domain, tags, status, outcome, outcome_kind,
              stop_reason, critique, reward, reward_score, reflection, step_count, used_tokens, started_at, ended_at)`,
    [
      tenantId,
      col((e) => e.id),
      col((e) => e.description),
      col((e) => e.taskType),
      col((e) => e.context.language),
      col((e) => e.context.framework),
      col((e) => e.complexity),
      col((e) => e.context.domain),
      col((e) => tagLiteral(e.context.tags)),
      col((e) => e.status),
      col((e) => JSON.stringify(e.outcome)),
      col((e) => e.outcome.kind),
      col((e) => JSON.stringify(e.status === 'failed' ? { kind: 'failed', reason: 'gave up' } : { kind: 'completed' })),
      col((e) => (e.critique ? JSON.stringify(e.critique) : null)),
      col((e) => JSON.stringify(e.reward)),
      col((e) => e.reward.normalized),
      col((e) => JSON.stringify(e.reflection)),
      col((e) => e.steps.length),
      col((e) => e.steps.reduce((sum, s) => sum + (s.tokens ?? 0), 0)),
      col((e) => e.startedAt),
      col((e) => e.endedAt),
    ],
  );
  const steps = episodes.flatMap((e) => e.steps.map((s) => ({ episodeId: e.id, s })));
  await pool.query(
    `INSERT INTO steps (tenant_id, episode_id, step_number, kind, tool, action, result_kind, result, latency_ms, tokens, content_hash, size_bytes)
     SELECT $1, u.episode_id, u.n, 'tool_call', u.tool, 'run', u.result_kind, u.result, u.latency_ms, u.tokens, 'bench', 200
       FROM unnest($2::uuid[], $3::int[], $4::text[], $5::text[], $6::jsonb[], $7::int[], $8::int[])
         AS u(episode_id, n, tool, result_kind, result, latency_ms, tokens)`,
    [
      tenantId,
      steps.map((x) => x.episodeId),
      steps.map((x) => x.s.stepNumber),
      steps.map((x) => x.s.tool),
      steps.map((x) => x.s.resultKind),
      steps.map((x) => JSON.stringify(x.s.resultKind === 'success' ? { output: 'ok' } : { message: 'failed', errorClass: x.s.errorClass })),
      steps.map((x) => x.s.latencyMs),
      steps.map((x) => x.s.tokens),
    ],
  );
}
