// The byte budget's pure parts: charging stored sizes, and finding the blobs a document names.
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { blobHashesIn } from '../../src/http/response-budget.ts';
import { ResponseBudget, ResponseBudgetError } from '../../src/steps/read-budget.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('ResponseBudget', () => {
  it('grants reads up to the limit and refuses the one that would pass it, granting nothing of it', () => {
    const budget = new ResponseBudget(100);
    budget.charge(60, 'first');
    budget.charge(40, 'second');
    expect(() => budget.charge(1, 'third')).toThrow(ResponseBudgetError);
    expect(budget.used).toBe(100);
  });

  it('names the budget, the limit and the size refused', () => {
    const budget = new ResponseBudget(10);
    budget.charge(4, 'x');
    const err = (() => {
      try {
        budget.charge(7, 'Blob h');
      } catch (e) {
        return e as ResponseBudgetError;
      }
    })();
    expect(err).toMatchObject({ limit: 10, requested: 7, spent: 4 });
    expect(err?.message).toMatch(/^Blob h holds 7 bytes.*MAX_RESPONSE_BYTES \(10 bytes per request\)/);
  });
});

describe('blobHashesIn', () => {
  it('finds every alias, literal or variable, and skips what is not a hash', () => {
    const doc =
      parse(`query($h: String!, $bad: String!) { x: blob(hash: "${A}") { __typename } y: blob(hash: $h) { __typename } z: blob(hash: $bad) { __typename } w: blob(hash: "nope") { __typename } ...F }
      fragment F on Query { v: blob(hash: "${A}") { __typename } }`);
    expect(blobHashesIn(doc, { h: B, bad: 42 })).toEqual([A, B, A]);
  });

  it('finds nothing in a document without blob fields', () => {
    expect(blobHashesIn(parse('{ viewer { id } }'), {})).toEqual([]);
  });
});
