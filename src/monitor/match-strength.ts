// How strongly a retrieved episode matches the task, on one scale for every query. The served
// `similarity` is relative (BM25 over the best candidate's), so the top hit shows 1.00 even when
// it is only the best of weak matches. The raw evidence is absolute: the BM25 of the query against
// the task text plus the weighted BM25 against what the episode did, and the trigram similarity.
// Pure, no I/O: the monitor page and the CLI both show it. The bands are STRENGTH_WORDS below. The
// evidence grows with the idf of the matched terms, so on a corpus of a handful of episodes even an
// exact match is weak by BM25 (the trigram similarity then carries it).

/** The BM25 evidence (taskText + work) at which a match counts half strong. */
export const HALF_STRENGTH_BM25 = 40;

export type StrengthWord = 'strong' | 'moderate' | 'weak' | 'none';

/** Lower bounds of each word, strongest first. */
const STRENGTH_WORDS: ReadonlyArray<[StrengthWord, number]> = [
  ['strong', 0.6],
  ['moderate', 0.35],
  ['weak', 0.1],
];

export interface MatchEvidence {
  taskText: number;
  work: number;
  trigramSimilarity: number;
}

export interface MatchStrength {
  /** In [0, 1]: evidence / (evidence + HALF_STRENGTH_BM25), or the trigram similarity when higher. */
  value: number;
  word: StrengthWord;
}

export function matchStrength(e: MatchEvidence): MatchStrength {
  const evidence = Math.max(0, e.taskText) + Math.max(0, e.work);
  const value = Math.max(evidence / (evidence + HALF_STRENGTH_BM25), Math.min(1, Math.max(0, e.trigramSimilarity)));
  return { value, word: strengthWord(value) };
}

export function strengthWord(value: number): StrengthWord {
  return STRENGTH_WORDS.find(([, bound]) => value >= bound)?.[0] ?? 'none';
}
