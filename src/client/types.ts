// TypeScript shapes of the API (schema.graphql), as the client's documents select them.
// BigInt fields (seq, usedTokens, tree sizes) arrive as decimal strings; ledger events are
// converted to numbers (LedgerEvent) because the hash chain is defined over a numeric seq.
// The shapes are split by kind (scalars, errors, inputs, objects, results); this module is their one entry.

export type * from './types-errors.ts';
export type * from './types-inputs.ts';
export type * from './types-objects.ts';
export type * from './types-results.ts';
export type * from './types-scalars.ts';
