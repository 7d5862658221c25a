// A small synthetic history with known task patterns, for the pattern tests: three areas of one
// project, each with its own identifier, file and success rate, plus words every task shares.
//   cart    (discount_code, checkout/cart.py):     8 of 8 succeed
//   invoice (currency_format, billing/invoice.py): 1 of 8 succeed
//   search  (synonym_map, search/index.py):        5 of 8 succeed (0.625, about the others' 11 of 22: no lift)
//   refund  (refund_policy, payments/refund.py):   3 of 7 succeed, the three first: the file pattern's
//           term gains support after its last co-occurrence (its stored support goes stale)
//   docs    (no identifier, docs/guide.md):         6 of 12 succeed: other work of the project, so
//           that no area's term is in more than 20 % of the tasks (the cue's idf floor)
// Successful runs pass pytest; failed ones hit AssertionError in it.
import { err, FAILURE, ok } from '../learning/support.ts';
import type { Json } from '../lifecycle/support.ts';

export const SHOP = { domain: 'shop/api', language: 'python', tags: ['backend', 'urgent'] };

const AREAS = [
  { name: 'cart', text: (i: number) => `Cart totals ignore discount_code for order ${i}; see checkout/cart.py`, file: 'checkout/cart.py', succeed: 8 },
  {
    name: 'invoice',
    text: (i: number) => `Invoice shows currency_format wrong for order ${i}; see billing/invoice.py`,
    file: 'billing/invoice.py',
    succeed: 1,
  },
  { name: 'search', text: (i: number) => `Search misses synonym_map entries for order ${i}; see search/index.py`, file: 'search/index.py', succeed: 5 },
  {
    name: 'refund',
    text: (i: number) => `Refund ignores refund_policy for order ${i}; see payments/refund.py`,
    file: 'payments/refund.py',
    succeed: 3,
    runs: 7,
  },
  { name: 'docs', text: (i: number) => `Docs: reword paragraph ${i} of the guide`, file: 'docs/guide.md', succeed: 6, runs: 12 },
] as const;

export interface CorpusRun {
  name: string;
  description: string;
  context: Json;
  steps: Json[];
  outcome: Json;
}

export function corpus(): CorpusRun[] {
  return AREAS.flatMap((area) =>
    Array.from({ length: 'runs' in area ? area.runs : 8 }, (_, i) => {
      const success = i < area.succeed;
      return {
        name: `${area.name}-${i}`,
        description: area.text(i),
        context: SHOP,
        steps: [ok('grep'), success ? ok('pytest') : err('pytest', 'AssertionError')],
        outcome: success ? { kind: 'SUCCESS', verdict: 'resolved', artifacts: [area.file] } : FAILURE,
      };
    }),
  );
}

/** The same runs in another order: a fixed interleaving, no two of one area next to each other at the start. */
export function reordered(runs: readonly CorpusRun[]): CorpusRun[] {
  return [...runs]
    .map((run, i) => ({ run, k: (i * 7) % runs.length }))
    .sort((a, b) => a.k - b.k)
    .map((x) => x.run)
    .reverse();
}
