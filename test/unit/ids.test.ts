import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalId, isUuid, sameId } from '../../src/core/ids.ts';
import { sourceFiles } from '../support/source-files.ts';

const SRC = resolve(import.meta.dirname, '../../src');

/** `.toLowerCase()` on something named an id: `id`, `ids`, `episodeId`, `String(retrievalId)`, `e.workItemId?`. */
const LOWERED_ID = /\b(?:\w*Ids?|ids?|uuids?)\)?\??\.toLowerCase\(\)/g;
/** An id argument made a string by hand (`String(args.episodeId)`, `String(id)`), the line it is on. */
const STRINGED_ID = /^.*\bString\((?:args\.)?(?:id|\w*Id)\).*$/gm;
/** Where String() of an id is fine: the check that it is a UUID at all, and the not-found error naming it as asked. */
const NAMES_OR_CHECKS = /isUuid\(String\(|NotFound/;

/** Every match of pattern in src/ outside src/core/ids.ts, as "file: text". */
function matchesInSrc(pattern: RegExp): string[] {
  return sourceFiles(SRC)
    .filter((file) => relative(SRC, file) !== 'core/ids.ts')
    .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(pattern)].map((m) => `${relative(SRC, file)}: ${m[0].trim()}`));
}

const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('ids', () => {
  it('reads a UUID in any letter case, and nothing else', () => {
    expect(isUuid(ID.toUpperCase())).toBe(true);
    expect(isUuid(`${ID}0`)).toBe(false);
    expect(isUuid(42)).toBe(false);
  });

  it('spells a UUID as PostgreSQL prints it, and leaves anything else as given', () => {
    expect(canonicalId(ID.toUpperCase())).toBe(ID);
    expect(canonicalId('Not-A-UUID')).toBe('Not-A-UUID');
    expect(canonicalId(7)).toBe('7');
  });

  it('matches two spellings of one UUID, and not two UUIDs', () => {
    expect(sameId(ID, ID.toUpperCase())).toBe(true);
    expect(sameId(ID, ID.replace('0f8f', '0f8e'))).toBe(false);
  });

  // One spelling of an id everywhere (hashes, payloads, comparisons) needs one place that decides it.
  it('is lower-cased by canonicalId alone: no module of src/ lower-cases an id by hand', () => {
    expect(matchesInSrc(LOWERED_ID)).toEqual([]);
  });

  // A resolver that reads an ID argument with String() keeps the caller's letter case, and a JS
  // comparison with a stored id (a Map of locked rows, a live filter) then misses.
  it('reaches the resolvers through canonicalId: String() of an id only checks it or names it in a not-found error', () => {
    expect(matchesInSrc(STRINGED_ID).filter((line) => !NAMES_OR_CHECKS.test(line))).toEqual([]);
  });
});
