// The page sizes of every paged field (relay connections and lists with a first or limit
// argument), declared once where the field is declared and recorded in the field's `extensions`,
// which the node limit (src/http/node-count.ts) reads from the schema.
import type { GraphQLField } from 'graphql';

/** The key of a field's `extensions` that holds its PageSize. */
export const PAGE_SIZE = 'episodicPageSize';

export interface PageSize {
  /** The arguments that size a page, read in order; the first one given wins (relay: first ?? last). */
  args: readonly string[];
  /** Rows of a page when no size argument is given. */
  defaultSize: number;
  /** Rows of a page at most: a larger request is cut to it (relay) or refused (lists). */
  maxSize: number;
}

/**
 * Spread into a relay connection's options (prismaConnection, relatedConnection): Pothos pages
 * with defaultSize and maxSize, and the node limit reads the same numbers from the extension.
 */
export function connectionSize(defaultSize: number, maxSize: number): { defaultSize: number; maxSize: number; extensions: Record<string, PageSize> } {
  return { defaultSize, maxSize, extensions: { [PAGE_SIZE]: { args: ['first', 'last'], defaultSize, maxSize } } };
}

/**
 * Spread into the options of a list field sized by one argument (e.g. `first: Int = 100`); the
 * argument's defaultValue must be defaultSize (test/unit/page-size.test.ts checks every field).
 */
export function listSize(arg: string, defaultSize: number, maxSize: number): { extensions: Record<string, PageSize> } {
  return { extensions: { [PAGE_SIZE]: { args: [arg], defaultSize, maxSize } } };
}

function isPageSize(value: unknown): value is PageSize {
  if (value === null || typeof value !== 'object') return false;
  const { args, defaultSize, maxSize } = value as Record<string, unknown>;
  return Array.isArray(args) && args.every((a) => typeof a === 'string') && typeof defaultSize === 'number' && typeof maxSize === 'number';
}

/** The page size a field declares, or null for a field that does not page. */
export function pageSizeOf(field: GraphQLField<unknown, unknown>): PageSize | null {
  const value = field.extensions?.[PAGE_SIZE];
  return isPageSize(value) ? value : null;
}
