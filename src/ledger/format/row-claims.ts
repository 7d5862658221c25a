// The claims the ledger's events make about stored rows (docs/LEDGER.md §7.5): per episode the
// latest hash of each value, and every checkpoint state and retrieval hashed. Pure, so the client
// package (verifyProofBundle, through hashed-rows.ts) can use it without the database driver;
// row-checks.ts compares the claims with the rows in PostgreSQL.
import { addForgottenRows, type ForgottenRows } from './forgotten.ts';
import { contentHash, type StoredLedgerEvent } from './hash.ts';

export interface Claim {
  seq: number;
  hash: string;
}

/**
 * rewardScore and contextPack claim stored copies of what an event says (§3.3, served copies): the
 * hash of the claiming event's `experience.reward` and of episode.started's `{packHash, manifestHash}`.
 */
export type EpisodeClaims = Partial<
  Record<'inputHash' | 'recordHash' | 'outcomeHash' | 'critiqueHash' | 'rewardHash' | 'reflectionHash' | 'rewardScore' | 'contextPack', Claim>
>;

const ENDINGS = new Set(['episode.completed', 'episode.failed', 'episode.cancelled', 'episode.escalated']);

/** Events that re-score an ended episode's experience (late telemetry: src/lifecycle/late-telemetry.ts). */
const RESCORINGS = new Set(['critique.recorded', 'patterns.extracted', 'episode.experience_redone']);

type Payload = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Collects, per episode, the latest claim of each hash; checkpoint states and retrievals per row. */
export class RowClaims {
  readonly episodes = new Map<string, EpisodeClaims>();
  readonly states: Array<Claim & { id: string }> = [];
  readonly retrievals: Array<{ seq: number; id: string; queryHash: string; resultsHash: string }> = [];
  /** Rows episode.forgotten events name (§3.4): a claim with exactly the named hash is forgotten, not checked. */
  readonly forgottenRows: ForgottenRows = new Map();

  add(e: StoredLedgerEvent): void {
    addForgottenRows(this.forgottenRows, e);
    const p = (typeof e.payload === 'object' && e.payload !== null ? e.payload : {}) as Payload;
    const episode = e.episodeId ? this.claimsOf(e.episodeId) : undefined;
    const claim = (hash: unknown): Claim | undefined => (typeof hash === 'string' ? { seq: e.seq, hash } : undefined);
    if (e.type === 'episode.started' && episode) episode.inputHash = claim(p.inputHash);
    if (e.type === 'episode.started' && episode) episode.recordHash = claim(p.recordHash);
    if (ENDINGS.has(e.type) && episode && p.outcomeHash !== null) episode.outcomeHash = claim(p.outcomeHash);
    if (e.type === 'critique.recorded' && episode) episode.critiqueHash = claim(p.critiqueHash);
    // Events written before contextPack was a member (null without a pack) claim no copy.
    if (e.type === 'episode.started' && episode && 'contextPack' in p) this.contextPack(episode, e.seq, p.contextPack);
    // Extraction re-scores the experience: its event claims the new hashes (one written before it
    // carried them claims none, and the earlier claims no longer hold).
    if (e.type === 'patterns.extracted' && episode) delete episode.rewardHash, delete episode.reflectionHash, delete episode.rewardScore;
    if (episode && (ENDINGS.has(e.type) || RESCORINGS.has(e.type))) this.experience(episode, e.seq, p.experience);
    if (e.type === 'checkpoint.saved' && str(p.checkpointId) && str(p.stateHash))
      this.states.push({ seq: e.seq, id: p.checkpointId as string, hash: p.stateHash as string });
    if (e.type === 'retrieval.served' && str(p.retrievalId) && str(p.queryHash) && str(p.resultsHash)) {
      this.retrievals.push({ seq: e.seq, id: p.retrievalId as string, queryHash: p.queryHash as string, resultsHash: p.resultsHash as string });
    }
  }

  private claimsOf(episodeId: string): EpisodeClaims {
    const found = this.episodes.get(episodeId);
    if (found) return found;
    const created: EpisodeClaims = {};
    this.episodes.set(episodeId, created);
    return created;
  }

  /** episode.started's context pack: the hashes stored as sent in context_pack_hash and manifest_hash (null without a pack). */
  private contextPack(episode: EpisodeClaims, seq: number, pack: unknown): void {
    episode.contextPack = { seq, hash: contentHash(contextPackCopy(pack)) };
  }

  private experience(episode: EpisodeClaims, seq: number, experience: unknown): void {
    if (typeof experience !== 'object' || experience === null) return;
    const x = experience as Payload;
    if (typeof x.rewardHash === 'string') episode.rewardHash = { seq, hash: x.rewardHash };
    if (typeof x.reflectionHash === 'string') episode.reflectionHash = { seq, hash: x.reflectionHash };
    // reward_score is the reward's normalized, which the event carries as `reward` (a claim without it claims no score).
    if (typeof x.rewardHash === 'string' && typeof x.reward === 'number') episode.rewardScore = { seq, hash: contentHash(x.reward) };
    else if (typeof x.rewardHash === 'string') delete episode.rewardScore;
  }
}

/** The `episode.context_pack` value episode.started claims: its pack's two hashes, null without a pack (§3.3). */
function contextPackCopy(pack: unknown): { packHash: string | null; manifestHash: string | null } {
  const x = (typeof pack === 'object' && pack !== null ? pack : {}) as Payload;
  return { packHash: str(x.packHash) ?? null, manifestHash: str(x.manifestHash) ?? null };
}
