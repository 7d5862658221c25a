// The retrieval signals are declared once (src/retrieval/signals.ts): the fixed formula, the
// breakdown's type and the GraphQL fields are derived from the table, and every place that lists
// them by hand must name each one: the client's selection and its type, the monitor's query and
// docs/LEARNING.md's breakdown of an answer.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RELEVANCE_WEIGHTS, relevanceScore } from '../../src/retrieval/score.ts';
import { RETRIEVAL_SIGNALS, type RetrievalSignal, scoreFormula } from '../../src/retrieval/signals.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const names = RETRIEVAL_SIGNALS.map((s: RetrievalSignal) => s.name);

/** The words of the first `score { ... }` selection after `marker` in a file. */
function scoreSelection(text: string, marker: string): Set<string> {
  const from = text.indexOf(marker);
  expect(from, `${marker} not found`).toBeGreaterThanOrEqual(0);
  const selection =
    /score \{([^}]*)\}|'([^']*)'/
      .exec(text.slice(from))
      ?.slice(1)
      .find((g) => g !== undefined) ?? '';
  return new Set(selection.split(/[\s$]+/).filter(Boolean));
}

describe('retrieval signals', () => {
  it('are each declared once, with a weight and a range exactly when they weigh in the ranking', () => {
    expect(new Set(names).size).toBe(names.length);
    const weighted = RETRIEVAL_SIGNALS.filter((s: RetrievalSignal) => s.role !== 'measure');
    expect(Object.keys(RELEVANCE_WEIGHTS).sort()).toEqual(weighted.map((s) => s.name).sort());
    for (const s of RETRIEVAL_SIGNALS as readonly RetrievalSignal[]) {
      expect(s.weight > 0, s.name).toBe(s.role !== 'measure');
      expect(s.range !== undefined, s.name).toBe(s.role !== 'measure');
    }
  });

  it('give the breakdown of relevanceScore each weighted signal, in its range', () => {
    const noContext = { taskType: null, context: { domain: null, language: null, framework: null, tags: [] } };
    const candidate = { ...noContext, rewardNormalized: 0.5, textRank: 0.5, trigramSimilarity: 0, ageDays: 1, feedbackCredit: -0.5 };
    const breakdown = relevanceScore(noContext, candidate);
    for (const s of RETRIEVAL_SIGNALS as readonly RetrievalSignal[]) {
      if (!s.range) continue;
      const value = breakdown[s.name as keyof typeof breakdown];
      expect(value, s.name).toBeGreaterThanOrEqual(s.range[0]);
      expect(value, s.name).toBeLessThanOrEqual(s.range[1]);
    }
  });

  it('are each a field of RelevanceScore in the committed schema, whose formula states the weights', () => {
    const schema = read('schema.graphql');
    const type = /type RelevanceScore \{([^}]*)\}/.exec(schema)?.[1] ?? '';
    for (const s of RETRIEVAL_SIGNALS as readonly RetrievalSignal[]) expect(type, s.name).toMatch(new RegExp(`^\\s+${s.name}: ${s.type}$`, 'm'));
    expect(schema).toContain(scoreFormula());
  });

  it("are each a number field of the client's RelevanceScore type", () => {
    const type = /export interface RelevanceScore \{([^}]*)\}/.exec(read('src/client/types-results.ts'))?.[1] ?? '';
    expect(type).not.toBe('');
    for (const s of RETRIEVAL_SIGNALS as readonly RetrievalSignal[]) expect(type, s.name).toMatch(new RegExp(`^\\s+${s.name}: number;$`, 'm'));
  });

  it("weigh in docs/LEARNING.md's formula as in the table", () => {
    const docs = read('docs/LEARNING.md');
    const formula = docs.slice(docs.indexOf('### Our ranking'), docs.indexOf('### Evidence first'));
    for (const s of RETRIEVAL_SIGNALS as readonly RetrievalSignal[])
      if (s.role !== 'measure') expect(formula, s.name).toContain(`${s.weight.toFixed(2)}·${s.name}`);
  });

  it('are each selected by the client, queried by the monitor and described in docs/LEARNING.md', () => {
    const client = scoreSelection(read('src/client/documents.ts'), 'const SCORED_EPISODE');
    const monitor = scoreSelection(read('web/src/retrievals.tsx'), 'const SCORE =');
    const docs = read('docs/LEARNING.md');
    const learning = docs.slice(docs.indexOf('Each answer carries its breakdown'), docs.indexOf('The signals of that breakdown are declared'));
    for (const name of names) {
      expect(client.has(name), `client selection lacks ${name}`).toBe(true);
      expect(monitor.has(name), `monitor query lacks ${name}`).toBe(true);
      expect(learning, `docs/LEARNING.md's breakdown does not name ${name}`).toMatch(new RegExp(`\\b${name}\\b`));
    }
  });
});
