export * from './agent-loop.ts';
export * from './episode-loop.ts';
export { nextEpisodeNumber } from './lease.ts';
export * from './outcome.ts';
export * from './trace.ts';
