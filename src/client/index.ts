// The client: `import { createEpisodicClient } from '@episodic/client'` (packages/client, built from
// src/index.ts by scripts/build-client.mjs).
export { createEpisodicClient, type EpisodicClient, type EpisodicClientOptions } from './client.ts';
export { EpisodicError, isErrorResult, unwrap, type EpisodicErrorKind, type ErrorResult, type SuccessResult, type GraphQLErrorItem } from './errors.ts';
export { MAX_BATCH, chunk, type BatchedLogSteps, type LogStepsOptions } from './batch.ts';
export { LedgerStreamVerifier, type StreamCheck, type StreamVerifierOptions } from './stream-verifier.ts';
export { toLedgerEvent, type RawLedgerEvent } from './events.ts';
export type { LedgerSubscription, SubscribeLedgerOptions } from './ledger-stream.ts';
export type { FetchLike } from './transport.ts';
export type { StepsLogged, Watch } from './watch.ts';
export * from './types.ts';
