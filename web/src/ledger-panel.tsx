// The live ledger stream, newest first, each event with the verdict of its chain check.
import type { Verdict } from './chain.ts';
import { shortId } from './format.tsx';
import type { Anchor, CheckedEvent } from './ledger.ts';

const BADGES: Record<Verdict, string> = { verified: '✓ verified', 'hash-mismatch': '✗ hash mismatch', 'broken-link': '✗ broken link' };

export function LedgerPanel({ events, anchor, error }: { events: CheckedEvent[]; anchor: Anchor | null; error: string | null }) {
  return (
    <aside class="ledger">
      <h2>Ledger</h2>
      {error && <p class="alert">{error}</p>}
      {anchor && (
        <p class={anchor.ok ? 'muted' : 'alert'}>
          {anchor.seq === 0
            ? 'Chain checked in this browser from the genesis.'
            : anchor.ok
              ? `Chain checked in this browser from seq ${anchor.seq}.`
              : `Anchor event ${anchor.seq} fails its own hash.`}
        </p>
      )}
      <ol>
        {events.map((e) => (
          <li key={e.seq} data-seq={e.seq} title={`hash ${e.hash}\nprev ${e.prevHash}`}>
            <span class="num">{e.seq}</span>
            <span class="type">{e.type}</span>
            {e.episodeId ? <a href={`#/episodes/${e.episodeId}`}>{shortId(e.episodeId)}</a> : <span />}
            <span class={`badge ${e.verdict}`} data-verdict={e.verdict}>
              {BADGES[e.verdict]}
            </span>
            <code>{e.hash.slice(0, 8)}</code>
          </li>
        ))}
      </ol>
      {!events.length && <p class="muted">Waiting for events…</p>}
    </aside>
  );
}
