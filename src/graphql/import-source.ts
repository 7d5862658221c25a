// GraphQL inputs for importing past runs: where a run came from, and what its real times mean.

import { sizeText } from '../core/sizes.ts';
import { IMPORT_SOURCE_LIMITS } from '../episodes/import-limits.ts';
import { builder } from './builder.ts';

export const ImportSourceInput = builder.inputType('ImportSourceInput', {
  fields: (t) => ({
    format: t.string({ required: true, description: `e.g. mini-swe-agent, swe-agent, jsonl (at most ${IMPORT_SOURCE_LIMITS.formatChars} characters).` }),
    sourceHash: t.string({ required: true, description: 'BLAKE3 of the source file: 64 lowercase hex digits.' }),
    name: t.string({ description: `The file name, at most ${sizeText(IMPORT_SOURCE_LIMITS.nameBytes)}.` }),
  }),
});

export const HISTORICAL_START =
  "Importing a past run: when it really started (not in the future). The episode is historical: its wall time, reward and reflection use the run's own times, and its episode.started event says it was imported.";

export const HISTORICAL_END =
  'Importing a past run: when it really ended (not in the future, not before it started). A historical episode without it ends at its last step. Refused for an episode whose times are unknown (imported without startedAt).';
