// One parser per format of formats.ts: a Record over its keys, so a format added there without a
// parser here fails the type check.
import type { Format } from './formats.ts';
import { parseGenericJsonl } from './jsonl.ts';
import { parseMiniSweAgent } from './mini-swe-agent.ts';
import type { ImportedRun } from './run.ts';
import { parseSweAgent } from './swe-agent.ts';

export const PARSERS: Record<Format, (file: string, text: string) => ImportedRun> = {
  'mini-swe-agent': parseMiniSweAgent,
  'swe-agent': parseSweAgent,
  jsonl: parseGenericJsonl,
};
