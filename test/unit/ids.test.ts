import { describe, expect, it } from 'vitest';
import { canonicalId, isUuid, sameId } from '../../src/core/ids.ts';

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
});
