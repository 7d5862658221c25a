// The Ed25519 key that signs tree heads: from LEDGER_SIGNING_KEY, or generated once and kept in
// the data folder (readable only by its owner). Several processes must share one key: set it.

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fromHex, toHex } from '../format/hash.ts';
import { generateSigningKey, keyIdOf, publicKeyFromPrivate, type SignedTreeHead, signTreeHead, type TreeHead } from '../format/signed-head.ts';

export interface LedgerSigner {
  keyId: string;
  publicKeyHex: string;
  sign(head: TreeHead): SignedTreeHead;
}

export function signerFromKey(privateKey: Uint8Array): LedgerSigner {
  const publicKey = publicKeyFromPrivate(privateKey);
  return { keyId: keyIdOf(publicKey), publicKeyHex: toHex(publicKey), sign: (head) => signTreeHead(head, privateKey) };
}

export async function loadSigner(configuredHex: string | undefined, dataDir: string): Promise<LedgerSigner> {
  if (configuredHex) return signerFromKey(fromHex(configuredHex, 32));
  const file = join(dataDir, 'ledger-signing-key');
  if (existsSync(file)) return signerFromKey(fromHex((await readFile(file, 'utf8')).trim(), 32));
  const key = generateSigningKey();
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // Written whole under a private name, then linked into place: a process starting at the same time
  // sees either no file or the complete key, never an empty file (link fails if the name exists).
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(temp, `${toHex(key)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temp, file).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  // Another process may have written it first: use whatever is on disk.
  return signerFromKey(fromHex((await readFile(file, 'utf8')).trim(), 32));
}
