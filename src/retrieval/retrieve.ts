// A retrieval: rank (read-only, on the pool), then record its receipt and ledger event (one write).
import type { ContextFacts } from '../learning/facts.ts';
import type { Services } from '../services.ts';
import { rankPatterns, type ScoredPattern } from './pattern-store.ts';
import { recordRetrieval } from './receipts.ts';
import type { RetrievalQuery } from './score.ts';
import { rankEpisodes, type EpisodeRetrievalFilter, type ScoredEpisode } from './store.ts';

export interface EpisodeRetrievalResult {
  retrievalId: string;
  episodes: ScoredEpisode[];
  warnings: ScoredEpisode[];
}

export async function retrieveEpisodes(
  services: Pick<Services, 'db' | 'writer'>,
  tenantId: string,
  request: { query: RetrievalQuery; limit: number; includeFailures: boolean; filter: EpisodeRetrievalFilter },
): Promise<EpisodeRetrievalResult> {
  const now = new Date();
  const common = { tenantId, query: request.query, limit: request.limit, filter: request.filter, now };
  const [episodes, warnings] = await Promise.all([
    rankEpisodes(services.db.pool, { ...common, status: 'completed' }),
    request.includeFailures ? rankEpisodes(services.db.pool, { ...common, status: 'failed' }) : Promise.resolve([]),
  ]);
  const query = {
    task: request.query,
    limit: request.limit,
    includeFailures: request.includeFailures,
    filter: { minReward: request.filter.minReward ?? null, endedAfter: request.filter.endedAfter?.toISOString() ?? null, agent: request.filter.agent ?? null },
  };
  const retrievalId = await services.writer.run(tenantId, (ctx) =>
    recordRetrieval(ctx, { kind: 'episodes', query, episodeIds: episodes.map((e) => e.id), warningIds: warnings.map((e) => e.id) }),
  );
  return { retrievalId, episodes, warnings };
}

export interface PatternRetrievalResult {
  retrievalId: string;
  patterns: ScoredPattern[];
}

export async function retrievePatterns(services: Pick<Services, 'db' | 'writer'>, tenantId: string, context: ContextFacts, limit: number): Promise<PatternRetrievalResult> {
  const patterns = await rankPatterns(services.db.pool, tenantId, context, limit);
  const retrievalId = await services.writer.run(tenantId, (ctx) =>
    recordRetrieval(ctx, { kind: 'patterns', query: { context, limit }, patternIds: patterns.map((p) => p.id) }),
  );
  return { retrievalId, patterns };
}
