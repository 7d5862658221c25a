// Importing real agent runs (mini-swe-agent, SWE-agent, generic JSONL) through the public API.
export { importRuns, importFile, readVerdictFiles, type ImportOptions, type ImportReport, type RunReport, type StepRejection } from './import-runs.ts';
export { FORMATS, type Format } from './files.ts';
export { ImportFileError, type ImportedRun, type ImportedStep } from './run.ts';
export { parseMiniSweAgent } from './mini-swe-agent.ts';
export { parseSweAgent } from './swe-agent.ts';
export { parseGenericJsonl } from './jsonl.ts';
export { parseVerdicts } from './verdicts.ts';
