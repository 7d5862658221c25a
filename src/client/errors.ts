// The client's one exception type. Expected domain failures (NotFoundError, LeaseError, ...) are
// not exceptions: they come back as typed members of the result unions. Everything that prevents
// an answer (network, HTTP status, GraphQL errors, a broken hash chain) is thrown as EpisodicError.

export type EpisodicErrorKind =
  /** The request never got an answer: DNS, refused connection, reset socket, timeout. */
  | 'transport'
  /** The server answered with a non-GraphQL HTTP status or body. */
  | 'http'
  /** The server answered with GraphQL errors (validation, authentication, masked internal errors). */
  | 'graphql'
  /** A union result was an error type and the caller asked for the success type (unwrap). */
  | 'result'
  /** Events received from the server do not form a valid hash chain. */
  | 'verification'
  /** The caller's input was refused before anything was sent. */
  | 'input';

export interface GraphQLErrorItem {
  message: string;
  path?: ReadonlyArray<string | number>;
  extensions?: Record<string, unknown>;
}

export interface EpisodicErrorOptions {
  status?: number;
  errors?: GraphQLErrorItem[];
  /** The error member of a result union (kind 'result'). */
  result?: { __typename: string; message?: string | null } & Record<string, unknown>;
  /** Verification report (kind 'verification'). */
  report?: unknown;
  cause?: unknown;
}

export class EpisodicError extends Error {
  override name = 'EpisodicError';
  readonly status?: number;
  readonly errors: GraphQLErrorItem[];
  readonly result?: EpisodicErrorOptions['result'];
  readonly report?: unknown;

  constructor(
    readonly kind: EpisodicErrorKind,
    message: string,
    options: EpisodicErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.errors = options.errors ?? [];
    this.result = options.result;
    this.report = options.report;
  }

  /** extensions.code of the first GraphQL error (UNAUTHENTICATED, FORBIDDEN, ...), or the result's __typename. */
  get code(): string | undefined {
    const code = this.errors[0]?.extensions?.code;
    return typeof code === 'string' ? code : this.result?.__typename;
  }
}

/** Every member of a result union that is an error type; they all end in "Error" and carry a message. */
export type ErrorResult<T> = Extract<T, { __typename: `${string}Error` }>;
export type SuccessResult<T> = Exclude<T, { __typename: `${string}Error` }>;

export function isErrorResult<T extends { __typename: string }>(result: T): result is ErrorResult<T> & T {
  return result.__typename.endsWith('Error');
}

/** The success member of a union result; throws EpisodicError('result') for an error member. */
export function unwrap<T extends { __typename: string }>(result: T): SuccessResult<T> {
  if (isErrorResult(result)) {
    const r = result as unknown as { __typename: string; message?: string | null } & Record<string, unknown>;
    throw new EpisodicError('result', `${r.__typename}: ${r.message ?? 'no message'}`, { result: r });
  }
  return result as SuccessResult<T>;
}
