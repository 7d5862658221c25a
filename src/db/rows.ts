// One row type per table, as raw SQL reads it through pg: generated from prisma/schema.prisma by
// `npm run sql-rows` (scripts/sql-rows.ts); do not edit. A query names the columns it reads:
// `queryRows<Pick<EpisodesRow, 'id' | 'outcome'>>(...)` (src/db/sql.ts).

/** The `tenants` table. */
export type TenantsRow = {
  id: string;
  name: string;
  created_at: Date;
  /** Days after its end a run's step content is forgotten (tenant.retention_set); null: the server's STEP_RETENTION_DAYS. */
  step_retention_days: number | null;
  /** Days after its end a run is forgotten whole (tenant.retention_set); null: the server's RUN_RETENTION_DAYS. */
  run_retention_days: number | null;
};

/** The `api_keys` table. */
export type ApiKeysRow = {
  id: string;
  tenant_id: string;
  name: string;
  /** Public part of the key, used to find the row; the secret is stored only as a hash. */
  prefix: string;
  secret_hash: string;
  scopes: string[] | null;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
};

/** The `work_items` table. */
export type WorkItemsRow = {
  id: string;
  tenant_id: string;
  title: string;
  description: string | null;
  /** Highest episode number issued for this work item; episode numbers are monotonic across restarts. */
  last_episode_number: number;
  /** How many episodes the work item's loop may run in all; null is unlimited. */
  max_episodes: number | null;
  /** Why the loop stopped (a StopReason), set by the server when an episode ends; starts are refused while set. */
  stop_condition: unknown | null;
  stopped_at: Date | null;
  metadata: unknown;
  created_at: Date;
  updated_at: Date;
};

/** The `leases` table. */
export type LeasesRow = {
  id: string;
  tenant_id: string;
  work_item_id: string;
  parent_id: string | null;
  issuer: string;
  holder: string;
  scope: string[] | null;
  expires_at: Date;
  max_episodes: number | null;
  max_tool_calls: number | null;
  max_tokens: string | null;
  max_wall_ms: string | null;
  used_episodes: number;
  used_tool_calls: number;
  used_tokens: string;
  used_wall_ms: string;
  revoked_at: Date | null;
  created_at: Date;
};

/** The `episodes` table. */
export type EpisodesRow = {
  id: string;
  tenant_id: string;
  work_item_id: string | null;
  lease_id: string | null;
  parent_episode_id: string | null;
  episode_number: number | null;
  agent: string | null;
  task_description: string;
  task_type: string;
  language: string | null;
  framework: string | null;
  complexity: string;
  domain: string | null;
  tags: string[] | null;
  goal_spec: unknown | null;
  dedupe_key: string | null;
  input_hash: string | null;
  attempt: number;
  max_attempts: number;
  mode: string;
  status: string;
  phase: string | null;
  on_budget_exhausted: string;
  max_tokens: string | null;
  max_steps: number | null;
  max_wall_ms: string | null;
  max_tool_calls: number | null;
  /** What the episode holds on its lease while running or blocked: {episodes, toolCalls, tokens, wallMs}. */
  lease_hold: unknown | null;
  used_tokens: string;
  used_tool_calls: number;
  used_cost: number;
  step_count: number;
  size_bytes: string;
  outcome_kind: string | null;
  outcome: unknown | null;
  stop_reason: unknown | null;
  blocked_reason: string | null;
  approval_request: unknown | null;
  critique: unknown | null;
  context_pack_hash: string | null;
  manifest_hash: string | null;
  reward_score: number | null;
  reward: unknown | null;
  reflection: unknown | null;
  /** Retrieval feedback in [-1, 1]: moved towards +1 when a retrieval that served this episode helped a success, towards -1 on a failure. */
  feedback_credit: number;
  /** Pattern extraction: none (nothing to extract), pending, queued, done or skipped. Null while the episode has no outcome. */
  learning_state: string | null;
  metadata: unknown;
  /** Started with a historical startedAt (an imported run): budgets and durations use the run's own times. */
  historical: boolean;
  /** Where an imported run came from: {format, sourceHash (BLAKE3 of the file), name}. */
  import_source: unknown | null;
  /** False for an imported run whose format records no times: startedAt/endedAt are then when it was imported (for ordering only); wall time is unknown, the reward has no speed terms, retrieval recency is neutral. */
  times_known: boolean;
  /** When an episode.forgotten event removed the record's texts and what was derived from them (docs/LEDGER.md §3.4); null while kept. */
  forgotten_at: Date | null;
  started_at: Date;
  deadline_at: Date | null;
  ended_at: Date | null;
  updated_at: Date;
};

/** The `steps` table. */
export type StepsRow = {
  id: string;
  tenant_id: string;
  episode_id: string;
  step_number: number;
  kind: string;
  tool: string | null;
  action: string | null;
  /** Redacted copy of the parameters; argsHash is BLAKE3 of the original canonical JSON. */
  parameters: unknown | null;
  args_hash: string | null;
  result_kind: string | null;
  result: unknown | null;
  observation: string | null;
  latency_ms: number | null;
  tokens: number;
  cost: number;
  side_effect_key: string | null;
  world_before: unknown | null;
  world_after: unknown | null;
  metadata: unknown | null;
  content_hash: string;
  size_bytes: number;
  /** Fields kept as blobs or truncated: {field: {hash, sizeBytes, stored}}; the inline value is a head + tail preview. */
  content_refs: unknown | null;
  /** When the step really ran (imported runs); null for steps journaled live. */
  started_at: Date | null;
  ended_at: Date | null;
  /** Random hex hashed with the content (docs/LEDGER.md §3.4), deleted with it when forgotten; null for steps stored before salts. */
  salt: string | null;
  /** When a steps.forgotten event removed this step's content (docs/LEDGER.md §3.4); null while it is kept. */
  forgotten_at: Date | null;
  created_at: Date;
};

/** The `checkpoints` table. */
export type CheckpointsRow = {
  id: string;
  tenant_id: string;
  episode_id: string;
  step_number: number;
  label: string | null;
  state: unknown;
  created_at: Date;
};

/** The `ledger_heads` table. */
export type LedgerHeadsRow = {
  tenant_id: string;
  seq: string;
  hash: string;
};

/** The `ledger_events` table. */
export type LedgerEventsRow = {
  tenant_id: string;
  seq: string;
  type: string;
  episode_id: string | null;
  work_item_id: string | null;
  payload: unknown;
  prev_hash: string;
  hash: string;
  created_at: Date;
};

/** The `ledger_checkpoints` table. */
export type LedgerCheckpointsRow = {
  tenant_id: string;
  tree_size: string;
  root_hash: string;
  head_hash: string;
  issued_at: Date;
  signature: string;
  key_id: string;
};

/** The `ledger_checkpoint_marks` table. */
export type LedgerCheckpointMarksRow = {
  tenant_id: string;
  tree_size: string;
};

/** The `pack_misses` table. */
export type PackMissesRow = {
  id: string;
  tenant_id: string;
  episode_id: string;
  stable_id: string;
  reason: string;
  pack_hash: string | null;
  occurrences: number;
  first_at: Date;
  last_at: Date;
};

/** The `patterns` table. */
export type PatternsRow = {
  id: string;
  tenant_id: string;
  /** kind + canonical signature; the same pattern found again has the same key. */
  key: string;
  kind: string;
  signature: string[] | null;
  description: string;
  /** Context of the episode that first produced the pattern (ranking fit). */
  domain: string | null;
  language: string | null;
  framework: string | null;
  tags: string[] | null;
  first_episode_id: string | null;
  occurrences: number;
  successes: number;
  success_rate: number;
  mean_reward: number;
  effectiveness: number;
  status: string;
  superseded_at: Date | null;
  feedback_credit: number;
  /** The one scope the pattern is learnt in: domain, else language:<language>, else *. */
  scope: string;
  /** The term or name a task is matched by. */
  cue: string;
  /** The consequent: '' (the run succeeded) or file:<path>. */
  target: string;
  /** Shrunk rate with the antecedent minus the rate of comparable episodes without it; null without comparable episodes. */
  lift: number | null;
  baseline_rate: number;
  created_at: Date;
  updated_at: Date;
};

/** The `pattern_strata` table. */
export type PatternStrataRow = {
  pattern_id: string;
  stratum: string;
  tenant_id: string;
  support: number;
  hits: number;
  reward_sum: number;
};

/** The `pattern_baselines` table. */
export type PatternBaselinesRow = {
  tenant_id: string;
  scope: string;
  stratum: string;
  target: string;
  episodes: number;
  hits: number;
};

/** The `pattern_episodes` table. */
export type PatternEpisodesRow = {
  pattern_id: string;
  episode_id: string;
  tenant_id: string;
  success: boolean;
  reward: number;
  kept: boolean;
  observed_at: Date;
};

/** The `retrievals` table. */
export type RetrievalsRow = {
  id: string;
  tenant_id: string;
  /** episodes or patterns */
  kind: string;
  query_hash: string;
  results_hash: string;
  episode_ids: string[] | null;
  warning_ids: string[] | null;
  pattern_ids: string[] | null;
  /** The terms the query ranked by (episode retrievals), with their idf in queryWeights: what feedback is relative to. */
  query_terms: string[] | null;
  query_weights: number[] | null;
  /** The experiment arm that served it (src/experiments): memory, control or interleaved; null outside an experiment. */
  arm: string | null;
  experiment_id: string | null;
  /** Interleaving: the team (memory or baseline) of each served episode, in episodeIds' order. */
  teams: string[] | null;
  created_at: Date;
};

/** The `episode_feedback` table. */
export type EpisodeFeedbackRow = {
  id: string;
  tenant_id: string;
  episode_id: string;
  retrieval_id: string;
  used_by: string;
  /** +1 success, -1 failure, partial in between. */
  target: number;
  created_at: Date;
};

/** The `rate_limit_windows` table. */
export type RateLimitWindowsRow = {
  key_id: string;
  window_start: Date;
  used: number;
};

/** The `episode_terms` table. */
export type EpisodeTermsRow = {
  tenant_id: string;
  episode_id: string;
  field: number;
  term: string;
  impact: number;
};

/** The `episode_files` table. */
export type EpisodeFilesRow = {
  tenant_id: string;
  episode_id: string;
  /** The episode's domain ('' without one): a path is a file of one repository. */
  domain: string;
  path: string;
  created: boolean;
};

/** The `episode_term_df` table. */
export type EpisodeTermDfRow = {
  tenant_id: string;
  field: number;
  term: string;
  df: number;
};

/** The `episode_term_totals` table. */
export type EpisodeTermTotalsRow = {
  tenant_id: string;
  field: number;
  documents: number;
  length: string;
  /** Raised by 1 with every write of the tenant's term index (term-index.ts): what a kept copy of the index is checked against (term-cache.ts). */
  generation: string;
};

/** The `ranking_models` table. */
export type RankingModelsRow = {
  tenant_id: string;
  features: string[] | null;
  weights: number[] | null;
  means: number[] | null;
  scales: number[] | null;
  /** The strength's calibration fitted with it (retrieval/calibration.ts: bias and three weights); empty keeps the default. */
  calibration: number[] | null;
  /** Episodes indexed when it was fitted, the training queries (runs with a relevant run) and pairs. */
  episodes: number;
  queries: number;
  pairs: number;
  trained_at: Date;
};

/** The `blobs` table. */
export type BlobsRow = {
  tenant_id: string;
  hash: string;
  content: string;
  size_bytes: number;
  created_at: Date;
};

/** The `blob_usage` table. */
export type BlobUsageRow = {
  tenant_id: string;
  bytes: string;
};

/** The `monitor_hours` table. */
export type MonitorHoursRow = {
  tenant_id: string;
  dimension: string;
  value: string;
  hour: Date;
  runs: number;
  running: number;
  blocked: number;
  completed: number;
  failed: number;
  cancelled: number;
  escalated: number;
  successes: number;
  partials: number;
  failures: number;
  tokens: number;
  cost: number;
};

/** The `monitor_hour_tools` table. */
export type MonitorHourToolsRow = {
  tenant_id: string;
  dimension: string;
  value: string;
  hour: Date;
  tool: string;
  calls: number;
  errors: number;
  timeouts: number;
};

/** The `monitor_hour_budgets` table. */
export type MonitorHourBudgetsRow = {
  tenant_id: string;
  dimension: string;
  value: string;
  hour: Date;
  resource: string;
  count: number;
};

/** The `monitor_hour_latencies` table. */
export type MonitorHourLatenciesRow = {
  tenant_id: string;
  dimension: string;
  value: string;
  hour: Date;
  bucket: number;
  count: number;
};

/** The `monitor_rollup_states` table. */
export type MonitorRollupStatesRow = {
  tenant_id: string;
  seq: string;
};

/** The `otlp_pending_spans` table. */
export type OtlpPendingSpansRow = {
  tenant_id: string;
  trace_id: string;
  span_id: string;
  span: unknown;
  /** UTF-8 bytes of the span's JSON: the tenant's waiting spans are capped in bytes. */
  bytes: number;
  received_at: Date;
};

/** The `experiments` table. */
export type ExperimentsRow = {
  id: string;
  tenant_id: string;
  name: string;
  /** holdout or interleave */
  kind: string;
  /** running or paused */
  status: string;
  control_share: number;
  /** nothing, fixed_formula or bm25 */
  control: string;
  min_sample: number;
  seed: string;
  scope_work_item_id: string | null;
  scope_agent: string | null;
  scope_task_type: string | null;
  started_at: Date;
  paused_at: Date | null;
};

/** The `experiment_assignments` table. */
export type ExperimentAssignmentsRow = {
  experiment_id: string;
  episode_id: string;
  tenant_id: string;
  arm: string;
  assigned_at: Date;
};

/** The `otlp_span_events` table. */
export type OtlpSpanEventsRow = {
  tenant_id: string;
  trace_id: string;
  span_id: string;
  event_key: string;
  event: unknown;
  received_at: Date;
};

/** The `otlp_open_runs` table. */
export type OtlpOpenRunsRow = {
  tenant_id: string;
  run_key: string;
  episode_id: string;
  /** The latest end (span clock, Unix ms) of a span in the run: a later call within the idle gap joins it. */
  last_span_end_ms: string;
  /** When the run's latest span arrived (server clock): the run ends once this is older than the idle gap. */
  last_seen_at: Date;
};

/** The `otlp_refusal_counts` table. */
export type OtlpRefusalCountsRow = {
  tenant_id: string;
  kind: string;
  count: string;
  last_at: Date;
  last_trace_id: string;
  last_span_id: string;
  last_reason: string;
};
