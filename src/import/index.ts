// Importing real agent runs through the public API. The formats are declared once, in formats.ts;
// their parsers are PARSERS (the per-format exports below are kept for bench/memory*.ts, which
// still name them one by one).

export { FORMATS, type Format } from './formats.ts';
export { type ImportOptions, type ImportReport, importFile, importRuns, type RunReport, readVerdictFiles, type StepRejection } from './import-runs.ts';
export { ImportInterruptedError } from './interrupted.ts';
export { parseGenericJsonl } from './jsonl.ts';
export { parseMiniSweAgent } from './mini-swe-agent.ts';
export { PARSERS } from './parsers.ts';
export { type ImportedRun, type ImportedStep, ImportFileError } from './run.ts';
export { parseSweAgent } from './swe-agent.ts';
export { parseVerdicts } from './verdicts.ts';
export { type ImportWarning, importWarnings } from './warnings.ts';
