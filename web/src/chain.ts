// Chain verification in the browser, written from docs/LEDGER.md section 3 alone (as a third
// party would): hash = BLAKE3(utf8("episodic.ledger.v1") || 0x00 || prevHash bytes || JCS(event)),
// prevHash of seq n = hash of seq n - 1. test/web/chain.test.ts pins it to src/ledger/format/hash.ts.
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import canonicalize from 'canonicalize';

/** A ledger event as the API sends it (seq is a decimal string). */
export interface LedgerEvent {
  tenantId: string;
  seq: string;
  type: string;
  episodeId: string | null;
  workItemId: string | null;
  payload: unknown;
  createdAt: string;
  prevHash: string;
  hash: string;
}

export type Verdict = 'verified' | 'hash-mismatch' | 'broken-link';

export const GENESIS_HASH = '0'.repeat(64);
const HASH_HEX = /^[0-9a-f]{64}$/;
const utf8 = new TextEncoder();
const CHAIN_TAG = utf8.encode('episodic.ledger.v1\0');

/** The chain hash of `e` over `prevHash`, or null when prevHash is not 32 bytes of lowercase hex. */
export function chainHash(prevHash: string, e: LedgerEvent): string | null {
  if (!HASH_HEX.test(prevHash)) return null;
  const { tenantId, type, episodeId, workItemId, payload, createdAt } = e;
  const json = canonicalize({ v: 1, tenantId, seq: Number(e.seq), type, episodeId, workItemId, payload, createdAt });
  if (json === undefined) return null;
  const body = utf8.encode(json);
  const input = new Uint8Array(CHAIN_TAG.length + 32 + body.length);
  input.set(CHAIN_TAG);
  input.set(hexToBytes(prevHash), CHAIN_TAG.length);
  input.set(body, CHAIN_TAG.length + 32);
  return bytesToHex(blake3(input));
}

/** True when the event hashes to its own `hash`. */
export const hashMatches = (e: LedgerEvent) => chainHash(e.prevHash, e) === e.hash;

/**
 * Checks a stream in seq order from a trusted anchor (seq 0 with the genesis hash, or an event
 * whose own hash was checked): each event must hash to its `hash` and link to the one before it.
 */
export class ChainVerifier {
  constructor(
    public lastSeq: number,
    private lastHash: string,
  ) {}

  check(e: LedgerEvent): Verdict {
    const linked = Number(e.seq) === this.lastSeq + 1 && e.prevHash === this.lastHash;
    this.lastSeq = Number(e.seq);
    this.lastHash = e.hash;
    if (!hashMatches(e)) return 'hash-mismatch';
    return linked ? 'verified' : 'broken-link';
  }
}
