// Randomized tamper detection: thousands of single mutations of a 2,000-event chain, each on a
// copy, each with the seq the verifier must report computed from the mutation itself.
// Replay a failure with LEDGER_FUZZ_SEED=<seed printed in the assertion message>. Both random loops
// are CPU-bound hashing (7.5 s and 2.3 s idle, 8x that at load 8-9): they run their full count on
// an idle machine and stop at a time budget on a busy one (test/support/budget.ts).
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { chainHash, GENESIS_HASH, type StoredLedgerEvent, toHex } from '../../src/ledger/format/hash.ts';
import { MerkleTree } from '../../src/ledger/format/merkle.ts';
import { generateSigningKey, publicKeyFromPrivate, type SignedTreeHead, signTreeHead } from '../../src/ledger/format/signed-head.ts';
import { type ChainReport, type LedgerProblem, verifyAgainstCheckpoint, verifyChain } from '../../src/ledger/proofs/verify.ts';
import { budgetTimeout, runTrials, type TrialBudget } from '../support/budget.ts';
import { buildChain, link, seededRandom } from './fixtures.ts';

const CHAIN_LENGTH = 2000;
/** 4,000 mutations idle (1.9 ms each); at least 50 of each of the 7 kinds, whatever the load. */
const MUTATIONS: TrialBudget = { min: 350, max: 4000, budgetMs: 15_000 };
const FULL_CHAIN_EVERY = 50; // other mutations verify a random window around the mutation
/** 150 cuts idle (15 ms each: a Merkle tree of the kept events per cut). */
const CUT_TAILS: TrialBudget = { min: 30, max: 150, budgetMs: 5_000 };

const seed = Number(process.env.LEDGER_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 32));
const random = seededRandom(seed);
const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));

const chain = buildChain(CHAIN_LENGTH);
const at = (seq: number) => must(chain[seq - 1]);

interface Expectation {
  seq?: number; // undefined: the mutation must go unnoticed (it changes nothing hashed)
  problem?: LedgerProblem;
}

/** A mutation of the event at position `i` (0-based) of a window copy; returns what the verifier must say. */
type Mutation = (events: StoredLedgerEvent[], i: number) => Expectation;

const mutations: Record<string, { needsNext: boolean; apply: Mutation }> = {
  'tamper payload': {
    needsNext: false,
    apply: (events, i) => {
      const e = must(events[i]);
      events[i] = { ...e, payload: { ...(e.payload as object), tokens: random() } };
      return { seq: e.seq, problem: 'hash-mismatch' };
    },
  },
  'tamper another field': {
    needsNext: false,
    apply: (events, i) => {
      const e = must(events[i]);
      const forgeries: Partial<StoredLedgerEvent>[] = [
        { type: 'episode.cancelled' },
        { createdAt: new Date(Date.parse(e.createdAt) + 1).toISOString() },
        { episodeId: null },
        { workItemId: e.workItemId === null ? e.episodeId : null },
        { seq: e.seq + 0.5 },
      ];
      const forgery = must(forgeries[between(0, forgeries.length - 1)]);
      events[i] = { ...e, ...forgery };
      return { seq: e.seq, problem: 'seq' in forgery ? 'malformed' : 'hash-mismatch' };
    },
  },
  'tamper and re-hash': {
    needsNext: true,
    apply: (events, i) => {
      const e = { ...must(events[i]), payload: `forged ${random()}` };
      events[i] = { ...e, hash: chainHash(e.prevHash, e) };
      return { seq: e.seq + 1, problem: 'prev-hash-mismatch' };
    },
  },
  'break prevHash link': {
    needsNext: false,
    apply: (events, i) => {
      const e = must(events[i]);
      events[i] = { ...e, prevHash: toHex(crypto.getRandomValues(new Uint8Array(32))) };
      return { seq: e.seq, problem: 'prev-hash-mismatch' };
    },
  },
  'delete event': {
    needsNext: true, // deleting the last event of a range is invisible to a chain alone
    apply: (events, i) => {
      const [e] = events.splice(i, 1);
      return { seq: must(e).seq, problem: 'seq-gap' };
    },
  },
  'swap adjacent pair': {
    needsNext: true,
    apply: (events, i) => {
      [events[i], events[i + 1]] = [must(events[i + 1]), must(events[i])];
      return { seq: must(events[i + 1]).seq, problem: 'seq-order' };
    },
  },
  'reorder payload keys (harmless)': {
    needsNext: false,
    apply: (events, i) => {
      const e = must(events[i]);
      const reversed = Object.fromEntries(Object.entries(e.payload as object).reverse());
      events[i] = { ...e, payload: reversed };
      return {};
    },
  },
};
const mutationNames = Object.keys(mutations);

/** A random contiguous window [first, last] (1-based seqs) containing `seq` (and seq + 1 if needed). */
function windowAround(seq: number, needsNext: boolean, fullChain: boolean): [number, number] {
  if (fullChain) return [1, CHAIN_LENGTH];
  const first = Math.max(1, seq - between(0, 100));
  const last = Math.min(CHAIN_LENGTH, seq + (needsNext ? 1 : 0) + between(0, 100));
  return [first, last];
}

function verifyWindow(events: StoredLedgerEvent[], first: number): ChainReport {
  const expectedPrevHash = first === 1 ? GENESIS_HASH : at(first - 1).hash;
  return verifyChain(events, { expectedFirstSeq: first, expectedPrevHash });
}

// The fixed-size tests verify the whole chain a few times: under 1.3 s idle, up to 13 s measured at
// load 21 on 2 cores (33x); their timeout is not vitest's default but 120 s.
describe(`randomized tamper detection (seed ${seed})`, { timeout: 120_000 }, () => {
  it('the untouched chain verifies', () => {
    expect(verifyChain(chain)).toEqual({ ok: true, checked: CHAIN_LENGTH });
  });

  it(
    `reports the exact seq for random single mutations (${MUTATIONS.max} idle, at least ${MUTATIONS.min} on a busy machine)`,
    () => {
      const seen = new Map<string, number>();
      runTrials(MUTATIONS, (trial) => {
        // Round robin, so even the fewest trials try every kind of mutation.
        const name = must(mutationNames[trial % mutationNames.length]);
        const { needsNext, apply } = must(mutations[name]);
        const seq = between(1, needsNext ? CHAIN_LENGTH - 1 : CHAIN_LENGTH);
        const [first, last] = windowAround(seq, needsNext, trial % FULL_CHAIN_EVERY === 0);
        const events = chain.slice(first - 1, last);
        const expected = apply(events, seq - first);

        const report = verifyWindow(events, first);
        const context = `seed ${seed}, trial ${trial}: ${name} at seq ${seq}, window ${first}..${last}`;
        if (expected.seq === undefined) {
          expect(report, context).toEqual({ ok: true, checked: events.length });
        } else {
          expect(report, context).toMatchObject({ ok: false, firstBadSeq: expected.seq, problem: expected.problem });
          expect(report.checked, context).toBe(expected.seq - first);
        }
        seen.set(name, (seen.get(name) ?? 0) + 1);
      });
      expect([...seen.keys()].sort()).toEqual([...mutationNames].sort());
    },
    budgetTimeout(MUTATIONS, 2),
  );

  describe('cut-off tails after a checkpoint', () => {
    const tree = MerkleTree.fromEventHashes(chain.map((e) => e.hash));
    const privateKey = generateSigningKey();
    const publicKey = publicKeyFromPrivate(privateKey);
    const checkpoints: SignedTreeHead[] = [1, 500, 1000, 1001, 1499, 1500, CHAIN_LENGTH].map((treeSize) =>
      signTreeHead(
        {
          tenantId: must(chain[0]).tenantId,
          treeSize,
          rootHash: toHex(tree.root(treeSize)),
          headHash: at(treeSize).hash,
          issuedAt: new Date(Date.parse(at(treeSize).createdAt) + 10_000).toISOString(),
        },
        privateKey,
      ),
    );

    it('every checkpoint accepts the full chain', () => {
      for (const head of checkpoints) expect(verifyAgainstCheckpoint(chain, head, publicKey)).toEqual({ ok: true, checked: CHAIN_LENGTH });
    });

    it(
      `reports the first missing seq for random cuts (${CUT_TAILS.max} idle, at least ${CUT_TAILS.min} on a busy machine)`,
      () => {
        runTrials(CUT_TAILS, (trial) => {
          const head = must(checkpoints[between(0, checkpoints.length - 1)]);
          const kept = between(0, head.treeSize - 1);
          const report = verifyAgainstCheckpoint(chain.slice(0, kept), head, publicKey);
          const context = `seed ${seed}, trial ${trial}: cut after seq ${kept}, checkpoint ${head.treeSize}`;
          expect(report, context).toEqual({
            ok: false,
            checked: kept,
            firstBadSeq: kept + 1,
            problem: 'missing-tail',
            reason: `checkpoint covers ${head.treeSize} events, chain ends at seq ${kept}`,
          });
        });
      },
      budgetTimeout(CUT_TAILS, 15),
    );

    it('catches a consistent rewrite of history before a checkpoint', () => {
      for (let trial = 0; trial < 5; trial++) {
        const head = must(checkpoints[between(1, checkpoints.length - 1)]);
        const seq = between(1, head.treeSize);
        const rewritten = link(chain.map((e) => (e.seq === seq ? { ...e, payload: { rewritten: true } } : e)));
        expect(verifyChain(rewritten).ok).toBe(true); // a chain alone cannot tell
        expect(verifyAgainstCheckpoint(rewritten, head, publicKey), `seed ${seed}, seq ${seq}`).toMatchObject({
          ok: false,
          problem: 'head-hash-mismatch',
        });
      }
    });
  });
});
