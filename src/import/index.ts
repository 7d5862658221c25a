// Importing real agent runs (mini-swe-agent, SWE-agent, generic JSONL) through the public API.

export { FORMATS, type Format } from './formats.ts';
export { type ImportOptions, type ImportReport, importFile, importRuns, type RunReport, readVerdictFiles, type StepRejection } from './import-runs.ts';
export { parseGenericJsonl } from './jsonl.ts';
export { parseMiniSweAgent } from './mini-swe-agent.ts';
export { type ImportedRun, type ImportedStep, ImportFileError } from './run.ts';
export { parseSweAgent } from './swe-agent.ts';
export { parseVerdicts } from './verdicts.ts';
export { type ImportWarning, importWarnings } from './warnings.ts';
