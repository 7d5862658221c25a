// `episodic verify <file>`: checks a proof bundle or an exported range with no server.
// A bundle is the JSON of episodeProofBundle; a range is a JSON array of ledger events, an object
// {events: [...]}, or JSON lines (one event per line, as `ledgerEvents` nodes).
import { readFile } from 'node:fs/promises';
import { fromHex, type StoredLedgerEvent } from '../ledger/hash.ts';
import { verifyChain, verifyProofBundle, type ProofBundle } from '../ledger/verify.ts';
import { toLedgerEvent } from '../client/events.ts';
import { CliError } from './errors.ts';

export const VERIFY_FAILED_EXIT = 3;

function parse(text: string): unknown {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    return trimmed.split('\n').filter(Boolean).map((line, i) => {
      try {
        return JSON.parse(line);
      } catch {
        throw new CliError(`line ${i + 1} is not JSON`, 2);
      }
    });
  }
}

export interface VerifyResult {
  ok: boolean;
  kind: 'bundle' | 'range';
  checked: number;
  problems: Array<{ seq?: number; problem: string; reason: string }>;
  warning?: string;
}

export async function verifyFile(path: string, publicKeyHex?: string): Promise<VerifyResult> {
  const data = parse(await readFile(path, 'utf8')) as any;
  if (data && typeof data === 'object' && !Array.isArray(data) && data.treeHead && data.proofs) {
    const bundle: ProofBundle = { ...data, events: data.events.map(toLedgerEvent) };
    const key = publicKeyHex ?? data.publicKey;
    if (!key) throw new CliError('the bundle names no public key: pass --public-key <hex> (from the ledgerPublicKey query)', 2);
    const report = verifyProofBundle(bundle, fromHex(key, 32));
    return {
      ok: report.ok,
      kind: 'bundle',
      checked: report.eventsChecked,
      problems: report.problems.map((p) => ({ seq: p.seq, problem: p.problem, reason: p.reason })),
      warning: publicKeyHex ? undefined : 'signature checked against the key inside the bundle; pass --public-key to check it against a key you trust',
    };
  }
  const events: StoredLedgerEvent[] = (Array.isArray(data) ? data : data?.events ?? []).map((e: any) => toLedgerEvent(e.node ?? e));
  if (!events.length) throw new CliError('no events found in the file', 2);
  const report = verifyChain(events, {});
  return {
    ok: report.ok,
    kind: 'range',
    checked: report.checked,
    problems: report.ok ? [] : [{ seq: report.firstBadSeq, problem: report.problem ?? 'unknown', reason: report.reason ?? '' }],
  };
}
