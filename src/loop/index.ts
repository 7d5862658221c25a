export * from './episode-loop.ts';
export * from './outcome.ts';
export { nextEpisodeNumber } from './lease.ts';
export * from './agent-loop.ts';
export * from './trace.ts';
