// The only module that reads the environment. Every variable is parsed and checked here, and a bad
// one produces one line naming the variable, what it must be, and what it was.
import { resolve } from 'node:path';
import { z } from 'zod';

const booleanString = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const postgresUrl = z.string().refine((v) => /^postgres(ql)?:\/\/[^/\s]+\/[^\s]*$/.test(v) && URL.canParse(v), {
  message: 'must be a postgres:// or postgresql:// URL with a host and a database, e.g. postgresql://user:pass@localhost:5432/episodic',
});

const port = (what: string) =>
  z.coerce
    .number({ message: `must be ${what}` })
    .int(`must be ${what}`)
    .min(0, `must be ${what}`)
    .max(65535, `must be ${what}`);

const commaList = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

// MODEL_PRICES: JSON {"<model>": {"input": <USD per 1M input tokens>, "output": <USD per 1M output tokens>}}
// over the defaults of src/costs/prices.ts (docs/COSTS.md).
const modelPrices = z
  .string()
  .transform((v, ctx) => {
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be JSON: {"<model>": {"input": <USD per 1M tokens>, "output": <USD per 1M tokens>}}' });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(z.string().min(1).max(200), z.object({ input: z.number().min(0).max(1_000_000), output: z.number().min(0).max(1_000_000) }).strict(), {
      message: 'must map model names to {"input": <USD per 1M tokens>, "output": <USD per 1M tokens>}',
    }),
  );

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port('an integer port between 0 and 65535').default(4000),
  DATABASE_URL: postgresUrl.optional(),
  EPISODIC_DATA_DIR: z.string().min(1).default('.episodic'),
  EMBEDDED_PG_PORT: port('an integer port between 1 and 65535').min(1).default(54329),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  GRAPHIQL: booleanString.optional(),
  INTROSPECTION: booleanString.optional(),
  REDACT_KEYS: commaList.optional(),
  GROUP_COMMIT: booleanString.default(true),
  GROUP_COMMIT_WINDOW_MS: z.coerce.number().min(0).max(1000).default(2),
  GROUP_COMMIT_MAX_ROWS: z.coerce.number().int().min(1).max(50_000).default(2_000),
  INGEST_MAX_PENDING_ROWS: z.coerce.number().int().min(1).default(50_000),
  JOB_POLL_SECONDS: z.coerce.number().min(0.5).max(60).default(2),
  LEDGER_SIGNING_KEY: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits (an Ed25519 private key)')
    .optional(),
  CHECKPOINT_INTERVAL_MS: z.coerce.number().int().min(100).default(10_000),
  CHECKPOINT_EVERY_EVENTS: z.coerce.number().int().min(1).default(1_000),
  KEY_RECHECK_MS: z.coerce.number().int().min(50).default(5_000),
  KEY_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(12_000),
  MAX_QUERY_DEPTH: z.coerce.number().int().min(1).default(15),
  MAX_ALIASES: z.coerce.number().int().min(1).default(30),
  MAX_TOKENS: z.coerce.number().int().min(100).default(10_000),
  MAX_COST: z.coerce.number().int().min(100).default(500_000),
  // 100 episodes with 100 steps each (or one page of 1,000 steps with room to spare); the monitor,
  // the CLI and the client library ask for at most 1,000 nodes at a time.
  MAX_NODES: z.coerce.number().int().min(1).default(10_000),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024),
  // Bytes of large stored content (blobs, Step.contentRefs { content }) one request may read, counted
  // at their stored size before they are read. 8 MiB: half the largest blob (BLOB_LIMITS.blobBytes,
  // 16 MiB), so a blob that large is served only by the streamed GET /blobs/<hash>; a few MB-sized
  // outputs still fit one query. A request holds up to ~3x its budget in memory (UTF-16 string plus
  // its JSON), so one key's MAX_REQUESTS_PER_KEY_SHARED (8) requests hold at most ~200 MiB, not 30 GB
  // (a large read takes a key's whole shared share: src/http/response-budget.ts).
  MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(8 * 1024 * 1024),
  // Bytes the server's large reads (a request reading LARGE_READ_BYTES, 1 MiB, or more) may hold in
  // memory at once, all keys together: a read counts ~3x the inline content it reads and about a
  // slice per blob whose text it streams into its answer (src/http/sliced-answers.ts); past it, a
  // read waits for its turn (one per key and four per server at a time in any case). 64 concurrent 7.9 MB blob reads
  // once raised the RSS from 500 to 900 MiB (issue 50).
  LARGE_READS_MEMORY_BYTES: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .default(64 * 1024 * 1024),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).default(1000),
  // A few requests per core and database connection already keep both busy; more in flight only
  // queue their callbacks on the one event loop, in front of another tenant's (issue 50: one key's
  // 64 slots held another key's one-field query at p99 504 ms against 5; with 8, 18 ms). So while
  // another key is active a key holds MAX_REQUESTS_PER_KEY_SHARED; alone it may hold
  // MAX_REQUESTS_PER_KEY, for work that mostly waits on the database (an import of 350 runs: 12.5 s
  // with 8 calls in flight, 9.4 s with 32).
  MAX_CONCURRENT_REQUESTS: z.coerce.number().int().min(1).default(64),
  MAX_REQUESTS_PER_KEY: z.coerce.number().int().min(1).default(32),
  MAX_REQUESTS_PER_KEY_SHARED: z.coerce.number().int().min(1).default(8),
  // While another key is active, one key's heavy work starts no faster than these rates (issue 50,
  // src/core/paced-work.ts): bytes of large answers and blob downloads together (16 MiB/s: a 7.9 MB
  // blob in ~0.5 s; one key's stream of them held another tenant's one-row read at 3-4x), and OTLP
  // spans journaled (500/s; RATE_LIMIT_PER_MINUTE's default allows 200/s over a minute, so this
  // trims bursts). A key alone is never paced. 0 turns pacing off.
  PACED_BYTES_PER_SECOND: z.coerce
    .number()
    .int()
    .min(0)
    .default(16 * 1024 * 1024),
  PACED_SPANS_PER_SECOND: z.coerce.number().int().min(0).default(500),
  // And its retrievals, whatever door and shape they come in (aliases of one GraphQL request, calls
  // of an MCP batch): 40/s, as a retrieval costs about 8 ms of CPU, so a third of one core; 8 MCP
  // batches of 100 relevant_episodes held another tenant's one-field read at 2.5x unpaced.
  PACED_RETRIEVALS_PER_SECOND: z.coerce.number().int().min(0).default(40),
  // A key's requests beyond MAX_REQUESTS_PER_KEY (or beyond a full server) wait in the key's own
  // queue, served in fair turns between tenants and keys, for up to ADMISSION_WAIT_MS; past that
  // queue (callers, or bytes of the bodies they hold) or that wait they are refused with one
  // OVERLOADED answer. Deep enough that 600 clients of one key wait their turn: a refused client
  // retries, and refusing (and re-reading) its retries took the CPU the waiting would not.
  MAX_QUEUED_PER_KEY: z.coerce.number().int().min(0).default(1024),
  // 64 MiB: four of the largest bodies (MAX_BODY_BYTES), or a thousand 60 kB ones.
  MAX_QUEUED_BYTES_PER_KEY: z.coerce
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024),
  ADMISSION_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  MAX_STREAMS_PER_KEY: z.coerce.number().int().min(1).default(64),
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  // Per tenant; VERIFY_LEDGER_TOTAL_CONCURRENCY across tenants: 3 of the default pool of 10
  // connections, so verifications never hold more than a third of the pool.
  VERIFY_LEDGER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  VERIFY_LEDGER_TOTAL_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(3),
  METRICS_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  CORS_ORIGINS: commaList.optional(),
  REDIS_URL: z.string().url().optional(),
  SUBSCRIPTIONS_PER_CONNECTION: z.coerce.number().int().min(1).max(10_000).default(50),
  SUBSCRIPTION_MAX_BUFFERED_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(4 * 1024 * 1024),
  LEDGER_TAIL_SAFETY_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
  LEARNING_QUEUE_MAX_DEPTH: z.coerce.number().int().min(0).default(10_000),
  LEARNING_WORKERS: z.coerce.number().int().min(0).max(32).default(2),
  BLOB_TOTAL_CAP_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(10 * 1024 ** 3),
  // Spans waiting for their trace's root (src/otlp/pending-limits.ts). An exporter sends a span when
  // it ends, so a run's first children wait as long as the run lasts: a day covers long agent runs,
  // and 256 MiB holds thousands of runs in flight at once (most spans are a few kB).
  OTLP_PENDING_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(256 * 1024 ** 2),
  OTLP_PENDING_EXPIRY_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(24 * 3600 * 1000),
  // Host names (Host header) and origins (Origin header) /mcp answers: DNS rebinding protection (src/mcp/origin.ts).
  MCP_ALLOWED_HOSTS: commaList.optional(),
  MCP_ALLOWED_ORIGINS: commaList.optional(),

  OTLP_RUN_IDLE_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
  OTLP_RUN_ATTRIBUTE: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,128}$/, 'must be an attribute name (letters, digits, _ . -)')
    .default('episodic.run.id'),
  // A span that ends after its root completed the episode (a streamed call, a fire-and-forget tool)
  // is still the run's step within this long after the root's end (src/otlp/traces.ts).
  OTLP_LATE_SPAN_GRACE_MS: z.coerce.number().int().min(0).max(86_400_000).default(300_000),
  // A trace whose model calls carry no messages waits this long for their log events (/v1/logs)
  // before its episode is made: steps are immutable, so a step journaled before its messages came
  // would never have them (src/otlp/traces.ts). 0: never waits.
  OTLP_LOG_EVENTS_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(2000),

  // Retention (docs/LEDGER.md §3.4): the content of the steps of runs that ended more than this many
  // days ago is forgotten, with a steps.forgotten event per run; unset keeps everything.
  STEP_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
  // Runs that ended more than this many days ago are forgotten whole (their texts, outcome,
  // critique, reward, reflection, checkpoints, steps, index entries, patterns), with their
  // steps.forgotten and episode.forgotten events; unset keeps them.
  RUN_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
  RETENTION_SWEEP_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(3_600_000),
  MODEL_PRICES: modelPrices.optional(),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  env: Env['NODE_ENV'];
  isProduction: boolean;
  host: string;
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPgPort: number;
  dbPoolMax: number;
  logLevel: Env['LOG_LEVEL'];
  graphiql: boolean;
  introspection: boolean;
  redactKeys: string[] | undefined;
  /** enabled=false gives every step call its own transaction (the benchmark's naive baseline). */
  groupCommit: { enabled: boolean; windowMs: number; maxRows: number };
  ingestMaxPendingRows: number;
  jobPollSeconds: number;
  /** Signed checkpoints: at least every intervalMs and every everyEvents events. */
  ledger: { signingKey: string | undefined; intervalMs: number; everyEvents: number };
  maxBodyBytes: number;
  /** Bytes of large stored content one request may read (src/steps/read-budget.ts). */
  maxResponseBytes: number;
  /** Bytes all large reads together may hold in memory at once (src/http/sliced-answers.ts). */
  largeReadsMemoryBytes: number;
  /** Requests per API key and minute across all processes; 0 turns the limit off. */
  rateLimitPerMinute: number;
  /** How often open WebSockets re-check that their API key is still valid. */
  keyRecheckMs: number;
  /** How long a key read for a request is reused before api_keys is read again. */
  keyCacheMs: number;
  /**
   * GraphQL query limits, tuned so ordinary relay queries pass: graphql-armor's, and maxNodes, the
   * most nodes the pages of one operation may return (src/http/node-limit.ts).
   */
  armor: { maxDepth: number; maxAliases: number; maxTokens: number; maxCost: number; maxNodes: number };
  shutdownTimeoutMs: number;
  /**
   * How long a stopping server still reads requests on connections it already has (answered with
   * `Connection: close`): a request a client sent on an idle keep-alive connection just before the
   * signal is answered, not cut. Bounded by shutdownTimeoutMs.
   */
  shutdownDrainMs: number;
  /** Admission control (src/http/admission.ts). */
  admission: {
    /** Requests (GraphQL operations, MCP calls, OTLP exports, blob downloads) one process works on at once, taken after the shape checks. */
    maxConcurrentRequests: number;
    /** Of those, the most one API key may hold, so one key cannot take every slot. */
    maxRequestsPerKey: number;
    /** Slots of one key while another key is active (at most maxRequestsPerKey); also the most one request takes. */
    maxRequestsPerKeyShared: number;
    /** Requests of one key that may wait for a slot (fair turns between tenants and keys); more are refused with OVERLOADED. */
    maxQueuedPerKey: number;
    /** Bytes of request bodies one key's waiting requests may hold; more are refused with OVERLOADED. */
    maxQueuedBytesPerKey: number;
    /** How long a request waits for a slot before it is refused with OVERLOADED. */
    admissionWaitMs: number;
    /** While another key is active: bytes of one key's large answers and downloads, and its OTLP spans, per second (0: not paced). */
    pacedBytesPerSecond: number;
    pacedSpansPerSecond: number;
    /** While another key is active: the JSON-RPC calls of one key's MCP POSTs per second (0: not paced). */
    pacedRetrievalsPerSecond: number;
    /** Open subscriptions (SSE and WebSocket) of one API key in this process. */
    maxStreamsPerKey: number;
    /** A client must send its headers within headersTimeoutMs and its whole request within bodyTimeoutMs (else 408). */
    headersTimeoutMs: number;
    bodyTimeoutMs: number;
    /** verifyLedger runs at most this many at once per tenant (one per key); it holds a database connection while it runs. */
    verifyLedgerConcurrency: number;
    /** ... and at most this many at once in the process, shared round-robin between tenants. */
    verifyLedgerTotalConcurrency: number;
  };
  /** Set: /metrics also opens with `Authorization: Bearer <token>` (a scraper without an API key); admin keys always may. */
  metricsToken: string | undefined;
  /** Origins a browser may call the API from (CORS); empty: no cross-origin access. */
  corsOrigins: string[];
  /** Set: ledger fan-out across processes goes through Redis instead of PostgreSQL LISTEN/NOTIFY. */
  redisUrl: string | undefined;
  subscriptions: {
    /** Operations one graphql-ws connection may run at once. */
    maxPerConnection: number;
    /** A subscription whose socket holds more unsent bytes than this ends with SLOW_CONSUMER. */
    maxBufferedBytes: number;
    /** Every live subscriber re-reads the ledger this often even without a notification. */
    safetyReadMs: number;
  };
  /** Pattern extraction queue: waiting jobs beyond maxQueueDepth are skipped (with a ledger event); workers per process. */
  learning: { maxQueueDepth: number; workers: number };
  /** Bytes of step blobs one tenant may hold; a step whose new blob would pass it is refused (blob_cap). */
  blobTotalCapBytes: number;
  /** Spans waiting for their root: the bytes one tenant may keep, and how long one waits before it is dropped. */
  otlpPending: { maxBytesPerTenant: number; expiryMs: number };
  /** /mcp answers only requests whose Host is one of `hosts` and whose Origin (when sent) is one of `origins`. */
  mcp: { allowedHosts: string[]; allowedOrigins: string[] };

  /**
   * OTLP runs without an agent root span (src/otlp/runs.ts): the attribute that marks a run
   * (resource or span), and how long a run may be idle before it ends.
   */
  otlpRuns: { idleMs: number; attribute: string };
  /** How long after its root span's end a late child span is still added to the completed episode. */
  otlpLateSpanGraceMs: number;
  /** How long a trace whose model calls carry no messages waits for their log events before it is settled (0: never). */
  otlpLogEventsWaitMs: number;
  /** Step content of runs ended more than `days` ago is forgotten (null: kept), checked every `sweepMs`. */
  retention: { days: number | null; runDays: number | null; sweepMs: number };
  /** MODEL_PRICES: entries over the default price table (src/costs/prices.ts), USD per 1M tokens. */
  modelPrices: Record<string, { input: number; output: number }>;
}

/** The names a local client reaches this machine by: the default of MCP_ALLOWED_HOSTS. */
const LOCAL_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'ConfigError';
  }
}

/** Empty strings count as unset, as in most deployment tools. */
function withoutEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
}

function describeIssue(issue: z.core.$ZodIssue, env: Record<string, string>): string {
  const name = String(issue.path[0] ?? 'environment');
  const given = env[name];
  const shown = name === 'DATABASE_URL' || name === 'REDIS_URL' ? redactUrl(given) : given;
  return `${name} ${issue.message}${given === undefined ? '' : ` (got "${shown}")`}`;
}

/** Hides the password of a connection URL in messages and logs. */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const env = withoutEmpty(source);
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => describeIssue(i, env)));
  const e = parsed.data;
  const isProduction = e.NODE_ENV === 'production';
  return Object.freeze({
    env: e.NODE_ENV,
    isProduction,
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    dataDir: resolve(e.EPISODIC_DATA_DIR),
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    dbPoolMax: e.DB_POOL_MAX,
    logLevel: e.LOG_LEVEL,
    graphiql: e.GRAPHIQL ?? !isProduction,
    // GraphiQL without introspection is a blank page: turning GraphiQL on turns introspection on too.
    introspection: e.INTROSPECTION ?? e.GRAPHIQL ?? !isProduction,
    redactKeys: e.REDACT_KEYS,
    groupCommit: { enabled: e.GROUP_COMMIT, windowMs: e.GROUP_COMMIT_WINDOW_MS, maxRows: e.GROUP_COMMIT_MAX_ROWS },
    ingestMaxPendingRows: e.INGEST_MAX_PENDING_ROWS,
    jobPollSeconds: e.JOB_POLL_SECONDS,
    ledger: { signingKey: e.LEDGER_SIGNING_KEY, intervalMs: e.CHECKPOINT_INTERVAL_MS, everyEvents: e.CHECKPOINT_EVERY_EVENTS },
    maxBodyBytes: e.MAX_BODY_BYTES,
    maxResponseBytes: e.MAX_RESPONSE_BYTES,
    largeReadsMemoryBytes: e.LARGE_READS_MEMORY_BYTES,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    keyRecheckMs: e.KEY_RECHECK_MS,
    keyCacheMs: e.KEY_CACHE_MS,
    armor: { maxDepth: e.MAX_QUERY_DEPTH, maxAliases: e.MAX_ALIASES, maxTokens: e.MAX_TOKENS, maxCost: e.MAX_COST, maxNodes: e.MAX_NODES },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: Math.min(e.SHUTDOWN_DRAIN_MS, e.SHUTDOWN_TIMEOUT_MS),
    admission: {
      maxConcurrentRequests: e.MAX_CONCURRENT_REQUESTS,
      maxRequestsPerKey: Math.min(e.MAX_REQUESTS_PER_KEY, e.MAX_CONCURRENT_REQUESTS),
      maxRequestsPerKeyShared: Math.min(e.MAX_REQUESTS_PER_KEY_SHARED, e.MAX_REQUESTS_PER_KEY, e.MAX_CONCURRENT_REQUESTS),
      maxQueuedPerKey: e.MAX_QUEUED_PER_KEY,
      maxQueuedBytesPerKey: e.MAX_QUEUED_BYTES_PER_KEY,
      admissionWaitMs: e.ADMISSION_WAIT_MS,
      pacedBytesPerSecond: e.PACED_BYTES_PER_SECOND,
      pacedSpansPerSecond: e.PACED_SPANS_PER_SECOND,
      pacedRetrievalsPerSecond: e.PACED_RETRIEVALS_PER_SECOND,
      maxStreamsPerKey: e.MAX_STREAMS_PER_KEY,
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: Math.max(e.BODY_TIMEOUT_MS, e.HEADERS_TIMEOUT_MS),
      verifyLedgerConcurrency: e.VERIFY_LEDGER_CONCURRENCY,
      verifyLedgerTotalConcurrency: e.VERIFY_LEDGER_TOTAL_CONCURRENCY,
    },
    metricsToken: e.METRICS_TOKEN,
    corsOrigins: e.CORS_ORIGINS ?? [],
    redisUrl: e.REDIS_URL,
    subscriptions: {
      maxPerConnection: e.SUBSCRIPTIONS_PER_CONNECTION,
      maxBufferedBytes: e.SUBSCRIPTION_MAX_BUFFERED_BYTES,
      safetyReadMs: e.LEDGER_TAIL_SAFETY_MS,
    },
    learning: { maxQueueDepth: e.LEARNING_QUEUE_MAX_DEPTH, workers: e.LEARNING_WORKERS },
    blobTotalCapBytes: e.BLOB_TOTAL_CAP_BYTES,
    otlpPending: { maxBytesPerTenant: e.OTLP_PENDING_MAX_BYTES, expiryMs: e.OTLP_PENDING_EXPIRY_MS },
    mcp: { allowedHosts: e.MCP_ALLOWED_HOSTS ?? LOCAL_HOSTS, allowedOrigins: e.MCP_ALLOWED_ORIGINS ?? [] },

    otlpRuns: { idleMs: e.OTLP_RUN_IDLE_MS, attribute: e.OTLP_RUN_ATTRIBUTE },
    otlpLateSpanGraceMs: e.OTLP_LATE_SPAN_GRACE_MS,
    otlpLogEventsWaitMs: e.OTLP_LOG_EVENTS_WAIT_MS,
    retention: { days: e.STEP_RETENTION_DAYS ?? null, runDays: e.RUN_RETENTION_DAYS ?? null, sweepMs: e.RETENTION_SWEEP_MS },
    modelPrices: e.MODEL_PRICES ?? {},
  });
}

/** What the CLI's server commands and client scripts read: the API key, the URL and where the admin key file lives. */
export function clientEnv(source: NodeJS.ProcessEnv = process.env): { apiKey: string | undefined; url: string | undefined; dataDir: string } {
  return { apiKey: source.EPISODIC_API_KEY || undefined, url: source.EPISODIC_URL || undefined, dataDir: resolve(source.EPISODIC_DATA_DIR || '.episodic') };
}
