// Merkle trees over each tenant's events and the signed checkpoints (tree heads) published from
// them: at least every CHECKPOINT_INTERVAL_MS and every CHECKPOINT_EVERY_EVENTS events, so a
// cut-off tail is detectable, not only a changed event.
import type pg from 'pg';
import type { Logger } from 'pino';
import { GENESIS_HASH, toHex } from './hash.ts';
import { eventLeafHash, MerkleTree } from './merkle.ts';
import { readHead } from './read.ts';
import type { SignedTreeHead } from './signed-head.ts';
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
      const { rows } = await this.pool.query<{ seq: string; hash: string }>(
        'SELECT seq, hash FROM ledger_events WHERE tenant_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4',
        [tenantId, tree.size, size, PAGE],
      );
      if (!rows.length) throw new Error(`ledger of tenant ${tenantId} has ${tree.size} events, expected ${size}`);
      for (const r of rows) {
        if (Number(r.seq) !== tree.size + 1) throw new Error(`ledger of tenant ${tenantId} has a gap before seq ${r.seq}`);
        tree.append(eventLeafHash(r.hash));
      }
    }
    return tree;
  }
}

function toSigned(r: any): SignedTreeHead {
  return {
    tenantId: r.tenant_id,
    treeSize: Number(r.tree_size),
    rootHash: r.root_hash,
    headHash: r.head_hash,
    issuedAt: (r.issued_at as Date).toISOString(),
    signature: r.signature,
    keyId: r.key_id,
  };
}

export async function latestCheckpoint(pool: pg.Pool, tenantId: string): Promise<SignedTreeHead | null> {
  const { rows } = await pool.query('SELECT * FROM ledger_checkpoints WHERE tenant_id = $1 ORDER BY tree_size DESC LIMIT 1', [tenantId]);
  return rows.length ? toSigned(rows[0]) : null;
}

export class CheckpointPublisher {
  private timer: NodeJS.Timeout | null = null;
  private readonly sinceLast = new Map<string, number>();

  constructor(
    private readonly pool: pg.Pool,
    readonly trees: TreeCache,
    readonly signer: LedgerSigner,
    private readonly log: Logger,
    private readonly opts: { intervalMs: number; everyEvents: number },
  ) {}

  /** Signs and stores a checkpoint at the tenant's current head (no-op when it is already covered). */
  async publish(tenantId: string): Promise<SignedTreeHead> {
    const head = await readHead(this.pool, tenantId);
    const latest = await latestCheckpoint(this.pool, tenantId);
    if (latest && latest.treeSize >= head.seq) return latest;
    const tree = await this.trees.atLeast(tenantId, head.seq);
    const signed = this.signer.sign({
      tenantId,
      treeSize: head.seq,
      rootHash: toHex(tree.root(head.seq)),
      headHash: head.hash ?? GENESIS_HASH,
      issuedAt: new Date().toISOString(),
    });
    await this.pool.query(
      `INSERT INTO ledger_checkpoints (tenant_id, tree_size, root_hash, head_hash, issued_at, signature, key_id)
       VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT DO NOTHING`,
      [tenantId, signed.treeSize, signed.rootHash, signed.headHash, signed.issuedAt, signed.signature, signed.keyId],
    );
    this.sinceLast.set(tenantId, 0);
    return signed;
  }

  /** Called after each commit: publish once a tenant has gathered `everyEvents` unpublished events. */
  committed(tenantId: string, count: number) {
    const n = (this.sinceLast.get(tenantId) ?? 0) + count;
    this.sinceLast.set(tenantId, n);
    if (n >= this.opts.everyEvents) {
      this.sinceLast.set(tenantId, 0);
      this.publish(tenantId).catch((err) => this.log.error({ err, tenantId }, 'checkpoint failed'));
    }
  }

  start() {
    this.timer = setInterval(() => void this.publishDue(), this.opts.intervalMs);
    this.timer.unref();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
  }

  /** Every tenant whose head moved past its latest checkpoint. */
  async publishDue(): Promise<number> {
    try {
      const { rows } = await this.pool.query<{ tenant_id: string }>(
        `SELECT h.tenant_id FROM ledger_heads h
          WHERE h.seq > COALESCE((SELECT max(tree_size) FROM ledger_checkpoints c WHERE c.tenant_id = h.tenant_id), 0)`,
      );
      for (const r of rows) await this.publish(r.tenant_id);
      return rows.length;
    } catch (err) {
      this.log.error({ err }, 'periodic checkpoint failed');
      return 0;
    }
  }
}
