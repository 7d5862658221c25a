// One click: fetch the episode's proof bundle, verify it in this browser against the ledger's
// public key, and save it as a file (`episodic verify <file>` checks it again offline).
import { useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { Section } from './format.tsx';
import { graphql } from './generated/gql.ts';
import type { ProofQuery } from './generated/graphql.ts';
import { type Bundle, type BundleVerdict, verifyBundle } from './proof.ts';

/** Events newer than the latest signed checkpoint have no proof yet: wait for the next one, a few times. */
const CHECKPOINT_WAITS = 5;
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// Checked against schema.graphql by `npm run codegen` (web/src/generated).
const QUERY = graphql(`
  query Proof($id: ID!) {
    episodeProofBundle(episodeId: $id) {
      __typename
      ... on EpisodeProofBundle { bundle eventCount }
      ... on NotFoundError { message }
      ... on NotCheckpointedError { message retryAfterMs }
    }
    ledgerPublicKey { keyId publicKey }
  }
`);
type Answer = ProofQuery;

function save(bundle: Bundle, episodeId: string): void {
  const url = URL.createObjectURL(new Blob([JSON.stringify(bundle, null, 2)], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `episode-${episodeId}.proof.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function ProofPanel({ api, episodeId }: { api: Api; episodeId: string }) {
  const [verdict, setVerdict] = useState<(BundleVerdict & { keyId: string; events: number }) | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [waiting, setWaiting] = useState(false);
  const fetchBundle = async (): Promise<Answer> => {
    for (let attempt = 0; ; attempt++) {
      const answer = await api.query(QUERY, { id: episodeId });
      const found = answer.episodeProofBundle;
      const wait = found?.__typename === 'NotCheckpointedError' ? found.retryAfterMs : null;
      if (typeof wait !== 'number' || attempt >= CHECKPOINT_WAITS) return answer;
      setWaiting(true);
      await pause(Math.min(10_000, Math.max(100, wait)));
    }
  };
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const { episodeProofBundle: answer, ledgerPublicKey: key } = await fetchBundle();
      if (answer?.__typename !== 'EpisodeProofBundle' || !answer.bundle) throw new Error((answer && 'message' in answer && answer.message) || 'no bundle');
      if (!key?.publicKey) throw new Error('the server publishes no ledger key');
      // The bundle is JSON as the server wrote it: verifyBundle checks every member it reads.
      const bundle = answer.bundle as Bundle;
      setVerdict({ ...verifyBundle(bundle, key.publicKey), keyId: key.keyId ?? '', events: bundle.events.length });
      save(bundle, episodeId);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
      setWaiting(false);
    }
  };
  return (
    <Section title="Proof">
      <button type="button" onClick={() => void run()} disabled={busy}>
        Download proof bundle
      </button>
      {waiting && (
        <p class="muted" role="status">
          Waiting for the next signed checkpoint to cover this episode…
        </p>
      )}
      {error && <p class="alert">{error}</p>}
      {verdict && (
        <div class={`verdict ${verdict.ok ? 'ok' : 'bad'}`} role="status" data-verdict={verdict.ok ? 'verified' : 'failed'}>
          {verdict.ok
            ? `✓ Verified in this browser: ${verdict.eventsChecked} of ${verdict.events} events are in the ledger under a tree head signed by key ${verdict.keyId}.`
            : `✗ The bundle does not verify: ${verdict.problems.join('; ')}`}
        </div>
      )}
    </Section>
  );
}
