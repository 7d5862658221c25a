// Limits of importing past runs: historical times and where a run came from.
import { type LimitViolation, textViolations } from '../validation/violations.ts';

// The source's format name and file name (the schema states them, graphql-import.ts).
export const IMPORT_SOURCE_LIMITS = {
  formatChars: 64,
  nameBytes: 1024,
} as const;

export interface ImportSource {
  /** e.g. mini-swe-agent, swe-agent, jsonl */
  format: string;
  /** BLAKE3 of the source file, lowercase hex. */
  sourceHash: string;
  /** The file's name or path as the importer saw it. */
  name?: string | null;
}

/** Historical times: none in the future (of `now`), and the start not after the end. */
export function timeRangeViolations(
  startField: string,
  endField: string,
  start: Date | null | undefined,
  end: Date | null | undefined,
  now = new Date(),
): LimitViolation[] {
  const future = (field: string, t: Date | null | undefined): LimitViolation[] =>
    t && t.getTime() > now.getTime() ? [{ field, limit: 'not in the future', message: `${field} (${t.toISOString()}) is in the future` }] : [];
  const ordered: LimitViolation[] =
    start && end && start.getTime() > end.getTime()
      ? [
          {
            field: endField,
            limit: `>= ${startField.split('.').pop()}`,
            message: `${endField} (${end.toISOString()}) is before ${startField} (${start.toISOString()})`,
          },
        ]
      : [];
  return [...future(startField, start), ...future(endField, end), ...ordered];
}

export function importSourceViolations(field: string, source: ImportSource): LimitViolation[] {
  const hex = /^[0-9a-f]{64}$/.test(source.sourceHash)
    ? []
    : [{ field: `${field}.sourceHash`, limit: '64 lowercase hex digits', message: `${field}.sourceHash must be a BLAKE3 hash in lowercase hex` }];
  return [
    ...textViolations(`${field}.format`, source.format, { maxChars: IMPORT_SOURCE_LIMITS.formatChars, nonEmpty: true, identifier: true }),
    ...hex,
    ...textViolations(`${field}.name`, source.name, { maxBytes: IMPORT_SOURCE_LIMITS.nameBytes }),
  ];
}
