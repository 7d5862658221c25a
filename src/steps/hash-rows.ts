// What a hashing thread does: BLAKE3 of canonical JSON texts. The texts are made on the calling
// thread: strings cross to a thread far cheaper than the step objects would.
import { canonicalTextHash } from '../ledger/hash.ts';

export function hashCanonicalTexts(texts: string[]): string[] {
  return texts.map(canonicalTextHash);
}
