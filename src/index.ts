// Public entry of the `episodic` package: the typed client, the loops of seeds 000 and 002, and
// the pure stop-condition and ledger verification rules they share with the server.
export * from './client/index.ts';
export { verifyProofBundle } from './ledger/proofs/bundle.ts';
export { type ChainReport, verifyChain } from './ledger/proofs/verify.ts';
export * from './loop/index.ts';
export { canContinue, evaluateStopCondition, isSuccessful, type StopReason, type StopReasonKind } from './stops/stop-reason.ts';
