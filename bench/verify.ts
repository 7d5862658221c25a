// verifyLedger throughput (issue 4): N chained events stored in PostgreSQL, verified through the
// same code path as the verifyLedger query, as a ratio to raw BLAKE3 over the same bytes in the
// same run. Run: npm run bench:verify [N]   (default 1,000,000)
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { blake3 } from '@noble/hashes/blake3.js';
import { withTransaction } from '../src/db/tx.ts';
import { CHAIN_DOMAIN_TAG, canonicalEntryBytes, fromHex, type StoredLedgerEvent } from '../src/ledger/hash.ts';
import { appendEvents } from '../src/ledger/store.ts';
import { verifyChain } from '../src/ledger/verify.ts';
import { verifyStoredRange } from '../src/ledger/verify-range.ts';
import { fmt, openBenchDatabase } from './support.ts';

const N = Number(process.argv[2] ?? 1_000_000);
const CHUNK = 10_000;

/** Appends N events through the ledger's own append path (chained, in transactions of CHUNK). */
async function appendChain(pool: import('pg').Pool, tenantId: string): Promise<StoredLedgerEvent[]> {
  const events: StoredLedgerEvent[] = [];
  const episodeId = randomUUID();
  for (let first = 1; first <= N; first += CHUNK) {
    const chunk = Array.from({ length: Math.min(CHUNK, N - first + 1) }, (_, k) => {
      const n = first + k;
      return { type: 'episode.note', episodeId, payload: { note: `event ${n}`, tokens: n % 997, tags: ['bench', 'ledger'] } };
    });
    events.push(...(await withTransaction(pool, (client) => appendEvents(client, tenantId, chunk))));
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
    const events = await appendChain(bench.db.pool, tenantId);
    const loadSeconds = (performance.now() - t0) / 1000;

    // The stored path runs first, before the raw inputs below take memory of their own.
    t0 = performance.now();
    const stored = await verifyStoredRange(bench.db.pool, tenantId, { fromSeq: 1, toSeq: null }, '00'.repeat(32));
    const dbSeconds = (performance.now() - t0) / 1000;
    t0 = performance.now();
    const inMemory = verifyChain(events);
    const memSeconds = (performance.now() - t0) / 1000;
    const raw = rawBlake3(events);
    if (!inMemory.ok || !stored.ok || stored.checked !== N) throw new Error(`verification failed: ${JSON.stringify({ inMemory, stored })}`);

    console.log(`\nevents: ${fmt(N)} (chained and stored by the append path in ${fmt(loadSeconds, 1)} s); node ${process.version}\n`);
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
