import { GraphQLError, Kind, type ValueNode } from 'graphql';
import { firstInexactNumber, inexactNumberMessage } from '../ledger/format/json-numbers.ts';
import type { Builder } from './builder.ts';

/** A JSON input whose numbers all fit a double exactly; others are refused, never rounded. */
function exactJson(value: unknown): unknown {
  const path = firstInexactNumber(value);
  if (path)
    throw new GraphQLError(inexactNumberMessage(path), {
      extensions: { code: 'BAD_USER_INPUT', reason: 'JSON_NUMBER_OUT_OF_RANGE', path, limit: `±${Number.MAX_SAFE_INTEGER}` },
    });
  return value;
}

function literalToJson(ast: ValueNode): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map(literalToJson);
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literalToJson(f.value)]));
    default:
      throw new GraphQLError('JSON literals cannot contain variables');
  }
}

/** Years 1 to 9999: what ISO 8601 writes with four digits and what PostgreSQL and Prisma read back. */
const MIN_DATE = new Date('0001-01-01T00:00:00.000Z').getTime();
const MAX_DATE = new Date('9999-12-31T23:59:59.999Z').getTime();

function parseDateTime(value: unknown): Date {
  const date = typeof value === 'string' ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 string, e.g. 2026-11-21T20:50:00.000Z');
  if (date.getTime() < MIN_DATE || date.getTime() > MAX_DATE) {
    throw new GraphQLError('DateTime must lie between 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z');
  }
  return date;
}

/** 64-bit integers travel as decimal strings: JSON numbers lose precision past 2^53. */
function parseBigInt(value: unknown): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d{1,19}$/.test(value)) return BigInt(value);
  throw new GraphQLError('BigInt must be an integer or a decimal string of at most 19 digits');
}

export function addScalars(builder: Builder) {
  builder.scalarType('DateTime', {
    description: 'An instant, serialized as an ISO 8601 string in UTC with milliseconds.',
    serialize: (v) => (v instanceof Date ? v : new Date(v as string)).toISOString(),
    parseValue: parseDateTime,
    parseLiteral: (ast) => parseDateTime(ast.kind === Kind.STRING ? ast.value : null),
  });
  builder.scalarType('JSON', {
    description: 'Any JSON value.',
    serialize: (v) => v,
    parseValue: exactJson,
    parseLiteral: (ast) => exactJson(literalToJson(ast)),
  });
  builder.scalarType('BigInt', {
    description: 'A 64-bit integer, serialized as a decimal string so no client loses precision.',
    serialize: (v) => String(v),
    parseValue: parseBigInt,
    parseLiteral: (ast) => parseBigInt(ast.kind === Kind.INT || ast.kind === Kind.STRING ? ast.value : null),
  });
}
