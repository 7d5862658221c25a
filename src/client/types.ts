// TypeScript shapes of the API (schema.graphql), as the client's documents select them.
// BigInt fields (seq, usedTokens, tree sizes) arrive as decimal strings; ledger events are
// converted to numbers (LedgerEvent) because the hash chain is defined over a numeric seq.
// The shapes are split by kind (errors, inputs, objects, results); this module is their one entry.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type BigIntString = string;
export type DateTimeString = string;

export type EpisodeStatus = 'RUNNING' | 'BLOCKED' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'ESCALATED';
export type OutcomeKind = 'SUCCESS' | 'PARTIAL' | 'FAILURE';
export type Complexity = 'SIMPLE' | 'MODERATE' | 'COMPLEX';
export type StepItemStatus = 'ACCEPTED' | 'DUPLICATE' | 'REJECTED';

export type * from './types-errors.ts';
export type * from './types-inputs.ts';
export type * from './types-objects.ts';
export type * from './types-results.ts';

// The compiler checks these shapes against the types generated from schema.graphql.
import type {} from './schema-check.ts';
