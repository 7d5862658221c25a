// The scalars and enums of the API (schema.graphql) as the client sees them: BigInt fields (seq,
// usedTokens, tree sizes) arrive as decimal strings, DateTime as ISO strings.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type BigIntString = string;
export type DateTimeString = string;

export type EpisodeStatus = 'RUNNING' | 'BLOCKED' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'ESCALATED';
export type OutcomeKind = 'SUCCESS' | 'PARTIAL' | 'FAILURE';
export type Complexity = 'SIMPLE' | 'MODERATE' | 'COMPLEX';
export type StepItemStatus = 'ACCEPTED' | 'DUPLICATE' | 'REJECTED';
