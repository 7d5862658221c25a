// Public entry of the `episodic` package: the typed client, the loops of seeds 000 and 002, and
// the pure stop-condition and ledger verification rules they share with the server.
export * from './client/index.ts';
export * from './loop/index.ts';
export { isSuccessful, canContinue, evaluateStopCondition, type StopReason, type StopReasonKind } from './episodes/stop-reason.ts';
export { verifyChain, type ChainReport } from './ledger/verify.ts';
export { verifyProofBundle } from './ledger/bundle.ts';
