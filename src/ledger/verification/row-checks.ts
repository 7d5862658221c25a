// verifyLedger's checks of the rows events hash (docs/LEDGER.md §7.5): each payload hash that
// names a stored value is compared with that value as stored now. An event fixes the value at its
// time; where later events replace the value (a new critique, a re-scored experience), only the
// latest event of the episode is compared, and only when the verified range reaches the head.
import type pg from 'pg';
import type { CheckpointsRow, EpisodesRow, RetrievalsRow } from '../../db/rows.ts';
import { Params, queryRows } from '../../db/sql.ts';
import { EPISODE_RECORD_COLUMNS, type EpisodeRecordColumns, episodeRecord, isForgottenRecord } from '../format/episode-record.ts';
import { type ForgottenRows, isRowForgotten } from '../format/forgotten.ts';
import { contentHash } from '../format/hash.ts';
import type { Claim, EpisodeClaims, RowClaims } from '../format/row-claims.ts';

export interface RowFailure {
  seq: number;
  reason: string;
}

const CHUNK = 1_000;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

function compare(claim: Claim | undefined, actual: string | null, what: string, failures: RowFailure[]): number {
  if (!claim) return 0;
  if (claim.hash !== actual) failures.push({ seq: claim.seq, reason: `${what} no longer hashes to the value seq ${claim.seq} recorded` });
  return 1;
}

interface Checked {
  checked: number;
  /** Claims an episode.forgotten event names with their hash (§3.4): their values must be gone. */
  forgotten: number;
  failures: RowFailure[];
}

type Query = <T>(query: () => Promise<T>) => Promise<T | null>;

type EpisodeColumns = Pick<
  EpisodesRow,
  'id' | 'input_hash' | 'outcome' | 'critique' | 'reward' | 'reflection' | 'reward_score' | 'context_pack_hash' | 'manifest_hash'
> &
  EpisodeRecordColumns;

/**
 * Served copies (§3.3): reward_score is its claim's `experience.reward` (the hashed reward's
 * normalized), context_pack_hash and manifest_hash are episode.started's `contextPack`; each
 * compared by contentHash at its claim's event, as an offline verifier compares the file's row.
 */
function checkCopies(id: string, c: EpisodeClaims, row: EpisodeColumns | undefined, forgotten: ForgottenRows, failures: RowFailure[]): number {
  const pack = row ? contentHash({ packHash: row.context_pack_hash, manifestHash: row.manifest_hash }) : null;
  let checked = compare(c.contextPack, pack, `episode ${id} context_pack_hash, manifest_hash`, failures);
  // A forgotten reward takes its score with it (storedValue requires the score gone).
  if (c.rewardHash && isRowForgotten(forgotten, { kind: 'episode.reward', id, hash: c.rewardHash.hash })) return checked;
  const score = row?.reward_score == null ? null : contentHash(row.reward_score);
  if (c.rewardHash) checked += compare(c.rewardScore, score, `episode ${id} reward_score`, failures);
  return checked;
}

/** The episodes' claims compared with their rows (one query), by episode. */
async function checkEpisodes(
  pool: pg.Pool,
  tenantId: string,
  ids: string[],
  claimsOf: (id: string) => EpisodeClaims,
  forgotten: ForgottenRows,
): Promise<Map<string, Checked>> {
  const p = new Params();
  const rows = await queryRows<EpisodeColumns>(
    pool,
    `SELECT id, input_hash, outcome, critique, reward, reflection, reward_score, context_pack_hash, manifest_hash, ${EPISODE_RECORD_COLUMNS}
       FROM episodes WHERE tenant_id = ${p.add(tenantId)} AND id = ANY(${p.add(ids)}::uuid[])`,
    p,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return new Map(ids.map((id) => [id, checkEpisode(id, claimsOf(id), byId.get(id), forgotten)]));
}

/** The hashed values of an episode's row, with the claim member and row kind that name each. */
const EPISODE_VALUES = [
  ['recordHash', 'episode.record', 'task, context, goal and metadata'],
  ['outcomeHash', 'episode.outcome', 'outcome'],
  ['critiqueHash', 'episode.critique', 'critique'],
  ['rewardHash', 'episode.reward', 'reward'],
  ['reflectionHash', 'episode.reflection', 'reflection'],
] as const;

/** A value's hash as stored now (null: none stored), and whether anything of a forgotten value is left. */
function storedValue(row: EpisodeColumns, member: (typeof EPISODE_VALUES)[number][0]): { hash: string | null; left: boolean } {
  if (member === 'recordHash') return { hash: contentHash(episodeRecord(row)), left: !isForgottenRecord(row) };
  const value = { outcomeHash: row.outcome, critiqueHash: row.critique, rewardHash: row.reward, reflectionHash: row.reflection }[member];
  const left = value != null || (member === 'rewardHash' && row.reward_score !== null);
  return { hash: value != null ? contentHash(value) : null, left };
}

function checkEpisode(id: string, c: EpisodeClaims, row: EpisodeColumns | undefined, forgotten: ForgottenRows): Checked {
  const failures: RowFailure[] = [];
  let checked = compare(c.inputHash, row?.input_hash ?? null, `episode ${id} input_hash`, failures);
  let gone = 0;
  for (const [member, kind, what] of EPISODE_VALUES) {
    const claim = c[member];
    if (!claim) continue;
    const stored = row ? storedValue(row, member) : { hash: null, left: false };
    if (!isRowForgotten(forgotten, { kind, id, hash: claim.hash })) checked += compare(claim, stored.hash, `episode ${id} ${what}`, failures);
    else if (stored.left) failures.push({ seq: claim.seq, reason: `episode ${id} ${what} was forgotten (§3.4) but the stored row holds a value again` });
    else gone++;
  }
  checked += checkCopies(id, c, row, forgotten, failures);
  return { checked, forgotten: gone, failures: failures.sort((a, b) => a.seq - b.seq) };
}

async function checkStates(pool: pg.Pool, tenantId: string, part: RowClaims['states'], forgotten: ForgottenRows): Promise<Checked> {
  const failures: RowFailure[] = [];
  let checked = 0;
  let gone = 0;
  const p = new Params();
  const sql = `SELECT id, state FROM checkpoints WHERE tenant_id = ${p.add(tenantId)} AND id = ANY(${p.add(part.map((s) => s.id))}::uuid[])`;
  const rows = await queryRows<Pick<CheckpointsRow, 'id' | 'state'>>(pool, sql, p);
  const byId = new Map(rows.map((r) => [r.id, r.state]));
  for (const s of part) {
    if (!isRowForgotten(forgotten, { kind: 'checkpoint.state', id: s.id, hash: s.hash }))
      checked += compare(s, byId.has(s.id) ? contentHash(byId.get(s.id)) : null, `checkpoint ${s.id} state`, failures);
    else if (byId.has(s.id)) failures.push({ seq: s.seq, reason: `checkpoint ${s.id} state was forgotten (§3.4) but its row is stored again` });
    else gone++;
  }
  return { checked, forgotten: gone, failures };
}

async function checkRetrievals(pool: pg.Pool, tenantId: string, part: RowClaims['retrievals']): Promise<Checked> {
  const failures: RowFailure[] = [];
  let checked = 0;
  const p = new Params();
  const rows = await queryRows<Pick<RetrievalsRow, 'id' | 'query_hash' | 'results_hash' | 'episode_ids' | 'warning_ids' | 'pattern_ids'>>(
    pool,
    `SELECT id, query_hash, results_hash, episode_ids::text[] AS episode_ids, warning_ids::text[] AS warning_ids, pattern_ids::text[] AS pattern_ids
       FROM retrievals WHERE tenant_id = ${p.add(tenantId)} AND id = ANY(${p.add(part.map((r) => r.id))}::uuid[])`,
    p,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const r of part) {
    const row = byId.get(r.id);
    checked += compare({ seq: r.seq, hash: r.queryHash }, row?.query_hash ?? null, `retrieval ${r.id} query_hash`, failures);
    const results = row ? contentHash({ episodes: row.episode_ids, warnings: row.warning_ids, patterns: row.pattern_ids }) : null;
    checked += compare({ seq: r.seq, hash: r.resultsHash }, results, `retrieval ${r.id} results`, failures);
    // results_hash is a served copy of the event's resultsHash (§3.3).
    checked += compare({ seq: r.seq, hash: r.resultsHash }, row?.results_hash ?? null, `retrieval ${r.id} results_hash`, failures);
  }
  return { checked, forgotten: 0, failures };
}

const CLAIM_KEYS = ['inputHash', 'recordHash', 'outcomeHash', 'critiqueHash', 'rewardHash', 'reflectionHash', 'rewardScore', 'contextPack'] as const;
const sameClaims = (a: EpisodeClaims, b: EpisodeClaims): boolean => CLAIM_KEYS.every((k) => a[k] === b[k]);
/** The newest episodes a check ahead leaves alone: their events may still be coming. */
const NEWEST_LEFT = 200;

/**
 * Compares the claims a verification collects (row-claims.ts) with the stored rows. Checks ahead
 * (during the walk over the pages, through its one connection) the claims least likely to change:
 * the oldest episodes' and the checkpoint states (each claimed once); retrievals at the end. An
 * episode whose claims changed after its check ahead (a later critique, a re-scored experience) is
 * checked again at the end; only the check of its latest claims counts.
 */
export class RowCheck {
  private readonly ahead = new Map<string, { claims: EpisodeClaims; result: Checked }>();
  private readonly results: Checked[] = [];
  private states = 0;
  private running: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly tenantId: string,
    private readonly claims: RowClaims,
    private readonly query: Query,
    /** The rows the tenant's episode.forgotten events name (read before the walk, as forgotten steps). */
    private readonly forgotten: ForgottenRows,
    /** Episodes per check ahead, and the newest it leaves (smaller in tests). */
    private readonly limits = { chunk: CHUNK, newestLeft: NEWEST_LEFT },
  ) {}

  /** Starts a check ahead of a chunk of claims, unless one is running or too few are waiting. */
  checkAhead(): void {
    if (this.running) return;
    const ids: string[] = [];
    const { chunk, newestLeft } = this.limits;
    const waiting = this.claims.episodes.size - newestLeft;
    let seen = 0;
    for (const id of this.claims.episodes.keys()) {
      if (++seen > waiting || ids.length === chunk) break;
      if (!this.ahead.has(id)) ids.push(id);
    }
    const states = this.claims.states.length - this.states >= chunk;
    if (ids.length < chunk && !states) return;
    this.running = this.checkChunk(ids, states).finally(() => void (this.running = undefined));
    this.running.catch(() => undefined); // an abandoned verification's check may fail unheard; finish() rethrows
  }

  /**
   * The count checked and the failures, lowest seq first, once every claim is checked against the
   * rows as they are now; checkedAhead: the episodes and chunks of states whose check ahead held.
   */
  async finish(): Promise<Checked & { checkedAhead: number }> {
    const f = this.forgotten;
    await this.running;
    const again = [...this.claims.episodes].filter(([id, c]) => !(this.ahead.has(id) && sameClaims(this.ahead.get(id)?.claims ?? {}, c))).map(([id]) => id);
    const parts: Checked[] = [...this.results];
    for (const [id, { claims, result }] of this.ahead) if (sameClaims(claims, this.claims.episodes.get(id) ?? {})) parts.push(result);
    const checkedAhead = parts.length;
    for (const ids of chunks(again))
      parts.push(...(await checkEpisodes(this.pool, this.tenantId, ids, (id) => this.claims.episodes.get(id) ?? {}, f)).values());
    for (const part of chunks(this.claims.states.slice(this.states))) parts.push(await checkStates(this.pool, this.tenantId, part, f));
    for (const part of chunks(this.claims.retrievals)) parts.push(await checkRetrievals(this.pool, this.tenantId, part));
    const failures = parts.flatMap((p) => p.failures).sort((a, b) => a.seq - b.seq);
    const sum = (key: 'checked' | 'forgotten') => parts.reduce((n, p) => n + p[key], 0);
    return { checked: sum('checked'), forgotten: sum('forgotten'), failures, checkedAhead };
  }

  private async checkChunk(ids: string[], states: boolean): Promise<void> {
    if (ids.length >= this.limits.chunk) {
      const snapshot = new Map(ids.map((id) => [id, { ...this.claims.episodes.get(id) }]));
      const results = await this.query(() => checkEpisodes(this.pool, this.tenantId, ids, (id) => snapshot.get(id) ?? {}, this.forgotten));
      if (!results) return;
      for (const [id, result] of results) this.ahead.set(id, { claims: snapshot.get(id) ?? {}, result });
    }
    if (states) {
      const part = this.claims.states.slice(this.states, this.states + this.limits.chunk);
      const result = await this.query(() => checkStates(this.pool, this.tenantId, part, this.forgotten));
      if (!result) return;
      this.results.push(result);
      this.states += part.length;
    }
  }
}
