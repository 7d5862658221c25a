/**
 * The repository a task without context is most likely about, from its best candidates. Pure.
 *
 * A task given only as text names no domain, so the learned model's sameRepository feature was 0
 * for every candidate and a run of another repository with a long trace could reach the top 5 of
 * many tasks (the text mode's hubs). The best VOTERS candidates by the fixed formula vote for their
 * domain with their total; a domain that holds more than MAJORITY of the votes is taken as the
 * task's (pseudo-relevance feedback on the repository, as fileVote is on files); a split vote
 * infers nothing. A domain the task gives is always used as it is.
 */
import { compareText } from '../learning/facts.ts';

export const DOMAIN_VOTE = {
  voters: 10,
  /** Share of the voters' total a domain must exceed to be inferred. */
  majority: 0.5,
} as const;

export interface DomainVoter {
  domain: string | null;
  /** The candidate's fixed-formula total. */
  total: number;
  /** Breaks equal totals by the run's content (never its position): the same voters in any order. */
  key: string;
}

export function inferredDomain(given: string | null, candidates: readonly DomainVoter[]): string | null {
  if (given !== null) return given;
  const voters = [...candidates].sort((a, b) => b.total - a.total || compareText(a.key, b.key)).slice(0, DOMAIN_VOTE.voters);
  const votes = new Map<string, number>();
  let sum = 0;
  for (const v of voters) {
    const weight = Math.max(0, v.total);
    sum += weight;
    if (v.domain !== null) votes.set(v.domain, (votes.get(v.domain) ?? 0) + weight);
  }
  const [domain, vote] = [...votes].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))[0] ?? [null, 0];
  return sum > 0 && vote > DOMAIN_VOTE.majority * sum ? domain : null;
}
