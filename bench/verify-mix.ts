// A ledger shaped like real use, written straight into a bench database for bench/verify.ts:
// whole episodes of 24 events (episode.started, 20 steps.logged covering 1-3 stored step rows
// each, checkpoint.saved with its state row, critique.recorded, episode.completed), the domain
// rows those events hash (episodes.outcome, critique, reward, reflection; checkpoints.state), and
// one Ed25519-signed tree head over the whole ledger. The rows go in with multi-row SQL; the
// events go through the ledger's own append path, so their hashes are the server's.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { NewLedgerEvent } from '../src/core/write-context.ts';
import { withTransaction } from '../src/db/tx.ts';
import { contentHash, type StoredLedgerEvent, toHex } from '../src/ledger/format/hash.ts';
import { eventLeafHash, MerkleTree } from '../src/ledger/format/merkle.ts';
import { generateSigningKey } from '../src/ledger/format/signed-head.ts';
import { signerFromKey } from '../src/ledger/store/signer.ts';
import { appendEvents } from '../src/ledger/store/store.ts';
import { type HashedStep, prepareSteps } from '../src/steps/prepare.ts';
import { insertSteps, type StepRowToInsert } from '../src/steps/store.ts';

export const EVENTS_PER_EPISODE = 24;
const STEP_EVENTS = 20;
const INPUT_HASH = contentHash({ taskDescription: 'fix the failing test', taskType: 'coding' });

export interface MixLedger {
  tenantId: string;
  events: number;
  stepRows: number;
  publicKeyHex: string;
}

const output = (n: number) => `${'line of tool output '.repeat(18)}#${n}`;

function episodeSteps(episodeId: string, k: number): HashedStep[] {
  const count = STEP_EVENTS * 2; // 40 steps over 20 events: 1-3 per event
  return prepareSteps(
    episodeId,
    Array.from({ length: count }, (_, i) => ({
      kind: 'tool_call',
      tool: 'bash',
      action: `run ${i}`,
      parameters: { command: `grep -rn pattern_${k}_${i} src/` },
      result: { kind: 'success' as const, output: output(i) },
      observation: `observed ${i}`,
      tokens: 100 + i,
      worldAfter: { cwd: '/repo', files: [`src/file_${i % 7}.py`] },
    })),
    [],
  );
}

/** How 40 steps split over 20 events: sizes 1, 2, 3, 2, 1, 2, 3, 2, ... (sum 40). */
function stepGroups(): number[][] {
  const sizes = Array.from({ length: STEP_EVENTS }, (_, i) => [1, 2, 3, 2][i % 4] ?? 2);
  const groups: number[][] = [];
  let next = 1;
  for (const size of sizes) {
    groups.push(Array.from({ length: size }, (_, j) => next + j));
    next += size;
  }
  return groups;
}

interface EpisodeRows {
  id: string;
  outcome: unknown;
  critique: unknown;
  reward: unknown;
  reflection: unknown;
  checkpointId: string;
  state: unknown;
}

function episodeRows(k: number): EpisodeRows {
  return {
    id: randomUUID(),
    outcome: { kind: 'success', verdict: `done ${k}`, artifacts: [`patch-${k}.diff`] },
    critique: { verdict: 'pass', score: 0.8, feedback: null, virtueScores: [{ name: 'care', score: 0.9 }] },
    reward: { normalized: 0.7, base: 0.6, efficiency: 0.1 },
    reflection: { successes: [`step ${k % 40}`], improvements: [], insights: ['read before writing'] },
    checkpointId: randomUUID(),
    state: { cursor: k, files: ['a.py', 'b.py'], note: 'mid-run state' },
  };
}

async function insertEpisodeRows(client: pg.PoolClient, tenantId: string, rows: EpisodeRows[]): Promise<void> {
  const json = (f: (r: EpisodeRows) => unknown) => rows.map((r) => JSON.stringify(f(r)));
  await client.query(
    `INSERT INTO episodes (id, tenant_id, task_description, task_type, status, input_hash, outcome, critique, reward, reflection)
     SELECT id, $1, 'fix the failing test', 'coding', 'completed', $7, o, c, r, f
       FROM unnest($2::uuid[], $3::jsonb[], $4::jsonb[], $5::jsonb[], $6::jsonb[]) AS u(id, o, c, r, f)`,
    [tenantId, rows.map((r) => r.id), json((r) => r.outcome), json((r) => r.critique), json((r) => r.reward), json((r) => r.reflection), INPUT_HASH],
  );
}

async function insertCheckpointRows(client: pg.PoolClient, tenantId: string, rows: EpisodeRows[]): Promise<void> {
  await client.query(
    `INSERT INTO checkpoints (id, tenant_id, episode_id, step_number, state)
     SELECT id, $1, e, 20, s FROM unnest($2::uuid[], $3::uuid[], $4::jsonb[]) AS u(id, e, s)`,
    [tenantId, rows.map((r) => r.checkpointId), rows.map((r) => r.id), rows.map((r) => JSON.stringify(r.state))],
  );
}

function episodeEvents(r: EpisodeRows, steps: HashedStep[]): NewLedgerEvent[] {
  const experience = { rewardHash: contentHash(r.reward), reflectionHash: contentHash(r.reflection) };
  const base = { episodeId: r.id, workItemId: null };
  return [
    { ...base, type: 'episode.started', payload: { inputHash: INPUT_HASH } },
    ...stepGroups().map((numbers) => ({
      ...base,
      type: 'steps.logged',
      payload: { steps: numbers.map((n) => ({ n, hash: steps[n - 1]?.contentHash ?? '' })) },
    })),
    { ...base, type: 'checkpoint.saved', payload: { checkpointId: r.checkpointId, stateHash: contentHash(r.state) } },
    { ...base, type: 'critique.recorded', payload: { critiqueHash: contentHash(r.critique), experience } },
    { ...base, type: 'episode.completed', payload: { outcomeHash: contentHash(r.outcome), experience } },
  ];
}

/** Writes episodes until `events` events are stored (a multiple of 24), in transactions of ~10,000 events. */
export async function writeMixLedger(pool: pg.Pool, tenantId: string, events: number): Promise<MixLedger> {
  const episodes = Math.ceil(events / EVENTS_PER_EPISODE);
  const perChunk = Math.floor(10_000 / EVENTS_PER_EPISODE);
  let stepRows = 0;
  const stored: StoredLedgerEvent[] = [];
  for (let first = 0; first < episodes; first += perChunk) {
    const rows = Array.from({ length: Math.min(perChunk, episodes - first) }, (_, i) => episodeRows(first + i));
    const steps = rows.map((r, i) => episodeSteps(r.id, first + i));
    const written = await withTransaction(pool, async (client) => {
      await insertEpisodeRows(client, tenantId, rows);
      const stepRowsToInsert: StepRowToInsert[] = rows.flatMap((r, i) =>
        (steps[i] ?? []).map((step, j) => ({ tenantId, episodeId: r.id, stepNumber: j + 1, contentHash: step.contentHash, step })),
      );
      await insertSteps(client, stepRowsToInsert, []);
      await insertCheckpointRows(client, tenantId, rows);
      stepRows += stepRowsToInsert.length;
      return appendEvents(
        client,
        tenantId,
        rows.flatMap((r, i) => episodeEvents(r, steps[i] ?? [])),
      );
    });
    for (const e of written) stored.push({ ...e, payload: null });
  }
  const publicKeyHex = await signWholeLedger(pool, tenantId, stored);
  return { tenantId, events: stored.length, stepRows, publicKeyHex };
}

async function signWholeLedger(pool: pg.Pool, tenantId: string, events: StoredLedgerEvent[]): Promise<string> {
  const tree = new MerkleTree();
  for (const e of events) tree.append(eventLeafHash(e.hash));
  const signer = signerFromKey(generateSigningKey());
  const head = events.at(-1);
  if (!head) throw new Error('empty ledger');
  const signed = signer.sign({ tenantId, treeSize: events.length, rootHash: toHex(tree.root()), headHash: head.hash, issuedAt: new Date().toISOString() });
  await pool.query('INSERT INTO ledger_checkpoints (tenant_id, tree_size, root_hash, head_hash, issued_at, signature, key_id) VALUES ($1,$2,$3,$4,$5,$6,$7)', [
    tenantId,
    signed.treeSize,
    signed.rootHash,
    signed.headHash,
    signed.issuedAt,
    signed.signature,
    signed.keyId,
  ]);
  return signer.publicKeyHex;
}
