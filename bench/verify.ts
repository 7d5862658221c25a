// verifyLedger throughput (issue 4): N chained events stored in PostgreSQL, verified through the
// same code path as the verifyLedger query, as a ratio to raw BLAKE3 over the same bytes in the
// same run. Run: npm run bench:verify [N]   (default 1,000,000)
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { blake3 } from '@noble/hashes/blake3.js';
import { CHAIN_DOMAIN_TAG, canonicalEntryBytes, chainHash, fromHex, GENESIS_HASH, type StoredLedgerEvent } from '../src/ledger/hash.ts';
import { verifyChain } from '../src/ledger/verify.ts';
import { verifyStoredRange } from '../src/ledger/verify-range.ts';
import { fmt, openBenchDatabase } from './support.ts';

const N = Number(process.argv[2] ?? 1_000_000);
const CHUNK = 10_000;

function buildChain(tenantId: string): StoredLedgerEvent[] {
  const events: StoredLedgerEvent[] = [];
  let prevHash = GENESIS_HASH;
  const episodeId = randomUUID();
  const createdAt = new Date().toISOString();
  for (let seq = 1; seq <= N; seq++) {
    const entry = { tenantId, seq, type: 'episode.note', episodeId, workItemId: null, payload: { note: `event ${seq}`, tokens: seq % 997, tags: ['bench', 'ledger'] }, createdAt };
    const hash = chainHash(prevHash, entry);
    events.push({ ...entry, prevHash, hash });
    prevHash = hash;
  }
  return events;
}

function rawBlake3(events: StoredLedgerEvent[]): number {
  // The same bytes the chain hashes: tag || prevHash || canonical entry, prepared before timing.
  const inputs = events.map((e) => {
    const entry = canonicalEntryBytes(e);
    const buf = new Uint8Array(CHAIN_DOMAIN_TAG.length + 32 + entry.length);
    buf.set(CHAIN_DOMAIN_TAG);
    buf.set(fromHex(e.prevHash, 32), CHAIN_DOMAIN_TAG.length);
    buf.set(entry, CHAIN_DOMAIN_TAG.length + 32);
    return buf;
  });
  const t0 = performance.now();
  for (const input of inputs) blake3(input);
  return (performance.now() - t0) / 1000;
}

async function main() {
  const bench = await openBenchDatabase();
  try {
    const { rows } = await bench.db.pool.query(`INSERT INTO tenants (name) VALUES ('verify-bench') RETURNING id`);
    const tenantId = rows[0].id as string;
    let t0 = performance.now();
    const events = buildChain(tenantId);
    const buildSeconds = (performance.now() - t0) / 1000;
    t0 = performance.now();
    for (let i = 0; i < events.length; i += CHUNK) {
      const chunk = events.slice(i, i + CHUNK);
      await bench.db.pool.query(
        `INSERT INTO ledger_events (tenant_id, seq, type, episode_id, work_item_id, payload, prev_hash, hash, created_at)
         SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::uuid[], $5::uuid[], $6::jsonb[], $7::text[], $8::text[], $9::timestamptz[])`,
        [tenantId, chunk.map((e) => e.seq), chunk.map((e) => e.type), chunk.map((e) => e.episodeId), chunk.map(() => null),
         chunk.map((e) => JSON.stringify(e.payload)), chunk.map((e) => e.prevHash), chunk.map((e) => e.hash), chunk.map((e) => e.createdAt)],
      );
    }
    const loadSeconds = (performance.now() - t0) / 1000;

    // The stored path runs first, before the raw inputs below take memory of their own.
    t0 = performance.now();
    const stored = await verifyStoredRange(bench.db.pool, tenantId, 1, null, null, '');
    const dbSeconds = (performance.now() - t0) / 1000;
    t0 = performance.now();
    const inMemory = verifyChain(events);
    const memSeconds = (performance.now() - t0) / 1000;
    const raw = rawBlake3(events);
    if (!inMemory.ok || !stored.ok || stored.checked !== N) throw new Error(`verification failed: ${JSON.stringify({ inMemory, stored })}`);

    console.log(`\nevents: ${fmt(N)} (built and chained in ${fmt(buildSeconds, 1)} s, stored in ${fmt(loadSeconds, 1)} s); node ${process.version}\n`);
    console.log('| what | seconds | events/s | ratio to raw BLAKE3 |\n| --- | ---: | ---: | ---: |');
    const row = (name: string, s: number) => console.log(`| ${name} | ${fmt(s, 2)} | ${fmt(N / s)} | ${fmt(raw / s, 2)} |`);
    row('raw BLAKE3 over the same bytes (tag, prevHash, canonical entry)', raw);
    row('verifyChain in memory (canonical JSON + BLAKE3 + links)', memSeconds);
    row('verifyLedger path: read from PostgreSQL in pages + verifyChain', dbSeconds);
  } finally {
    await bench.close();
  }
}

await main();
