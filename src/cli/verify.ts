// `episodic verify --public-key <hex> <file>`: checks a proof bundle (episodeProofBundle, one JSON
// document) or a ledger export (`episodic export`, JSON lines with a header) with no server.
// The key must come from the caller (docs/LEDGER.md §5.2): a bundle's own publicKey is never trust,
// so without --public-key nothing is called verified.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { fromHex } from '../ledger/format/hash.ts';
import { isAcceptablePublicKey } from '../ledger/format/signed-head.ts';
import { verifyProofBundle } from '../ledger/proofs/bundle.ts';
import { EXPORT_FORMATS, isVerifierState, type VerifierState, verifyExport } from '../ledger/proofs/export-verify.ts';
import { CliError } from './errors.ts';

export const VERIFY_FAILED_EXIT = 3;

const KEY_HELP =
  "pass --public-key <hex>: the key you trust, obtained out of band (the operator, your pinned copy, or ledgerPublicKey over a connection you trust); a bundle's own key proves nothing";

function parse(text: string): unknown {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    return trimmed.split('\n').map((line, i) => {
      try {
        return JSON.parse(line);
      } catch {
        throw new CliError(`line ${i + 1} is not JSON`, 2);
      }
    });
  }
}

function trustedKey(hex: string | undefined): Uint8Array {
  if (!hex) throw new CliError(`refusing to verify without a trusted key: ${KEY_HELP}`, 2);
  let key: Uint8Array;
  try {
    key = fromHex(hex, 32);
  } catch {
    throw new CliError('--public-key must be 64 lowercase hex digits (32 bytes)', 2);
  }
  if (!isAcceptablePublicKey(key)) throw new CliError('--public-key is not an acceptable Ed25519 key (non-canonical or of small order)', 2);
  return key;
}

export interface VerifyResult {
  ok: boolean;
  kind: 'bundle' | 'export';
  /** Bundles: whether the tree head's signature verified with the trusted key (§7.4). */
  signatureValid?: boolean;
  checked: number;
  stepsChecked?: number;
  /** Steps whose content was forgotten: in a bundle, rows a steps.forgotten event vouches for; in an export, the steps its steps.forgotten events name (§3.4). */
  stepsForgotten?: number;
  checkpointsChecked?: number;
  rowsChecked?: number;
  /** Hashed values (an episode's record, outcome, critique, ...) an episode.forgotten event names: deleted, not checked (§3.4). */
  rowsForgotten?: number;
  latestCheckpoint?: { treeSize: number; issuedAt: string } | null;
  /** The state to keep for the next incremental check (exports whose newest root was verified). */
  state?: VerifierState;
  problems: Array<{ seq?: number; stepNumber?: number; problem: string; reason: string }>;
}

/** The kept state, or undefined when the file does not exist yet (the first check is a whole one). */
export async function readVerifierState(path: string): Promise<VerifierState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`--state ${path}: ${(err as Error).message}`, 2);
  }
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    throw new CliError(`--state ${path} is not JSON`, 2);
  }
  if (!isVerifierState(state)) throw new CliError(`--state ${path} is not a verifier state (docs/LEDGER.md §7.3.1)`, 2);
  return state;
}

/** Replaces the state file whole (write, then rename), so a crash never leaves half a state. */
export async function writeVerifierState(path: string, state: VerifierState): Promise<void> {
  const partial = `${path}.partial-${process.pid}`;
  await writeFile(partial, `${JSON.stringify(state, null, 2)}\n`);
  await rename(partial, path);
}

export async function verifyFile(path: string, publicKeyHex?: string, state?: VerifierState): Promise<VerifyResult> {
  const key = trustedKey(publicKeyHex);
  const parsed = parse(await readFile(path, 'utf8'));
  // An export of an empty range is its header alone: one line, one JSON object.
  const data = typeof parsed === 'object' && parsed !== null && EXPORT_FORMATS.includes(String((parsed as { format?: unknown }).format)) ? [parsed] : parsed;
  if (!Array.isArray(data)) {
    const report = verifyProofBundle(data, key);
    return {
      ok: report.ok,
      kind: 'bundle',
      signatureValid: report.signatureValid,
      checked: report.eventsChecked,
      stepsChecked: report.stepsChecked,
      stepsForgotten: report.stepsForgotten,
      rowsChecked: report.rowsChecked,
      rowsForgotten: report.rowsForgotten,
      problems: report.problems,
    };
  }
  const report = verifyExport(data, key, state);
  const problems = report.ok ? [] : [{ seq: report.firstBadSeq, problem: report.problem ?? 'malformed', reason: report.reason ?? '' }];
  return {
    ok: report.ok,
    kind: 'export',
    checked: report.eventsChecked,
    checkpointsChecked: report.checkpointsChecked,
    rowsChecked: report.rowsChecked,
    stepsForgotten: report.stepsForgotten,
    rowsForgotten: report.rowsForgotten,
    latestCheckpoint: report.latestCheckpoint,
    ...(report.state ? { state: report.state } : {}),
    problems,
  };
}
