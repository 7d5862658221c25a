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

/** No agent ran before 1970 (OTLP's zero time, a Unix clock's start); an earlier time is a broken one. */
const EARLIEST_TIME = new Date(0);

/** A real date (not Invalid Date, which a time past JavaScript's range becomes) from EARLIEST_TIME on. */
const inRange = (t: Date): boolean => Number.isFinite(t.getTime()) && t.getTime() >= EARLIEST_TIME.getTime();

/** Historical times: real ones from 1970 on, none in the future (of `now`), and the start not after the end. */
export function timeRangeViolations(
  startField: string,
  endField: string,
  start: Date | null | undefined,
  end: Date | null | undefined,
  now = new Date(),
): LimitViolation[] {
  const outOfRange = (field: string, t: Date | null | undefined): LimitViolation[] => {
    if (!t) return [];
    if (!inRange(t)) return [{ field, limit: `from ${EARLIEST_TIME.toISOString()}`, message: `${field} is not a time from ${EARLIEST_TIME.toISOString()} on` }];
    return t.getTime() > now.getTime() ? [{ field, limit: 'not in the future', message: `${field} (${t.toISOString()}) is in the future` }] : [];
  };
  const ordered: LimitViolation[] =
    start && end && inRange(start) && inRange(end) && start.getTime() > end.getTime()
      ? [
          {
            field: endField,
            limit: `>= ${startField.split('.').pop()}`,
            message: `${endField} (${end.toISOString()}) is before ${startField} (${start.toISOString()})`,
          },
        ]
      : [];
  return [...outOfRange(startField, start), ...outOfRange(endField, end), ...ordered];
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
