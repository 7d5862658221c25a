// GraphQL over HTTP POST with fetch. Every document selects its root field as `result`.

import { must } from '../core/must.ts';
import { EpisodicError, type GraphQLErrorItem } from './errors.ts';

export type FetchLike = (
  input: string,
  init: { method: string; headers: Record<string, string>; body: string; signal?: AbortSignal },
) => Promise<{
  ok: boolean;
  status: number;
  text(): Promise<string>;
}>;

export interface TransportOptions {
  url: string;
  apiKey?: string;
  fetch?: FetchLike;
  /** Per-request timeout; default 30 s. */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

export type Request = <T>(query: string, variables?: Record<string, unknown>) => Promise<T>;

function parseBody(text: string): { data?: { result?: unknown } | null; errors?: GraphQLErrorItem[] } | undefined {
  try {
    const body = JSON.parse(text);
    return body && typeof body === 'object' ? body : undefined;
  } catch {
    return undefined;
  }
}

export function createTransport(options: TransportOptions): Request {
  const doFetch: FetchLike = options.fetch ?? (globalThis.fetch as unknown as FetchLike);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
    ...options.headers,
  };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const timeoutMs = options.timeoutMs ?? 30_000;

  return async function request<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    let status: number;
    let text: string;
    try {
      const res = await doFetch(options.url, { method: 'POST', headers, body: JSON.stringify({ query, variables }), signal: AbortSignal.timeout(timeoutMs) });
      status = res.status;
      text = await res.text();
    } catch (cause) {
      throw new EpisodicError('transport', `cannot reach ${options.url}: ${reasonOf(cause)}`, { cause });
    }
    const body = parseBody(text);
    if (body?.errors?.length) {
      const first = must(body.errors[0]);
      throw new EpisodicError('graphql', first.message, { status, errors: body.errors });
    }
    if (status < 200 || status >= 300 || !body || !body.data) {
      throw new EpisodicError('http', `HTTP ${status} from ${options.url}: ${text.slice(0, 200)}`, { status });
    }
    return body.data.result as T;
  };
}

/** fetch's own message ("fetch failed") with the socket's reason under it (ECONNREFUSED, ECONNRESET, ...). */
function reasonOf(cause: unknown): string {
  const message = (cause as Error | undefined)?.message ?? String(cause);
  const inner = (cause as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const detail = inner?.code ?? inner?.message;
  return typeof detail === 'string' && detail ? `${message} (${detail})` : message;
}
