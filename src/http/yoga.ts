// The yoga instance that answers /graphql over HTTP and SSE (and executes graphql-ws operations,
// src/http/websocket.ts): its plugins, the resolvers' context, and how an error is shown.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { PothosValidationError } from '@pothos/core';
import { GraphQLError } from 'graphql';
import { createYoga, maskError, type YogaInitialContext } from 'graphql-yoga';
import type { WebSocket } from 'ws';
import { tokenFromHeader } from '../auth/keys.ts';
import type { RateLimiter } from '../auth/rate-limit.ts';
import type { KeyWatch } from '../auth/socket-keys.ts';
import type { AuthResult } from '../auth/store.ts';
import { WritesBeforeAnswer } from '../core/writes-before-answer.ts';
import { databaseTrouble } from '../db/errors.ts';
import { ScopedClients } from '../db/tenant-scope.ts';
import type { Context } from '../graphql/context.ts';
import { schema } from '../graphql/schema.ts';
import { budgetGraphQLError } from '../graphql/step-blobs.ts';
import { inexactNumberMessage } from '../ledger/format/json-numbers.ts';
import { requestScope } from '../log.ts';
import type { Services } from '../services.ts';
import { ResponseBudget, ResponseBudgetError } from '../steps/read-budget.ts';
import { type Admission, overloadedError, useAdmission, useOneErrorPerRefusal } from './admission.ts';
import { useDocumentAuthorization } from './document-auth.ts';
import { useExpensiveFieldLimits } from './expensive.ts';
import { graphiqlOptions, renderGraphiQL } from './graphiql.ts';
import { enforceRateLimit, hardeningPlugins, useRateLimit, withoutSuggestions, withRequestErrorCode } from './hardening.ts';
import { useCompiledStepJournal } from './jit.ts';
import type { createMetrics } from './metrics.ts';
import { useResponseBudget } from './response-budget.ts';
import { useLargeAnswers } from './sliced-answers.ts';
import { useStreamGuard } from './streams.ts';
import { useWritesBeforeAnswer } from './writes-before-answer.ts';
import { yogaLogging } from './yoga-log.ts';

export const GRAPHQL_PATH = '/graphql';

/** What onSubscribe adds to yoga's initial context for an operation over graphql-ws. */
export type WsInitialContext = { wsAuth?: AuthResult; wsSocket?: WebSocket; res?: ServerResponse };

/** No tenant has this id: a request without a viewer sees nothing even if a resolver forgot its scope. */
const NO_TENANT = '00000000-0000-0000-0000-000000000000';

function contextFactory(services: Services, limiter: RateLimiter | null, admission: Admission) {
  const scoped = new ScopedClients(services.db.prisma, services.db.pool);
  const build = (initial: WsInitialContext, auth: AuthResult): Context => {
    const requestId = requestScope.getStore()?.requestId ?? randomUUID();
    return {
      requestId,
      log: services.log.child({ requestId }),
      viewer: 'viewer' in auth ? auth.viewer : null,
      authFailure: 'failure' in auth ? auth.failure : null,
      services,
      db: scoped.for('viewer' in auth ? auth.viewer.tenantId : NO_TENANT),
      budget: new ResponseBudget(services.config.maxResponseBytes),
      writesBeforeAnswer: new WritesBeforeAnswer(),
      pacedRetrievals: admission.pacedRetrievals,
      wsSocket: initial.wsSocket,
    };
  };
  return (initial: YogaInitialContext & WsInitialContext): Context | Promise<Context> => {
    const { wsAuth } = initial;
    // A graphql-ws operation is counted here, so a refusal is that operation's error message (its
    // shape was checked in onSubscribe first); HTTP requests are counted after their shape checks (useRateLimit).
    if (wsAuth) return 'viewer' in wsAuth ? enforceRateLimit(limiter, wsAuth.viewer.keyId).then(() => build(initial, wsAuth)) : build(initial, wsAuth);
    // A kept key authenticates synchronously: the context is built without a promise.
    const auth = services.keys.authenticate(tokenFromHeader(initial.request.headers.get('authorization')));
    return auth instanceof Promise ? auth.then((a) => build(initial, a)) : build(initial, auth);
  };
}

export interface HandlerParts {
  admission: Admission;
  limiter: RateLimiter | null;
  keyWatch: KeyWatch;
  metricsPlugin: ReturnType<typeof createMetrics>['plugin'];
}

export type GraphQLHandler = ReturnType<typeof createGraphQLHandler>;

export function createGraphQLHandler(services: Services, { admission, limiter, keyWatch, metricsPlugin }: HandlerParts) {
  const { config, log } = services;
  return createYoga<WsInitialContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // The limit is useBodyLimit's (in hardeningPlugins): yoga's counts every body as a stream.
    maxRequestBodySize: false,
    plugins: [
      // First, so that every other plugin's end of execution (admission, metrics) comes after the writes.
      useWritesBeforeAnswer(),
      useOneErrorPerRefusal(),
      ...hardeningPlugins(config),
      useDocumentAuthorization(),
      // After every shape check and scope check: a bad request is refused whatever the load.
      useRateLimit(limiter),
      // Before admission: a document over the byte budget is refused without a slot, one within it takes slots by its bytes.
      useResponseBudget(services.db.pool, config.maxResponseBytes),
      useAdmission(admission, config.maxBodyBytes),
      // After admission: one large read per key at a time, its answer sent in slices, so it does not hold the event loop for other keys.
      useLargeAnswers(admission.pacedBytes, config.largeReadsMemoryBytes),
      useExpensiveFieldLimits(config.admission.verifyLedgerConcurrency, config.admission.verifyLedgerTotalConcurrency),
      useStreamGuard(keyWatch, config.admission.maxStreamsPerKey),
      metricsPlugin,
      useCompiledStepJournal(),
    ],
    // No origin is allowed unless listed (CORS_ORIGINS); yoga's default reflects any origin.
    cors: config.corsOrigins.length ? { origin: config.corsOrigins, credentials: false } : false,
    graphiql: config.graphiql ? graphiqlOptions() : false,
    renderGraphiQL,
    landingPage: false,
    context: contextFactory(services, limiter, admission),
    logging: yogaLogging(log),
    maskedErrors: { isDev: false, maskError: errorMasker(services) },
  });
}

/** What a client is shown of an error: typed where it can act on it, masked where it is a bug. */
function errorMasker(services: Services) {
  const { config, log } = services;
  return (error: unknown, message: string): Error => {
    const requestId = requestScope.getStore()?.requestId;
    const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
    // extensions may be absent: graphql-jit (the step journal's executor) builds its GraphQLErrors without them.
    if (error instanceof GraphQLError && error.extensions?.reason === 'JSON_NUMBER_OUT_OF_RANGE') {
      // Restated: graphql-js echoes the value as parsed from the body, already rounded
      // (9007199254740993 as ...992), and the compiled executor replaces the reason by "Expected type JSON.".
      return new GraphQLError(inexactNumberMessage(String(error.extensions.path)), { nodes: error.nodes, path: error.path, extensions: error.extensions });
    }
    // Saturation and outages are not bugs: say so, with a status and a hint a client can act on.
    const trouble = databaseTrouble(original, services.db.answeredRecently());
    if (trouble === 'saturated') {
      log.warn({ requestId, err: original }, 'no database connection free or opened in time: request shed');
      return poolSaturatedError(requestId, config.dbPoolMax);
    }
    if (trouble === 'unavailable') {
      log.warn({ requestId, err: original }, 'database unavailable');
      return databaseUnavailableError(requestId);
    }
    // A read past the byte budget in a field without an error union: its coded refusal, not a bug.
    if (original instanceof ResponseBudgetError) return budgetGraphQLError(original, error as GraphQLError);
    // Pothos refuses a malformed page cursor before the resolver runs: bad input, not a bug.
    if (original instanceof PothosValidationError) {
      return new GraphQLError(original.message, {
        nodes: (error as GraphQLError).nodes,
        path: (error as GraphQLError).path,
        extensions: { code: 'BAD_USER_INPUT', requestId, http: { status: 400 } },
      });
    }
    // Refusals before any resolver ran (bad variables, query limits) get the code they lack.
    const coded = withRequestErrorCode(error, 'BAD_REQUEST');
    const shown = coded !== error ? asRequestError(coded as GraphQLError) : maskError(error, message, false);
    if (shown !== error && coded === error) {
      log.error({ requestId, err: original }, 'unexpected error (masked for the client)');
      return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR', requestId } });
    }
    return config.isProduction && shown instanceof GraphQLError ? withoutSuggestions(shown) : shown;
  };
}

/**
 * A refusal of the request itself answers as yoga answers its own validation errors (GraphQL over
 * HTTP): 400 under `application/graphql-response+json`, 200 under `application/json`. graphql-armor's
 * refusals lacked the mark and answered 200 under both. A refusal with its own status (CSRF's 403) keeps it.
 */
function asRequestError(error: GraphQLError): GraphQLError {
  if (error.extensions.http) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { ...error.extensions, http: { spec: true, status: 400 } },
  });
}

function poolSaturatedError(requestId: string | undefined, poolMax: number): GraphQLError {
  const shed = overloadedError(
    'Every database connection of this server stayed busy; this request may not have completed. Retry shortly: steps with a sideEffectKey and starts with a dedupeKey are never stored twice.',
    poolMax,
  );
  return new GraphQLError(shed.message, { extensions: { ...shed.extensions, requestId } });
}

function databaseUnavailableError(requestId: string | undefined): GraphQLError {
  return new GraphQLError(
    'The database is unavailable right now; this request may not have completed. Retry shortly: steps with a sideEffectKey and starts with a dedupeKey are never stored twice.',
    {
      extensions: { code: 'DATABASE_UNAVAILABLE', retryAfterMs: 1000, requestId, http: { status: 503, headers: { 'retry-after': '1' } } },
    },
  );
}
