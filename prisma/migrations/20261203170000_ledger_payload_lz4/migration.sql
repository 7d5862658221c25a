-- A steps.logged event's payload (the call's steps' numbers and hashes, about 8 KB of JSON for 100
-- steps) is past the TOAST threshold, and pglz compressing it cost about 0.24 ms of PostgreSQL CPU
-- per event more than lz4 or no compression (2.4 us per journaled step, docs/BENCHMARKS.md issue
-- 55), for a third of its size. lz4 where the server has it (a little smaller than pglz: 6.9 KB
-- against 7.3 KB); where it has not (the embedded server), the payload is stored out of line
-- uncompressed (10.4 KB: about 30 bytes more per step, on the steps' 500). Values written before
-- keep their form; every form reads the same.
DO $$
BEGIN
  ALTER TABLE "ledger_events" ALTER COLUMN "payload" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  ALTER TABLE "ledger_events" ALTER COLUMN "payload" SET STORAGE EXTERNAL;
END $$;
