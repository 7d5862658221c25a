// extractEpisodePatterns on demand (for an ended episode whose queued extraction was skipped): the
// episode must be the tenant's and ended, checked in the extraction's own transaction.
import { InputLimitError, NotFoundError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { Params, queryRows } from '../db/sql.ts';
import type { Writer } from '../write.ts';
import { type ExtractionReport, extractEpisodePatterns } from './extract.ts';

/** The report, or null when extraction already ran for this episode. */
export async function extractPatternsNow(writer: Writer, tenantId: string, episodeId: string): Promise<ExtractionReport | null> {
  if (!isUuid(episodeId)) throw new NotFoundError('Episode', episodeId);
  return writer.run(tenantId, async (w) => {
    const p = new Params();
    const sql = `SELECT outcome IS NOT NULL AS ended FROM episodes WHERE tenant_id = ${p.add(w.tenantId)} AND id = ${p.add(episodeId)}`;
    const [row] = await queryRows<{ ended: boolean }>(w.client, sql, p);
    if (!row) throw new NotFoundError('Episode', episodeId);
    if (!row.ended) {
      const message = 'the episode has no outcome yet; patterns are extracted from ended episodes';
      throw new InputLimitError([{ field: 'episodeId', limit: 'an ended episode with an outcome', actual: null, message }]);
    }
    return extractEpisodePatterns(w, episodeId, 'sync');
  });
}
