// verifyLedger throughput on a realistic ledger (bench/verify-mix.ts: whole episodes with step
// rows, checkpoint states, critiques, outcomes, one signed tree head), as a ratio to raw BLAKE3
// (hash-wasm, the fastest here) over every byte that verification hashes, in the same run: chain
// inputs, step contents, the other hashed rows, Merkle leaves and inner nodes. Then the incremental
// check: a verifier that kept the state of the signed head checks only the last 1,000 events.
// Run: npm run bench:verify [N]   (default 200,000; BENCH_DATABASE_URL to use a server)
import { performance } from 'node:perf_hooks';
import { createBLAKE3 } from 'hash-wasm';
import type pg from 'pg';
import { CHAIN_DOMAIN_TAG, canonicalEntryBytes, canonicalJson, fromHex } from '../src/ledger/hash.ts';
import { readEvents } from '../src/ledger/read.ts';
import { stepRowFromColumns } from '../src/ledger/step-hash.ts';
import { verifyStoredRange } from '../src/ledger/verify-range.ts';
import { fmt, openBenchDatabase } from './support.ts';
import { writeMixLedger } from './verify-mix.ts';

const N = Number(process.argv[2] ?? 200_000);
const PAGE = 20_000;
const utf8 = new TextEncoder();

/** Seconds raw BLAKE3 takes over the same bytes; inputs are prepared page by page, untimed. */
async function rawBlake3Seconds(pool: pg.Pool, tenantId: string): Promise<{ seconds: number; bytes: number }> {
  const hasher = await createBLAKE3();
  const hashAll = (inputs: Uint8Array[]) => {
    const t0 = performance.now();
    for (const input of inputs) {
      hasher.init();
      hasher.update(input);
      hasher.digest('binary');
    }
    return (performance.now() - t0) / 1000;
  };
  let seconds = 0;
  let bytes = 0;
  let leaves = 0;
  for (let after = 0; ; after += PAGE) {
    const events = await readEvents(pool, tenantId, { afterSeq: after, limit: PAGE });
    if (!events.length) break;
    const inputs = events.map((e) => {
      const entry = canonicalEntryBytes(e);
      const buf = new Uint8Array(CHAIN_DOMAIN_TAG.length + 32 + entry.length);
      buf.set(CHAIN_DOMAIN_TAG);
      buf.set(fromHex(e.prevHash, 32), CHAIN_DOMAIN_TAG.length);
      buf.set(entry, CHAIN_DOMAIN_TAG.length + 32);
      return buf;
    });
    leaves += events.length;
    bytes += inputs.reduce((n, b) => n + b.length, 0);
    seconds += hashAll(inputs);
  }
  for (let after = 0; ; after += PAGE) {
    const { rows } = await pool.query('SELECT * FROM steps WHERE tenant_id = $1 ORDER BY id LIMIT $2 OFFSET $3', [tenantId, PAGE, after]);
    if (!rows.length) break;
    const inputs = rows.map((r) => utf8.encode(canonicalJson(stepRowFromColumns(r))));
    bytes += inputs.reduce((n, b) => n + b.length, 0);
    seconds += hashAll(inputs);
  }
  // Merkle: n leaves of 33 bytes and n - 1 inner nodes of 65 bytes.
  const leafInputs = Array.from({ length: leaves }, () => new Uint8Array(33));
  const nodeInputs = Array.from({ length: Math.max(leaves - 1, 0) }, () => new Uint8Array(65));
  seconds += hashAll(leafInputs) + hashAll(nodeInputs);
  bytes += leaves * 33 + Math.max(leaves - 1, 0) * 65;
  return { seconds, bytes };
}

async function main() {
  const bench = await openBenchDatabase();
  try {
    const { rows } = await bench.db.pool.query(`INSERT INTO tenants (name) VALUES ('verify-bench') RETURNING id`);
    const tenantId = rows[0].id as string;
    let t0 = performance.now();
    const ledger = await writeMixLedger(bench.db.pool, tenantId, N);
    const loadSeconds = (performance.now() - t0) / 1000;
    for (const table of ['ledger_events', 'steps', 'episodes', 'checkpoints']) await bench.db.pool.query(`VACUUM ANALYZE ${table}`);

    t0 = performance.now();
    const full = await verifyStoredRange(bench.db.pool, tenantId, { fromSeq: 1, toSeq: null }, ledger.publicKeyHex);
    const fullSeconds = (performance.now() - t0) / 1000;
    if (!full.ok || full.checked !== ledger.events) throw new Error(`verification failed: ${JSON.stringify(full)}`);

    const from = Math.max(1, ledger.events - 999);
    t0 = performance.now();
    const tail = await verifyStoredRange(bench.db.pool, tenantId, { fromSeq: from, toSeq: null }, ledger.publicKeyHex);
    const tailSeconds = (performance.now() - t0) / 1000;
    if (!tail.ok) throw new Error(`tail verification failed: ${JSON.stringify(tail)}`);

    const raw = await rawBlake3Seconds(bench.db.pool, tenantId);
    console.log(
      `\nevents: ${fmt(ledger.events)} (${fmt(ledger.stepRows)} step rows, ${fmt(full.rowsChecked)} other rows, ${fmt(full.checkpointsChecked)} signed checkpoint; written in ${fmt(loadSeconds, 1)} s); ${fmt(raw.bytes / 1e6, 1)} MB hashed; node ${process.version}\n`,
    );
    console.log('| what | seconds | events/s | ratio to raw BLAKE3 |\n| --- | ---: | ---: | ---: |');
    const row = (name: string, s: number, events = ledger.events) =>
      console.log(`| ${name} | ${fmt(s, 2)} | ${fmt(events / s)} | ${fmt(raw.seconds / s, 2)} |`);
    row('raw BLAKE3 (hash-wasm) over the same bytes', raw.seconds);
    row('verifyLedger path: chain + step rows + hashed rows + signed Merkle root', fullSeconds);
    console.log(
      `\nincremental: the last ${fmt(ledger.events - from + 1)} events (seq ${fmt(from)}..${fmt(ledger.events)}) with their step rows in ${fmt(tailSeconds * 1000, 0)} ms`,
    );
    console.log(
      `verify events=${ledger.events} ratio=${fmt(raw.seconds / fullSeconds, 2)} events_per_s=${Math.round(ledger.events / fullSeconds)} tail_1000_ms=${Math.round(tailSeconds * 1000)}`,
    );
  } finally {
    await bench.close();
  }
}

await main();
