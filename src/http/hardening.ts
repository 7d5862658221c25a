// GraphQL hardening: the body limit, depth, cost, alias, token and directive limits (graphql-armor), the
// node limit, CSRF prevention, introspection off where configured, and the per-key rate limit.
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { type DocumentNode, type ExecutionArgs, GraphQLError, getOperationAST, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { RateDecision, RateLimiter } from '../auth/rate-limit.ts';
import type { Config } from '../config.ts';
import { usePageCursors } from '../graphql/page-arguments.ts';
import { requestScope } from '../log.ts';
import { useBodyLimit } from './body-limit.ts';
import { useNodeLimit } from './node-limit.ts';
import { perDocument } from './per-document.ts';
import { useUtf8Bodies } from './utf8-body.ts';

export function hardeningPlugins(config: Config): Array<Plugin | Plugin<Record<string, unknown>>> {
  const { maxDepth, maxAliases, maxTokens, maxCost, maxNodes } = config.armor;
  const armor = new EnvelopArmor({
    maxDepth: { n: maxDepth, ignoreIntrospection: true },
    maxAliases: { n: maxAliases },
    maxTokens: { n: maxTokens },
    maxDirectives: { n: 50 },
    costLimit: { maxCost, ignoreIntrospection: true },
    blockFieldSuggestion: { enabled: config.isProduction },
  });
  return [
    ...(armor.protect().plugins as Plugin[]),
    // After armor: its token limit replaces the parse function, this one wraps whatever is there.
    useNestingLimit(),
    ...(config.isProduction ? [useNoSuggestions()] : []),
    useUtf8Bodies(),
    useBodyLimit(config.maxBodyBytes),
    useWellFormedVariables(),
    // Page cursors are checked before any resolver hands one to Prisma.
    usePageCursors(),
    useNoNulInReads(),
    // Where the variables are known, before any resolver reads a row (over WebSocket also in onSubscribe).
    useNodeLimit(maxNodes),
    // Requests without a CORS preflight (GET, form posts) must carry this header.
    useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf'] }),
    ...(config.introspection ? [] : [useDisableIntrospection()]),
  ];
}

/** Throws the 429-style error a client can act on: wait retryAfterMs, then retry. */
export async function enforceRateLimit(limiter: RateLimiter | null, keyId: string, units = 1): Promise<void> {
  if (!limiter) return;
  const decision = await limiter.take(keyId, Date.now(), units);
  if (!decision.ok) throw rateLimitedError(limiter, decision.retryAfterMs);
}

/** The refusal of a key over its minute's allowance. */
function rateLimitedError(limiter: RateLimiter, retryAfterMs: number): GraphQLError {
  const seconds = Math.ceil(retryAfterMs / 1000);
  return new GraphQLError(
    `Rate limit exceeded for this API key: the limit is ${limiter.perMinute} requests a minute (RATE_LIMIT_PER_MINUTE); retry in ${seconds} s.`,
    {
      extensions: {
        code: 'RATE_LIMITED',
        field: 'apiKey',
        limit: `${limiter.perMinute} requests a minute`,
        retryAfterMs,
        http: { status: 429, headers: { 'retry-after': String(seconds) } },
      },
    },
  );
}

/**
 * The per-key rate limit for every HTTP operation (GraphQL, SSE, each call of an MCP batch),
 * counted after the shape checks: a request refused for its shape costs no allowance and no
 * database round trip, whatever the load.
 */
export function useRateLimit(limiter: RateLimiter | null): Plugin {
  /** Decided synchronously when the key's claimed slice of this minute decides it (no promise); a promise only when a slice must be claimed. */
  const check = (args: ExecutionArgs, stop: (result: { errors: GraphQLError[] }) => void): Promise<void> | undefined => {
    if (!limiter) return undefined;
    const context = args.contextValue as { viewer?: { keyId: string } | null; wsSocket?: unknown };
    // graphql-ws operations were counted as their context was built (src/http/yoga.ts).
    // An MCP batch's operations were counted at its door, one per call (src/mcp/http.ts).
    const keyId = context.wsSocket || requestScope.getStore()?.admitted ? undefined : context.viewer?.keyId;
    if (!keyId) return undefined;
    const refuse = (decision: RateDecision) => {
      if (!decision.ok) stop({ errors: [rateLimitedError(limiter, decision.retryAfterMs)] });
    };
    const decision = limiter.take(keyId);
    if (decision instanceof Promise) return decision.then(refuse);
    refuse(decision);
    return undefined;
  };
  return {
    onExecute: ({ args, setResultAndStopExecution }) => check(args, setResultAndStopExecution),
    onSubscribe: ({ args, setResultAndStopExecution }) => check(args, setResultAndStopExecution),
  };
}

/** Where the first string (or object key) of `value` that is not valid Unicode sits, e.g. `$step.metadata.note`. */
function illFormedStringPath(value: unknown, path: string): string | null {
  const pending: Array<[unknown, string]> = [[value, path]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, at] = next;
    if (typeof current === 'string') {
      if (!isWellFormed(current)) return at;
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    for (const [key, item] of Object.entries(current)) {
      if (!isWellFormed(key)) return `${at}.${key}`;
      pending.push([item, `${at}.${key}`]);
    }
  }
  return null;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/**
 * Refuses variables holding a string with an unpaired UTF-16 surrogate (JSON allows "\ud800";
 * Unicode does not). PostgreSQL rejects such a string in jsonb and silently replaces it in text,
 * which would break the hashes the ledger recorded. graphql-js already refuses one in a literal.
 */
function useWellFormedVariables(): Plugin {
  const check = (variables: unknown): GraphQLError | null => {
    const path = illFormedStringPath(variables ?? {}, '$');
    if (!path) return null;
    const field = path.replace(/^\$\./, '');
    return new GraphQLError(`Variable "$${field}" holds a string that is not valid Unicode (an unpaired UTF-16 surrogate).`, {
      extensions: { code: 'BAD_USER_INPUT', field, http: { status: 400 } },
    });
  };
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const error = check(args.variableValues);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const error = check(args.variableValues);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}

const VARIABLE_ERROR = /^Variable "\$[_A-Za-z][_0-9A-Za-z]*" |^Too many errors processing variables/;
/** graphql-armor's refusals (depth, aliases, directives, cost, tokens) read "Syntax Error: ... limit of N exceeded". */
const LIMIT_ERROR = /^Syntax Error: .*\blimit of \d+ exceeded/;

/**
 * Gives a refusal that happened before any resolver ran the code it lacks: graphql-js reports a bad
 * variable (wrong type, null for a required one) and graphql-armor a broken query limit without
 * one. Errors from resolvers (with a path), with a code, or caused by something else are returned
 * as they are (unexpected ones are masked). `fallback` codes any other request-level GraphQLError.
 */
export function withRequestErrorCode<E>(error: E, fallback?: string): E | GraphQLError {
  if (!(error instanceof GraphQLError) || error.path || error.extensions?.code !== undefined) return error;
  if (error.originalError && !(error.originalError instanceof GraphQLError)) return error;
  const code = VARIABLE_ERROR.test(error.message)
    ? 'BAD_USER_INPUT'
    : LIMIT_ERROR.test(error.message)
      ? 'GRAPHQL_VALIDATION_FAILED'
      : /^Syntax Error: /.test(error.message)
        ? 'GRAPHQL_PARSE_FAILED'
        : fallback;
  if (!code) return error;
  return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { ...error.extensions, code } });
}

/** Brackets a document may nest: far above any real query, far below what overflows the parser's recursion. */
const MAX_NESTING = 128;

/** How deeply `[`, `{` and `(` nest in a GraphQL source, outside strings and comments. */
function nestingDepth(source: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '#') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '"') {
      const block = source.startsWith('"""', i);
      const close = block ? '"""' : '"';
      i += close.length;
      while (i < source.length && !source.startsWith(close, i)) i += source[i] === '\\' ? 2 : 1;
      i += close.length - 1;
    } else if (c === '[' || c === '{' || c === '(') {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (c === ']' || c === '}' || c === ')') {
      depth -= 1;
    }
  }
  return deepest;
}

/**
 * Refuses a document nested deeper than MAX_NESTING before graphql-js parses it: a 3,000-deep list
 * literal overflowed the parser's recursion (an untyped internal error, before auth).
 */
function useNestingLimit(): Plugin {
  return {
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        const text = typeof source === 'string' ? source : source.body;
        const depth = nestingDepth(text);
        if (depth > MAX_NESTING) {
          throw new GraphQLError(`Syntax Error: brackets nest ${depth} deep; the limit of ${MAX_NESTING} exceeded.`, {
            extensions: { code: 'GRAPHQL_PARSE_FAILED', limit: MAX_NESTING, http: { status: 400 } },
          });
        }
        return parseFn(source, options);
      });
    },
  };
}

/** Where the first string holding a NUL character sits in `value`, e.g. `$filter.text`. */
function nulPath(value: unknown, path: string): string | null {
  const pending: Array<[unknown, string]> = [[value, path]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, at] = next;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return at;
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) pending.push([item, `${at}.${key}`]);
    }
  }
  return null;
}

/** The path of the first string literal argument holding NUL in a document, e.g. `episodes.filter.text`. */
const nulLiteralPath = perDocument((document: DocumentNode): string | null => {
  let found: string | null = null;
  const fields: string[] = [];
  const names: string[] = [];
  visit(document, {
    Field: { enter: (n) => void fields.push(n.alias?.value ?? n.name.value), leave: () => void fields.pop() },
    Argument: { enter: (n) => void names.push(n.name.value), leave: () => void names.pop() },
    ObjectField: { enter: (n) => void names.push(n.name.value), leave: () => void names.pop() },
    StringValue(n) {
      if (!found && n.value.includes('\u0000')) found = [fields.at(-1), ...names].filter(Boolean).join('.');
    },
  });
  return found;
});

/**
 * Reads with a NUL character in a string (variables or literals) are refused as BAD_USER_INPUT:
 * PostgreSQL cannot hold NUL in text, so a filter with one failed deep in the database as an
 * untyped internal error. Writes keep their own typed limits (InputLimitError).
 */
function useNoNulInReads(): Plugin {
  const check = (args: ExecutionArgs): GraphQLError | null => {
    const operation = getOperationAST(args.document, args.operationName);
    if (!operation || operation.operation === 'mutation') return null;
    const variable = nulPath(args.variableValues ?? {}, '$');
    const field = variable ? variable.replace(/^\$\./, '$') : nulLiteralPath(args.document);
    if (!field) return null;
    return new GraphQLError(`${field} holds a NUL character (\\u0000), which no stored text contains.`, {
      extensions: { code: 'BAD_USER_INPUT', field, http: { status: 400 } },
    });
  };
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const error = check(args);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const error = check(args);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}

const SUGGESTION = / ?Did you mean [^?]*\?/g;

/** graphql-js suggests enum values and fields in messages ("Did you mean ...?"): production leaves them out. */
export function withoutSuggestions(error: GraphQLError): GraphQLError {
  if (!error.message.includes('Did you mean')) return error;
  return new GraphQLError(error.message.replace(SUGGESTION, '').trim(), {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

/** Validation errors do not pass through error masking: production strips their suggestions here. */
function useNoSuggestions(): Plugin {
  return {
    onValidate() {
      return ({ result, setResult }) => {
        if (result.some((e) => e.message.includes('Did you mean'))) setResult(result.map((e) => (e instanceof GraphQLError ? withoutSuggestions(e) : e)));
      };
    },
  };
}
