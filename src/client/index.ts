// The client: `import { createEpisodicClient } from '@episodic/client'` (packages/client, built from
// src/index.ts by scripts/build-client.mjs).

export { type BatchedLogSteps, chunk, type LogStepsOptions, MAX_BATCH } from './batch.ts';
export { createEpisodicClient, type EpisodicClient, type EpisodicClientOptions } from './client.ts';
export { EpisodicError, type EpisodicErrorKind, type ErrorResult, type GraphQLErrorItem, isErrorResult, type SuccessResult, unwrap } from './errors.ts';
export { type RawLedgerEvent, toLedgerEvent } from './events.ts';
export type { LedgerSubscription, SubscribeLedgerOptions } from './ledger-stream.ts';
export { LedgerStreamVerifier, type StreamCheck, type StreamVerifierOptions } from './stream-verifier.ts';
export type { FetchLike } from './transport.ts';
export * from './types.ts';
export type { StepsLogged, Watch } from './watch.ts';

// The compiler checks the shapes above against the types generated from schema.graphql.
import type {} from './schema-check.ts';
