// Merkle trees over each tenant's events and the signed checkpoints (tree heads) published from
// them, on the schedule docs/LEDGER.md §5 specifies: at every tree size that is a multiple of
// CHECKPOINT_EVERY_EVENTS, and at the head every CHECKPOINT_INTERVAL_MS when it moved (an empty
// ledger without a checkpoint counts as moved). Reads never publish one.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { LedgerCheckpointsRow } from '../../db/rows.ts';
import { insertInto, Params, queryRows } from '../../db/sql.ts';
import { GENESIS_HASH, type StoredLedgerEvent, toHex } from '../format/hash.ts';
import { eventLeafHash, MerkleTree } from '../format/merkle.ts';
import type { SignedTreeHead } from '../format/signed-head.ts';
import { readHead } from './read.ts';
import type { LedgerSigner } from './signer.ts';

const PAGE = 10_000;

/** Per-process trees, extended from the database as the ledger grows (leaves never change). */
export class TreeCache {
  private readonly trees = new Map<string, MerkleTree>();
  private readonly loading = new Map<string, Promise<MerkleTree>>();

  constructor(private readonly pool: pg.Pool) {}

  /** The tenant's tree with at least `size` leaves (events 1..size must be committed). */
  async atLeast(tenantId: string, size: number): Promise<MerkleTree> {
    const tree = this.trees.get(tenantId) ?? new MerkleTree();
    this.trees.set(tenantId, tree);
    if (tree.size >= size) return tree;
    // One loader per tenant at a time, so leaves are appended exactly once and in order.
    const pending = this.loading.get(tenantId) ?? Promise.resolve(tree);
    const next = pending.then(() => this.extend(tenantId, tree, size));
    this.loading.set(tenantId, next);
    return next;
  }

  private async extend(tenantId: string, tree: MerkleTree, size: number): Promise<MerkleTree> {
    while (tree.size < size) {
      const p = new Params();
      const rows = await queryRows<{ seq: string; hash: string }>(
        this.pool,
        `SELECT seq, hash FROM ledger_events WHERE tenant_id = ${p.add(tenantId)} AND seq > ${p.add(tree.size)} AND seq <= ${p.add(size)} ORDER BY seq LIMIT ${p.add(PAGE)}`,
        p,
      );
      if (!rows.length) throw new LedgerTamperedError(tenantId, tree.size + 1, `the ledger ends at seq ${tree.size}, seq ${size} was committed`);
      for (const r of rows) {
        if (Number(r.seq) !== tree.size + 1) throw new LedgerTamperedError(tenantId, tree.size + 1, `seq ${tree.size + 1} is missing before seq ${r.seq}`);
        tree.append(eventLeafHash(r.hash));
      }
    }
    return tree;
  }
}

/**
 * Stored events or checkpoints are gone (deleted in the database): the ledger cannot be extended
 * or signed honestly, so nothing is signed and the place is reported as tampering.
 */
class LedgerTamperedError extends Error {
  override name = 'LedgerTamperedError';
  constructor(
    readonly tenantId: string,
    readonly seq: number,
    readonly detail: string,
  ) {
    super(`ledger of tenant ${tenantId} was tampered with at seq ${seq}: ${detail}`);
  }
}

type CheckpointRow = LedgerCheckpointsRow;

/** The largest tree size ever signed for the tenant (0 when none): checkpoints are kept forever, so none is newer. */
async function signedMark(pool: pg.Pool, tenantId: string): Promise<number> {
  const p = new Params();
  const [row] = await queryRows<{ tree_size: string }>(pool, `SELECT tree_size FROM ledger_checkpoint_marks WHERE tenant_id = ${p.add(tenantId)}`, p);
  return Number(row?.tree_size ?? 0);
}

function toSigned(r: CheckpointRow): SignedTreeHead {
  return {
    tenantId: r.tenant_id,
    treeSize: Number(r.tree_size),
    rootHash: r.root_hash,
    headHash: r.head_hash,
    issuedAt: r.issued_at.toISOString(),
    signature: r.signature,
    keyId: r.key_id,
  };
}

export async function latestCheckpoint(pool: pg.Pool, tenantId: string): Promise<SignedTreeHead | null> {
  const p = new Params();
  const [row] = await queryRows<CheckpointRow>(
    pool,
    `SELECT * FROM ledger_checkpoints WHERE tenant_id = ${p.add(tenantId)} ORDER BY tree_size DESC LIMIT 1`,
    p,
  );
  return row ? toSigned(row) : null;
}

/** Every signed checkpoint with treeSize > afterSize, oldest first, at most `limit`. */
export async function listCheckpoints(pool: pg.Pool, tenantId: string, afterSize: number, limit: number): Promise<SignedTreeHead[]> {
  const p = new Params();
  const rows = await queryRows<CheckpointRow>(
    pool,
    `SELECT * FROM ledger_checkpoints WHERE tenant_id = ${p.add(tenantId)} AND tree_size > ${p.add(afterSize)} ORDER BY tree_size LIMIT ${p.add(limit)}`,
    p,
  );
  return rows.map(toSigned);
}

/** Tree sizes in (after, upTo] that are multiples of `every`: the sizes a commit must checkpoint. */
function scheduledSizes(after: number, upTo: number, every: number): number[] {
  const sizes: number[] = [];
  for (let size = (Math.floor(after / every) + 1) * every; size <= upTo; size += every) sizes.push(size);
  return sizes;
}

export class CheckpointPublisher {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: pg.Pool,
    readonly trees: TreeCache,
    readonly signer: LedgerSigner,
    private readonly log: Logger,
    readonly opts: { intervalMs: number; everyEvents: number },
  ) {}

  /** Signs and stores a checkpoint of the first `treeSize` events (events 1..treeSize must be committed). */
  async publishAt(tenantId: string, treeSize: number): Promise<SignedTreeHead> {
    const tree = await this.trees.atLeast(tenantId, treeSize);
    const headHash = treeSize === 0 ? GENESIS_HASH : await this.hashOf(tenantId, treeSize);
    const signed = this.signer.sign({ tenantId, treeSize, rootHash: toHex(tree.root(treeSize)), headHash, issuedAt: new Date().toISOString() });
    // Another process may have signed this size first: the stored one stands.
    const p = new Params();
    const insert = insertInto(p, 'ledger_checkpoints', {
      tenant_id: tenantId,
      tree_size: treeSize,
      root_hash: signed.rootHash,
      head_hash: signed.headHash,
      issued_at: signed.issuedAt,
      signature: signed.signature,
      key_id: signed.keyId,
    });
    // The mark moves with the insert, in one statement: a checkpoint stored is never newer than it.
    const sql = `WITH ins AS (${insert} ON CONFLICT DO NOTHING RETURNING *),
       mark AS (INSERT INTO ledger_checkpoint_marks (tenant_id, tree_size) SELECT tenant_id, tree_size FROM ins
         ON CONFLICT (tenant_id) DO UPDATE SET tree_size = GREATEST(ledger_checkpoint_marks.tree_size, EXCLUDED.tree_size))
       SELECT * FROM ins UNION ALL
       SELECT * FROM ledger_checkpoints WHERE tenant_id = ${p.add(tenantId)} AND tree_size = ${p.add(treeSize)} AND NOT EXISTS (SELECT 1 FROM ins)`;
    const [stored] = await queryRows<CheckpointRow>(this.pool, sql, p);
    return stored ? toSigned(stored) : signed;
  }

  /**
   * Signs the tenant's current head unless a checkpoint already covers it (the timer's step).
   * A newest checkpoint below the signed mark was deleted: signing the head again would hide that
   * behind a fresh issuedAt, so it is refused as tampering.
   */
  async publish(tenantId: string): Promise<SignedTreeHead> {
    // The mark first: a checkpoint another process signs meanwhile then shows in `latest` too.
    const mark = await signedMark(this.pool, tenantId);
    const head = await readHead(this.pool, tenantId);
    const latest = await latestCheckpoint(this.pool, tenantId);
    if ((latest?.treeSize ?? 0) < mark) throw new LedgerTamperedError(tenantId, mark, `checkpoint ${mark} was signed and is gone`);
    if (latest && latest.treeSize >= head.seq) return latest;
    return this.publishAt(tenantId, head.seq);
  }

  /** Called after each commit: signs every multiple of `everyEvents` the commit reached. */
  committed(tenantId: string, events: readonly StoredLedgerEvent[]) {
    const first = events[0]?.seq;
    const last = events.at(-1)?.seq;
    if (first === undefined || last === undefined) return;
    for (const size of scheduledSizes(first - 1, last, this.opts.everyEvents)) {
      void this.attempt(() => this.publishAt(tenantId, size), tenantId);
    }
  }

  start() {
    this.timer = setInterval(() => void this.publishDue(), this.opts.intervalMs);
    this.timer.unref();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
  }

  /**
   * The timer's run: scheduled sizes a stopped process left unsigned, then the head of every
   * tenant whose head moved past its latest checkpoint (a tenant with none gets the empty tree).
   */
  async publishDue(): Promise<number> {
    try {
      const p = new Params();
      const every = p.add(this.opts.everyEvents);
      const missed = await queryRows<{ tenant_id: string; size: string }>(
        this.pool,
        `SELECT h.tenant_id, m.size FROM ledger_heads h CROSS JOIN LATERAL generate_series(${every}::bigint, h.seq, ${every}::bigint) AS m(size)
          WHERE NOT EXISTS (SELECT 1 FROM ledger_checkpoints c WHERE c.tenant_id = h.tenant_id AND c.tree_size = m.size)
          ORDER BY h.tenant_id, m.size`,
        p,
      );
      // One tenant's failure (a tampered ledger) stops neither the others nor its other sizes.
      let signed = 0;
      for (const r of missed) signed += await this.attempt(() => this.publishAt(r.tenant_id, Number(r.size)), r.tenant_id);
      const { rows } = await this.pool.query<{ id: string }>(
        `SELECT t.id FROM tenants t LEFT JOIN ledger_heads h ON h.tenant_id = t.id
          WHERE COALESCE(h.seq, 0) > COALESCE((SELECT max(tree_size) FROM ledger_checkpoints c WHERE c.tenant_id = t.id), -1)`,
      );
      for (const r of rows) signed += await this.attempt(() => this.publish(r.id), r.id);
      return signed;
    } catch (err) {
      this.log.error({ err }, 'periodic checkpoint failed');
      return 0;
    }
  }

  /** 1 when signed; a tampered ledger is logged as such (tenant and seq), any other failure as one. */
  private async attempt(sign: () => Promise<SignedTreeHead>, tenantId: string): Promise<number> {
    try {
      await sign();
      return 1;
    } catch (err) {
      if (err instanceof LedgerTamperedError) this.log.error({ tenantId, seq: err.seq, tampering: true }, err.message);
      else this.log.error({ err, tenantId }, 'periodic checkpoint failed');
      return 0;
    }
  }

  private async hashOf(tenantId: string, seq: number): Promise<string> {
    const p = new Params();
    const [row] = await queryRows<{ hash: string }>(
      this.pool,
      `SELECT hash FROM ledger_events WHERE tenant_id = ${p.add(tenantId)} AND seq = ${p.add(seq)}`,
      p,
    );
    if (!row) throw new LedgerTamperedError(tenantId, seq, `event ${seq} was committed and is gone`);
    return row.hash;
  }
}
