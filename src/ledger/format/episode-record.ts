// The episode's record as stored (docs/LEDGER.md §3.3 recordHash): what it was asked to do and in
// which context, the columns the API serves and retrieval and learning read. Written once, at the
// start; episode.started carries its contentHash, so an edit of the stored task is caught like an
// edited outcome. Pure: the server's start, verifyLedger and exports build it from the same columns.

/** The stored columns the record is made of (JSON columns parsed). */
export interface EpisodeRecordColumns {
  task_description: string;
  task_type: string;
  agent: string | null;
  language: string | null;
  framework: string | null;
  complexity: string;
  domain: string | null;
  tags: string[];
  goal_spec: unknown;
  metadata: unknown;
  parent_episode_id: string | null;
  import_source: unknown;
}

export const EPISODE_RECORD_COLUMNS =
  'task_description, task_type, agent, language, framework, complexity, domain, tags, goal_spec, metadata, parent_episode_id, import_source';

export function episodeRecord(c: EpisodeRecordColumns): Record<string, unknown> {
  return {
    taskDescription: c.task_description,
    taskType: c.task_type,
    agent: c.agent,
    context: { language: c.language, framework: c.framework, complexity: c.complexity, domain: c.domain, tags: c.tags },
    goalSpec: c.goal_spec ?? null,
    metadata: c.metadata ?? {},
    parentEpisodeId: c.parent_episode_id,
    importSource: c.import_source ?? null,
  };
}

/** The record from the columns an insert writes (JSON columns as their JSON text). */
export function episodeRecordOfInsert(columns: Record<string, unknown>): Record<string, unknown> {
  const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : null);
  return episodeRecord({
    ...(columns as unknown as EpisodeRecordColumns),
    goal_spec: json(columns.goal_spec),
    metadata: json(columns.metadata),
    import_source: json(columns.import_source),
  });
}

/**
 * What forgetting an episode leaves of its record (docs/LEDGER.md §3.4): no text the client sent.
 * complexity (one of four labels), the parent's id and the columns that are not in the record stay. As SQL assignments, and the check verifyLedger makes of a forgotten record.
 */
export const FORGOTTEN_RECORD_SET =
  "task_description = '', task_type = '', agent = NULL, language = NULL, framework = NULL, domain = NULL, tags = '{}', goal_spec = NULL, metadata = '{}', import_source = NULL";

export function isForgottenRecord(c: EpisodeRecordColumns): boolean {
  const metadata = c.metadata ?? {};
  return (
    c.task_description === '' &&
    c.task_type === '' &&
    c.agent === null &&
    c.language === null &&
    c.framework === null &&
    c.domain === null &&
    c.tags.length === 0 &&
    (c.goal_spec ?? null) === null &&
    (c.import_source ?? null) === null &&
    typeof metadata === 'object' &&
    metadata !== null &&
    Object.keys(metadata).length === 0
  );
}
