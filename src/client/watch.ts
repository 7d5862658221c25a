// The other subscriptions, as plain callbacks: episodeUpdated (the episode now, then after each of
// its changes) and stepsLogged (each batch of steps as it is journaled, resumable by seq).
import type { Client } from 'graphql-ws';
import { EPISODE_FIELDS, STEP_FIELDS } from './documents.ts';
import { EpisodicError } from './errors.ts';
import type { Episode, Step } from './types.ts';
import { createWsClient, type WsOptions } from './ws.ts';

export interface Watch {
  readonly done: Promise<void>;
  close(): Promise<void>;
}

type Connection = Pick<WsOptions, 'url' | 'apiKey' | 'webSocketImpl'>;

/** One subscription with reconnects; `next` gets each payload's root field. */
export function watch<T>(
  connection: Connection,
  query: string,
  variables: Record<string, unknown>,
  next: (value: T) => void,
  onError?: (e: EpisodicError) => void,
): Watch {
  let ws: Client | null = null;
  let closed = false;
  let settle!: () => void;
  const done = new Promise<void>((resolve) => (settle = resolve));
  const close = async () => {
    if (closed) return done;
    closed = true;
    await Promise.resolve(ws?.dispose()).catch(() => undefined);
    settle();
  };
  const fail = (err: unknown) => {
    if (closed) return;
    const e =
      err instanceof EpisodicError
        ? err
        : Array.isArray(err)
          ? new EpisodicError('graphql', err[0]?.message ?? 'subscription refused', { errors: err })
          : new EpisodicError('transport', (err as Error)?.message ?? `socket closed (${(err as { code?: number })?.code})`, { cause: err });
    onError?.(e);
    void close();
  };
  createWsClient(connection)
    .then((client) => {
      ws = client;
      if (closed) return void client.dispose();
      client.subscribe<Record<string, T>>(
        { query, variables },
        {
          next: (m) => (m.errors?.length ? fail(m.errors) : m.data && next(Object.values(m.data)[0] as T)),
          error: fail,
          complete: () => void close(),
        },
      );
    })
    .catch(fail);
  return { done, close };
}

export function watchEpisode(connection: Connection, id: string, onUpdate: (episode: Episode) => void, onError?: (e: EpisodicError) => void): Watch {
  return watch(connection, `subscription EpisodeUpdated($id: ID!) { episodeUpdated(id: $id) { ${EPISODE_FIELDS} } }`, { id }, onUpdate, onError);
}

export interface StepsLogged {
  seq: string;
  episodeId: string;
  steps: Step[];
}

export function watchSteps(
  connection: Connection,
  episodeId: string,
  afterSeq: number | undefined,
  onBatch: (batch: StepsLogged) => void,
  onError?: (e: EpisodicError) => void,
): Watch {
  const variables = { episodeId, afterSeq: afterSeq === undefined ? null : String(afterSeq) };
  // Kept current, so a reconnect resubscribes after the last batch received.
  const track = (batch: StepsLogged) => {
    variables.afterSeq = batch.seq;
    onBatch(batch);
  };
  return watch(
    connection,
    `subscription StepsLogged($episodeId: ID!, $afterSeq: BigInt) { stepsLogged(episodeId: $episodeId, afterSeq: $afterSeq) { seq episodeId steps { ${STEP_FIELDS} } } }`,
    variables,
    track,
    onError,
  );
}
