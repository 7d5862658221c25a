// The arguments that page a relay connection: `after` and `before` must be cursors the API
// returned. Pothos decodes a cursor's tagged value (GPC:S:..., GPC:N:..., GPC:J:...) and hands it to
// Prisma as the row's key; a value of the wrong type (a number, an object, a string that is no
// UUID) failed in Prisma or PostgreSQL, a masked 500. Every connection here pages by UUID columns
// (connectionSize records how many), so a cursor is refused unless it decodes to that many UUIDs,
// before any resolver runs: BAD_USER_INPUT naming the argument and the limit.
import { decodeCursorChunk } from '@pothos/core';
import { type DocumentNode, GraphQLError, type GraphQLField, type GraphQLSchema, getArgumentValues, TypeInfo, visit, visitWithTypeInfo } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isUuid } from '../core/ids.ts';
import { CURSOR_PARTS } from './page-size.ts';

const PAGE_CURSORS = ['after', 'before'] as const;

/** A malformed argument: the typed refusal a connection (which has no error union) answers with. */
export function badArgument(field: string, limit: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', field, limit, http: { status: 400 } } });
}

/** Why `cursor` is not one of this connection's cursors (`parts` UUIDs), or null. */
function cursorProblem(cursor: string, parts: number): string | null {
  const decoded = Buffer.from(cursor, 'base64').toString('utf8');
  if (!decoded.startsWith('GPC:')) return 'is not a page cursor';
  let value: unknown;
  try {
    value = decodeCursorChunk(decoded.slice(4));
  } catch {
    return 'is not a page cursor';
  }
  const values = parts === 1 ? [value] : Array.isArray(value) ? value : [];
  return values.length === parts && values.every(isUuid) ? null : `does not name a row of this connection (${parts === 1 ? 'a UUID' : `${parts} UUIDs`})`;
}

/** The first malformed page cursor of an operation (literal or variable), as its refusal. */
function firstBadCursor(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>): GraphQLError | null {
  const typeInfo = new TypeInfo(schema);
  let found: GraphQLError | null = null;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const field = typeInfo.getFieldDef() as GraphQLField<unknown, unknown> | null;
        const parts = field?.extensions?.[CURSOR_PARTS];
        if (found || !field || typeof parts !== 'number') return;
        let args: Record<string, unknown>;
        try {
          args = getArgumentValues(field, node, variables);
        } catch {
          return; // graphql-js reports a bad argument itself
        }
        for (const name of PAGE_CURSORS) {
          const cursor = args[name];
          const problem = typeof cursor === 'string' ? cursorProblem(cursor, parts) : null;
          if (problem && !found)
            found = badArgument(
              `${node.name.value}.${name}`,
              'a cursor this connection returned',
              `${node.name.value}(${name}) ${problem}: pass back a pageInfo cursor of this connection`,
            );
        }
      },
    }),
  );
  return found;
}

/**
 * Whether a document selects a paged connection at all: a property of the document and the schema
 * alone, kept per parsed document (yoga hands the same object for the same text). Most operations
 * page nothing, and walking each one's document with its types was 2 % of a retrieval's CPU.
 */
const pagesByDocument = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, boolean>>();

function selectsPages(schema: GraphQLSchema, document: DocumentNode): boolean {
  let known = pagesByDocument.get(schema);
  if (!known) pagesByDocument.set(schema, (known = new WeakMap()));
  let pages = known.get(document);
  if (pages === undefined) known.set(document, (pages = findsPagedField(schema, document)));
  return pages;
}

function findsPagedField(schema: GraphQLSchema, document: DocumentNode): boolean {
  const typeInfo = new TypeInfo(schema);
  let found = false;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        if (typeof typeInfo.getFieldDef()?.extensions?.[CURSOR_PARTS] === 'number') found = true;
      },
    }),
  );
  return found;
}

/** Refuses an operation with a malformed page cursor before it executes (over HTTP and WebSocket alike). */
export function usePageCursors(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      if (!selectsPages(args.schema, args.document)) return;
      const error = firstBadCursor(args.schema, args.document, (args.variableValues ?? {}) as Record<string, unknown>);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}
