// The run formats an import reads. Its own module so the CLI's help can name them without loading
// the importer.
export const FORMATS = ['mini-swe-agent', 'swe-agent', 'jsonl'] as const;
export type Format = (typeof FORMATS)[number];
