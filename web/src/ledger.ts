// The live ledger feed: the last BACKLOG events, then live, over the ledgerEvents subscription
// resumed from the last seq after any reconnect, each event checked by the chain verifier.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { ChainVerifier, GENESIS_HASH, hashMatches, type LedgerEvent, type Verdict } from './chain.ts';
import { graphql } from './generated/gql.ts';
import type { LedgerEventFieldsFragment } from './generated/graphql.ts';

export interface CheckedEvent extends LedgerEvent {
  verdict: Verdict;
}

/** Where verification starts: seq 0 (genesis) or an event whose own hash was checked here. */
export interface Anchor {
  seq: number;
  ok: boolean;
}

const BACKLOG = 50;
const KEEP = 200;
// Checked against schema.graphql by `npm run codegen` (web/src/generated).
graphql(`
  fragment LedgerEventFields on LedgerEvent { tenantId seq type episodeId workItemId payload createdAt prevHash hash }
`);
const HEAD = graphql(`
  query LedgerHead { ledgerHead { seq } }
`);
const EVENT_AT = graphql(`
  query EventAt($after: String) {
    ledgerEvents(after: $after, first: 1) {
      __typename
      ... on LedgerEventConnection { edges { node { ...LedgerEventFields } } }
      ... on InputLimitError { message }
    }
  }
`);
const SUBSCRIBE = graphql(`
  subscription Ledger($afterSeq: BigInt) { ledgerEvents(afterSeq: $afterSeq) { ...LedgerEventFields } }
`);

/** The event as the chain verifier reads it: a member the server left out is empty, so its hash cannot match. */
const toEvent = (e: LedgerEventFieldsFragment): LedgerEvent => ({
  ...e,
  tenantId: e.tenantId ?? '',
  seq: e.seq ?? '0',
  type: e.type ?? '',
  createdAt: e.createdAt ?? '',
  prevHash: e.prevHash ?? '',
  hash: e.hash ?? '',
});

async function anchorAt(api: Api, seq: number): Promise<{ anchor: Anchor; hash: string }> {
  if (seq === 0) return { anchor: { seq, ok: true }, hash: GENESIS_HASH };
  const { ledgerEvents: page } = await api.query(EVENT_AT, { after: String(seq - 1) });
  const node = page?.__typename === 'LedgerEventConnection' ? page.edges?.[0]?.node : null;
  if (!node) throw new Error((page?.__typename === 'InputLimitError' && page.message) || `ledger event ${seq} is missing`);
  const event = toEvent(node);
  return { anchor: { seq, ok: hashMatches(event) }, hash: event.hash };
}

function followLedger(api: Api, onAnchor: (a: Anchor) => void, onEvent: (e: CheckedEvent) => void, onError: (m: string) => void): () => void {
  let stopped = false;
  let unfollow = () => {};
  void (async () => {
    const head = Number((await api.query(HEAD)).ledgerHead?.seq ?? 0);
    const { anchor, hash } = await anchorAt(api, Math.max(0, head - BACKLOG));
    if (stopped) return;
    onAnchor(anchor);
    const verifier = new ChainVerifier(anchor.seq, hash);
    const variables = { afterSeq: String(anchor.seq) };
    unfollow = api.follow(SUBSCRIBE, variables, ({ ledgerEvents: node }) => {
      const event = node && toEvent(node);
      if (!event || Number(event.seq) <= verifier.lastSeq) return; // replayed after a reconnect
      variables.afterSeq = event.seq;
      onEvent({ ...event, verdict: verifier.check(event) });
    });
  })().catch((err: Error) => onError(err.message));
  return () => {
    stopped = true;
    unfollow();
  };
}

/** Newest first, at most KEEP events. */
export function useLedger(api: Api) {
  const [events, setEvents] = useState<CheckedEvent[]>([]);
  const [anchor, setAnchor] = useState<Anchor | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => followLedger(api, setAnchor, (e) => setEvents((list) => [e, ...list].slice(0, KEEP)), setError), [api]);
  return { events, anchor, error };
}
