// graphql-ws on /graphql, beside yoga (yoga's graphql-ws recipe): a socket authenticates once on
// connect, and each operation runs through yoga's envelop (parse, validation, context, execute),
// so the limits, masking and tenancy are the HTTP path's.
import { randomUUID } from 'node:crypto';
import { type ExecutionArgs, GraphQLError } from 'graphql';
import type { ServerOptions, Context as SocketContext, SubscribePayload } from 'graphql-ws';
import { type Extra, useServer } from 'graphql-ws/use/ws';
import type { WebSocketServer } from 'ws';
import { tokenFromHeader } from '../auth/keys.ts';
import { KEY_REVOKED_CLOSE_CODE, type KeyWatch } from '../auth/socket-keys.ts';
import type { AuthResult } from '../auth/store.ts';
import { requestScope } from '../log.ts';
import type { Services } from '../services.ts';
import { withRequestErrorCode } from './hardening.ts';
import { nodeLimitError } from './node-limit.ts';
import type { GraphQLHandler } from './yoga.ts';

type WsExtra = { auth?: AuthResult };

/** One operation's enveloped execute and subscribe, handed to graphql-ws through its rootValue (yoga's graphql-ws recipe). */
interface EnvelopedRoot {
  execute: NonNullable<ServerOptions['execute']>;
  subscribe: NonNullable<ServerOptions['subscribe']>;
}

type WsContext = SocketContext<Record<string, unknown>, Extra & Partial<WsExtra>>;

export interface WebSocketParts {
  services: Services;
  yoga: GraphQLHandler;
  keyWatch: KeyWatch;
}

/** Serves graphql-ws on the server's sockets; dispose() closes them. */
export function serveGraphQLOverWebSocket(wss: WebSocketServer, parts: WebSocketParts) {
  return useServer<Record<string, unknown>, WsExtra>(
    {
      // A socket closed for an internal error says only that (never the error's text), in every environment.
      isProd: true,
      execute: (args) => (args.rootValue as EnvelopedRoot).execute(args),
      subscribe: (args) => (args.rootValue as EnvelopedRoot).subscribe(args),
      onConnect: (ctx) => authenticateSocket(ctx, parts),
      onSubscribe: (ctx, _id, params) => prepareOperation(ctx, params, parts),
    },
    wss,
    12_000,
  );
}

/** Authenticates the socket once, from its connection params; a key revoked or expired later closes it. */
async function authenticateSocket(ctx: WsContext, { services, keyWatch }: WebSocketParts): Promise<boolean> {
  const params = ctx.connectionParams ?? {};
  const header = (params.authorization ?? params.Authorization ?? params.apiKey) as string | undefined;
  const auth = await services.keys.authenticate(tokenFromHeader(header));
  ctx.extra.auth = auth;
  if ('viewer' in auth) {
    const socket = ctx.extra.socket;
    const forget = keyWatch.add({
      keyId: auth.viewer.keyId,
      kind: 'socket',
      expiresAt: auth.viewer.expiresAt,
      end: () => socket.close(KEY_REVOKED_CLOSE_CODE, 'API key revoked or expired'),
    });
    socket.once('close', forget);
  }
  // Refuse at once: a socket with a bad key never gets to subscribe (4403 Forbidden).
  return 'viewer' in auth;
}

/** Parses, validates and builds the context of one operation; a refusal answers this operation, not the socket. */
async function prepareOperation(ctx: WsContext, params: SubscribePayload, { services, yoga }: WebSocketParts) {
  const { config } = services;
  // graphql-ws registers the operation before this hook, so the count includes it.
  const running = Object.keys(ctx.subscriptions).length;
  if (running > config.subscriptions.maxPerConnection) return [tooManyOperations(config.subscriptions.maxPerConnection)];
  const requestId = randomUUID();
  const {
    schema,
    execute,
    subscribe,
    contextFactory: makeContext,
    parse,
    validate,
  } = yoga.getEnveloped({
    ...ctx,
    req: ctx.extra.request,
    socket: ctx.extra.socket,
    params,
    wsAuth: ctx.extra.auth,
    wsSocket: ctx.extra.socket,
  } as Parameters<typeof yoga.getEnveloped>[0]);
  // Parse and validation refusals (syntax, depth, aliases, cost, ...) are answered on this
  // operation; thrown, they would close the whole socket as an internal error.
  let document: ReturnType<typeof parse>;
  try {
    document = parse(params.query);
    const errors = validate(schema, document);
    if (errors.length) return errors.map((e: GraphQLError) => withRequestErrorCode(e, 'GRAPHQL_VALIDATION_FAILED'));
    // The node limit needs the variables: answered here like the validation refusals above.
    const tooMany = nodeLimitError({ schema, document, variableValues: params.variables, operationName: params.operationName }, config.armor.maxNodes);
    if (tooMany) return [tooMany];
  } catch (err) {
    if (err instanceof GraphQLError) return [withRequestErrorCode(err, 'GRAPHQL_VALIDATION_FAILED')];
    throw err;
  }
  // A refusal while building the context (RATE_LIMITED) ends this operation, not the socket.
  let contextValue: Awaited<ReturnType<typeof makeContext>>;
  try {
    contextValue = await requestScope.run({ requestId }, () => makeContext());
  } catch (err) {
    if (err instanceof GraphQLError) return [err];
    throw err;
  }
  return {
    schema,
    operationName: params.operationName,
    document,
    variableValues: params.variables,
    contextValue,
    rootValue: {
      execute: (a: ExecutionArgs) => requestScope.run({ requestId }, () => execute(a)),
      subscribe: (a: ExecutionArgs) => requestScope.run({ requestId }, () => subscribe(a)),
    } satisfies EnvelopedRoot,
  };
}

function tooManyOperations(max: number): GraphQLError {
  return new GraphQLError(
    `This connection already runs ${max} operations, the most one connection may (SUBSCRIPTIONS_PER_CONNECTION). Complete one, or open another connection.`,
    { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', limit: max } },
  );
}
