// subscribeLedger: the ledgerEvents subscription over graphql-ws, resumed after every reconnect
// from the last seq received (graphql-ws re-sends the same payload object on each retry, and
// its afterSeq is kept current), delivered exactly once and in order, and verified as it arrives.
import type { Client } from 'graphql-ws';
import { fromHex } from '../ledger/format/hash.ts';
import type { SignedTreeHead } from '../ledger/format/signed-head.ts';
import type { VerifierState } from '../ledger/proofs/export-verify.ts';
import { verifyChain } from '../ledger/proofs/verify.ts';
import { DOCUMENTS } from './documents.ts';
import { EpisodicError } from './errors.ts';
import { type RawLedgerEvent, toLedgerEvent } from './events.ts';
import { LedgerStreamVerifier } from './stream-verifier.ts';
import type { Request } from './transport.ts';
import type { LedgerEvent, LedgerEventFilter } from './types.ts';
import { createWsClient, toWsUrl, type WsOptions } from './ws.ts';

export interface SubscribeLedgerOptions {
  /** Deliver events after this seq; default 0 (the whole ledger, then live). */
  afterSeq?: number | string;
  filter?: LedgerEventFilter;
  /** Check the hash chain of every event before delivering it; default true. */
  verify?: boolean;
  /** Trusted hash of event afterSeq; by default it is fetched (ledgerEvents) and checked. */
  prevHash?: string;
  /** Called once per event, in seq order; the next waits for a returned promise. */
  onEvent: (event: LedgerEvent) => void | Promise<void>;
  /** Called once when the stream ends on an error (verification, refusal, exhausted retries, onEvent threw). */
  onError?: (error: EpisodicError) => void;
  /** After each (re)connection. */
  onConnected?: (info: { reconnect: boolean; afterSeq: number }) => void;
  /** When the socket drops, with its close code and reason; a reconnection follows (onConnected). */
  onDisconnected?: (info: { reason: string; afterSeq: number }) => void;
  /** Reconnection attempts in a row; default Infinity. */
  retryAttempts?: number;
  retryWait?: (retries: number) => Promise<void>;
  /**
   * A checkpoint verified before (docs/LEDGER.md §7.3.1, the state `episodic verify --state`
   * keeps): the stream starts after it, chained from its head hash, and checkpoint() moves it
   * forward with a consistency proof. Needs publicKey and an unfiltered stream.
   */
  state?: VerifierState;
  /** The trusted ledger key (hex), obtained out of band: checkpoints are verified with it. */
  publicKey?: string;
  /** After checkpoint() moved the state: keep it (write it where the next run reads it). */
  onState?: (state: VerifierState) => void | Promise<void>;
}

export interface LedgerSubscription {
  /** The last seq handed to onEvent (or the starting cursor): resume with afterSeq: lastSeq. */
  readonly lastSeq: number;
  /** Settles when the stream ends: closed, completed by the server, or failed (see onError). */
  readonly done: Promise<void>;
  close(): Promise<void>;
  /**
   * With a state: moves it to the newest signed checkpoint the verified stream has reached (its
   * signature, head hash, and a consistency proof from the kept tree), calls onState and returns
   * it; the state unchanged when no newer checkpoint is reached yet. A failed check ends the
   * stream (onError) and rejects.
   */
  checkpoint(): Promise<VerifierState | undefined>;
}

type RawHead = Omit<SignedTreeHead, 'treeSize'> & { treeSize: string | number };
const toHead = (raw: RawHead): SignedTreeHead => ({ ...raw, treeSize: Number(raw.treeSize) });

/** The newest signed checkpoint with treeSize in (after, upTo], or undefined. */
async function newestCheckpoint(request: Request, after: number, upTo: number): Promise<SignedTreeHead | undefined> {
  let newest: SignedTreeHead | undefined;
  for (let from = after; ; ) {
    const page = await request<{ checkpoints?: RawHead[]; hasNextPage?: boolean; message?: string }>(DOCUMENTS.ledgerCheckpoints, {
      afterTreeSize: String(from),
      first: 100,
    });
    if (!page.checkpoints) throw new EpisodicError('graphql', page.message ?? 'ledgerCheckpoints refused');
    for (const raw of page.checkpoints) {
      const head = toHead(raw);
      if (head.treeSize > upTo) return newest;
      newest = head;
    }
    const last = page.checkpoints.at(-1);
    if (!page.hasNextPage || !last) return newest;
    from = Number(last.treeSize);
  }
}

/** Early ends the server asks us to resubscribe after (extensions.code). */
const RESUMABLE = new Set(['SLOW_CONSUMER', 'INTERNAL_SERVER_ERROR']);
const MAX_RESUBSCRIBES = 5;

type Connection = Pick<WsOptions, 'url' | 'apiKey' | 'webSocketImpl'>;

/** Hash of event `seq`, fetched and checked against its own content. */
async function anchorHash(request: Request, seq: number): Promise<string> {
  const page = await request<{ __typename: string; edges?: Array<{ node: RawLedgerEvent }>; message?: string }>(DOCUMENTS.ledgerEvents, {
    after: String(seq - 1),
    first: 1,
  });
  const raw = page.edges?.[0]?.node;
  if (!raw || Number(raw.seq) !== seq) throw new EpisodicError('input', `afterSeq ${seq} is beyond the ledger head`);
  const event = toLedgerEvent(raw);
  const report = verifyChain([event]);
  if (!report.ok) throw new EpisodicError('verification', `anchor event ${seq} does not verify: ${report.problem}: ${report.reason}`, { report });
  return event.hash;
}

function toEpisodicError(err: unknown, url: string): EpisodicError {
  if (err instanceof EpisodicError) return err;
  if (Array.isArray(err)) return new EpisodicError('graphql', err[0]?.message ?? 'subscription refused', { errors: err });
  const close = err as { code?: unknown; reason?: unknown };
  if (typeof close?.code === 'number') {
    return new EpisodicError('transport', `${toWsUrl(url)}: socket closed (${close.code}${close.reason ? `: ${String(close.reason)}` : ''})`, {
      status: close.code,
      cause: err,
    });
  }
  return new EpisodicError('transport', (err as Error)?.message ?? String(err), { cause: err });
}

function stateOptions(options: SubscribeLedgerOptions): { startSeq: number; publicKey?: Uint8Array } {
  const { state } = options;
  if (!state) return { startSeq: Number(options.afterSeq ?? 0) };
  if (options.filter != null || options.verify === false) throw new EpisodicError('input', 'a kept state needs the whole, verified stream');
  let publicKey: Uint8Array;
  try {
    publicKey = fromHex(options.publicKey ?? '', 32);
  } catch {
    throw new EpisodicError('input', 'a kept state needs publicKey: the trusted ledger key, 64 hex digits');
  }
  return { startSeq: state.treeSize, publicKey };
}

export function subscribeLedger(request: Request, connection: Connection, options: SubscribeLedgerOptions): LedgerSubscription {
  const { startSeq, publicKey } = stateOptions(options);
  if (!Number.isSafeInteger(startSeq) || startSeq < 0) throw new EpisodicError('input', `afterSeq must be a seq >= 0, got ${options.afterSeq}`);
  const stream = new LedgerStream(request, connection, options, startSeq, publicKey);
  stream.start().catch((err) => stream.fail(err));
  return stream;
}

/** One ledger subscription: its cursors, its socket, and the in-order delivery to onEvent. */
class LedgerStream implements LedgerSubscription {
  readonly done: Promise<void>;
  // graphql-ws sends this very object on every (re)subscribe: afterSeq always holds the cursor.
  private readonly variables: { afterSeq: string; filter: LedgerEventFilter | null };
  private received: number; // received (and verified): the cursor of every resubscribe
  private delivered: number; // handed to onEvent: what the caller may resume after
  private verifier: LedgerStreamVerifier | null = null;
  private ws: Client | null = null;
  private unsubscribe: (() => void) | null = null;
  private closed = false;
  private delivery: Promise<void> = Promise.resolve();
  private settle: () => void = () => undefined;

  constructor(
    private readonly request: Request,
    private readonly connection: Connection,
    private readonly options: SubscribeLedgerOptions,
    private readonly startSeq: number,
    private readonly publicKey?: Uint8Array,
  ) {
    this.variables = { afterSeq: String(startSeq), filter: options.filter ?? null };
    this.received = startSeq;
    this.delivered = startSeq;
    this.done = new Promise<void>((resolve) => (this.settle = resolve));
  }

  get lastSeq(): number {
    return this.delivered;
  }

  async close(): Promise<void> {
    if (this.closed) return this.done;
    this.closed = true;
    try {
      this.unsubscribe?.();
      // graphql-ws rejects dispose() when it was waiting to reconnect: nothing is left to close then.
      await Promise.resolve(this.ws?.dispose()).catch(() => undefined);
    } finally {
      this.settle();
    }
  }

  fail(err: unknown): void {
    if (this.closed) return;
    this.options.onError?.(toEpisodicError(err, this.connection.url));
    void this.close();
  }

  async checkpoint(): Promise<VerifierState | undefined> {
    const { verifier, publicKey, request } = this;
    const state = verifier?.state;
    if (!verifier || !state || !publicKey) throw new EpisodicError('input', 'checkpoint() needs the state option');
    const head = await newestCheckpoint(request, state.treeSize, verifier.lastSeq);
    if (!head || head.treeSize <= state.treeSize) return state;
    const proof = await request<{ proof?: string[]; message?: string }>(DOCUMENTS.consistencyProof, {
      fromSize: String(state.treeSize),
      toSize: String(head.treeSize),
    });
    if (!proof.proof) throw new EpisodicError('graphql', proof.message ?? 'consistencyProof refused');
    const advanced = verifier.advance(head, proof.proof, publicKey);
    if (!advanced.ok) {
      const { report } = advanced;
      const error = new EpisodicError('verification', `checkpoint ${head.treeSize} failed verification: ${report.problem}: ${report.reason}`, { report });
      this.fail(error);
      throw error;
    }
    await this.options.onState?.(advanced.state);
    return advanced.state;
  }

  async start(): Promise<void> {
    const { options, request } = this;
    if (options.state) {
      this.verifier = new LedgerStreamVerifier({ state: options.state });
    } else if (options.verify !== false) {
      const filtered = options.filter != null;
      const prevHash = options.prevHash ?? (this.startSeq > 0 && !filtered ? await anchorHash(request, this.startSeq) : undefined);
      this.verifier = new LedgerStreamVerifier({ afterSeq: this.startSeq, prevHash, filtered });
    }
    if (this.closed) return;
    const ws = await createWsClient({
      ...this.connection,
      retryAttempts: options.retryAttempts,
      retryWait: options.retryWait,
      onConnected: (reconnect) => options.onConnected?.({ reconnect, afterSeq: this.received }),
      onDisconnected: (reason) => {
        if (!this.closed) options.onDisconnected?.({ reason, afterSeq: this.received });
      },
    });
    this.ws = ws;
    this.subscribe(ws);
  }

  /** One subscribe; a server-side early end (slow consumer, server error) is resubscribed from our cursor. */
  private subscribe(client: Client, resubscribes = 0): void {
    const from = this.received;
    let stale = false;
    this.unsubscribe = client.subscribe<{ ledgerEvents: RawLedgerEvent }>(
      { query: DOCUMENTS.subscribeLedger, variables: this.variables },
      {
        next: (message) => {
          if (stale) return;
          const code = message.errors?.[0]?.extensions?.code;
          if (message.errors?.length && RESUMABLE.has(String(code)) && resubscribes < MAX_RESUBSCRIBES) {
            stale = true;
            this.unsubscribe?.();
            const again = this.received > from ? 0 : resubscribes + 1;
            setTimeout(() => !this.closed && this.subscribe(client, again), 100 * 2 ** again);
            return;
          }
          if (message.errors?.length) return this.fail(message.errors);
          if (message.data?.ledgerEvents) this.receive(message.data.ledgerEvents);
        },
        error: (err) => !stale && this.fail(err),
        complete: () => !stale && void this.close(),
      },
    );
  }

  private receive(raw: RawLedgerEvent): void {
    if (this.closed) return;
    const event = toLedgerEvent(raw);
    if (event.seq <= this.received) return; // already delivered before a reconnect
    const check = this.verifier?.check(event);
    if (check && !check.ok) {
      const { report } = check;
      const where = report.firstBadSeq ?? event.seq;
      this.fail(new EpisodicError('verification', `ledger stream failed verification at seq ${where}: ${report.problem}: ${report.reason}`, { report }));
      return;
    }
    this.received = event.seq;
    this.variables.afterSeq = String(event.seq);
    this.delivery = this.delivery
      .then(() => {
        if (this.closed) return;
        this.delivered = event.seq;
        return this.options.onEvent(event);
      })
      .catch((err) => this.fail(err));
  }
}
