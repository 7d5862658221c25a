// verifyLedger throughput on a realistic ledger (bench/verify-mix.ts: whole episodes with step
// rows, checkpoint states, critiques, outcomes, one signed tree head), as a ratio to raw BLAKE3
// (hash-wasm, the fastest here) over every byte that verification hashes, in the same run: chain
// inputs, step contents, the other hashed rows, Merkle leaves and inner nodes. Each is measured
// RUNS times and the best kept. Then the incremental check: a verifier that kept the state of the
// signed head checks only the last 1,000 events.
// Run: npm run bench:verify [N] [RUNS]   (defaults 200,000 and 3; BENCH_DATABASE_URL to use a server)
import { performance } from 'node:perf_hooks';
import { createBLAKE3 } from 'hash-wasm';
import type pg from 'pg';
import { CHAIN_DOMAIN_TAG, canonicalEntryBytes, canonicalJson, fromHex } from '../src/ledger/format/hash.ts';
import { stepHashedMembers, stepRowFromColumns } from '../src/ledger/format/step-hash.ts';
import { readEvents } from '../src/ledger/store/read.ts';
import { verifyStoredRange } from '../src/ledger/verification/verify-range.ts';
import { fmt, openBenchDatabase } from './support.ts';
import { writeMixLedger } from './verify-mix.ts';

const N = Number(process.argv[2] ?? 200_000);
const RUNS = Number(process.argv[3] ?? 3);
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
  for (let after = '00000000-0000-0000-0000-000000000000'; ; ) {
    const { rows } = await pool.query('SELECT * FROM steps WHERE tenant_id = $1 AND id > $2 ORDER BY id LIMIT $3', [tenantId, after, PAGE]);
    if (!rows.length) break;
    after = rows[rows.length - 1].id;
    const inputs = rows.map((r) => utf8.encode(canonicalJson(stepHashedMembers(stepRowFromColumns(r)))));
    bytes += inputs.reduce((n, b) => n + b.length, 0);
    seconds += hashAll(inputs);
  }
  // The other hashed rows: each episode's outcome, critique, reward and reflection, each checkpoint state.
  const { rows: values } = await pool.query(
    `SELECT v FROM episodes, LATERAL (VALUES (outcome), (critique), (reward), (reflection)) AS x(v) WHERE tenant_id = $1 AND v IS NOT NULL
     UNION ALL SELECT state FROM checkpoints WHERE tenant_id = $1`,
    [tenantId],
  );
  const rowInputs = values.map((r) => utf8.encode(canonicalJson(r.v)));
  bytes += rowInputs.reduce((n, b) => n + b.length, 0);
  seconds += hashAll(rowInputs);
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

    // Each measurement RUNS times, the best kept (the machine is shared: the best is the least
    // disturbed); the first full verification (cold: JIT, fresh connections) is printed too.
    const fullRuns: number[] = [];
    let full: Awaited<ReturnType<typeof verifyStoredRange>> | undefined;
    for (let i = 0; i < RUNS; i++) {
      t0 = performance.now();
      full = await verifyStoredRange(bench.db.pool, tenantId, { fromSeq: 1, toSeq: null }, ledger.publicKeyHex);
      fullRuns.push((performance.now() - t0) / 1000);
      if (!full.ok || full.checked !== ledger.events) throw new Error(`verification failed: ${JSON.stringify(full)}`);
    }
    const from = Math.max(1, ledger.events - 999);
    const tailRuns: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      t0 = performance.now();
      const tail = await verifyStoredRange(bench.db.pool, tenantId, { fromSeq: from, toSeq: null }, ledger.publicKeyHex);
      tailRuns.push((performance.now() - t0) / 1000);
      if (!tail.ok) throw new Error(`tail verification failed: ${JSON.stringify(tail)}`);
    }
    const rawRuns: number[] = [];
    let bytes = 0;
    for (let i = 0; i < RUNS; i++) {
      const raw = await rawBlake3Seconds(bench.db.pool, tenantId);
      rawRuns.push(raw.seconds);
      bytes = raw.bytes;
    }
    const [fullSeconds, tailSeconds, rawSeconds] = [fullRuns, tailRuns, rawRuns].map((runs) => Math.min(...runs)) as [number, number, number];
    const checked = full ?? { rowsChecked: 0, checkpointsChecked: 0 };
    console.log(
      `\nevents: ${fmt(ledger.events)} (${fmt(ledger.stepRows)} step rows, ${fmt(checked.rowsChecked)} other rows, ${fmt(checked.checkpointsChecked)} signed checkpoint; written in ${fmt(loadSeconds, 1)} s); ${fmt(bytes / 1e6, 1)} MB hashed; best of ${RUNS} runs each; node ${process.version}\n`,
    );
    console.log('| what | seconds | events/s | ratio to raw BLAKE3 |\n| --- | ---: | ---: | ---: |');
    const row = (name: string, s: number, events = ledger.events) => console.log(`| ${name} | ${fmt(s, 2)} | ${fmt(events / s)} | ${fmt(rawSeconds / s, 2)} |`);
    row('raw BLAKE3 (hash-wasm) over the same bytes', rawSeconds);
    row('verifyLedger path: chain + step rows + hashed rows + signed Merkle root', fullSeconds);
    row('the same, first run (cold)', fullRuns[0] ?? 0);
    console.log(
      `\nincremental: the last ${fmt(ledger.events - from + 1)} events (seq ${fmt(from)}..${fmt(ledger.events)}) with their step rows in ${fmt(tailSeconds * 1000, 0)} ms`,
    );
    console.log(
      `verify events=${ledger.events} ratio=${fmt(rawSeconds / fullSeconds, 2)} events_per_s=${Math.round(ledger.events / fullSeconds)} tail_1000_ms=${Math.round(tailSeconds * 1000)} runs_s=${fullRuns.map((x) => x.toFixed(2)).join(',')} raw_runs_s=${rawRuns.map((x) => x.toFixed(2)).join(',')}`,
    );
  } finally {
    await bench.close();
  }
}

await main();
