// The retrieval signals of relevantEpisodes, declared once. Adding a signal is one entry here and
// its value: a measure's is the ScoredEpisode field of its name (store.ts), a weighted signal's is
// computed by relevanceScore (score.ts); the compiler asks for either. Derived from this table:
// the ranking's fixed formula (fixedEvidence, evidenceFirst, PRIOR_FACTOR in score.ts), the
// breakdown's type, the GraphQL fields of RelevanceScore with their descriptions and the type's
// formula (graphql.ts). test/unit/retrieval-signals.test.ts fails when a signal is missing from
// the client's selection (src/client/documents.ts) or its type (src/client/types-results.ts), the
// monitor's query (web/src/retrievals.tsx) or docs/LEARNING.md.

/**
 * evidence: weighed in the fixed formula's task evidence; prior: scales the evidence
 * (evidenceFirst, score.ts); measure: shown for explanation, weighed by neither.
 */
export type SignalRole = 'evidence' | 'prior' | 'measure';

export interface RetrievalSignal {
  /** The RelevanceScore field. */
  name: string;
  role: SignalRole;
  /** The fixed formula's weight (0 for a measure). */
  weight: number;
  /** A weighted signal's values (a prior is clamped to them); a measure's are unbounded. */
  range?: readonly [min: number, max: number];
  /** The GraphQL type of the field. */
  type: 'Float' | 'Int';
  description?: string;
}

export const RETRIEVAL_SIGNALS = [
  { name: 'contextMatch', role: 'evidence', weight: 0.4, range: [0, 1], type: 'Float' },
  {
    name: 'similarity',
    role: 'evidence',
    weight: 0.43,
    range: [0, 1],
    type: 'Float',
    description: 'max(textRank, trigramSimilarity)',
  },
  { name: 'reward', role: 'prior', weight: 0.05, range: [0, 1], type: 'Float' },
  { name: 'recency', role: 'prior', weight: 0.02, range: [0, 1], type: 'Float' },
  {
    name: 'feedback',
    role: 'prior',
    // Applied to a signed credit: a debited episode loses up to this much.
    weight: 0.1,
    range: [-1, 1],
    type: 'Float',
    description:
      'Query-relative credit in [-1, 1]: reported uses of this episode (usedRetrievals) applied as far as the query that served it resembles this one (docs/LEARNING.md).',
  },
  {
    name: 'feedbackUses',
    role: 'measure',
    weight: 0,
    type: 'Int',
    description: 'Reported uses that counted: those by queries resembling this one (idf-weighted share of their terms at least 0.4).',
  },
  {
    name: 'feedbackResemblance',
    role: 'measure',
    weight: 0,
    type: 'Float',
    description: "The largest resemblance of any reported use's query to this one, in [0, 1].",
  },
  {
    name: 'textRank',
    role: 'measure',
    weight: 0,
    type: 'Float',
    description: "(taskText + work + change) / the best candidate's, in [0, 1].",
  },
  {
    name: 'taskText',
    role: 'measure',
    weight: 0,
    type: 'Float',
    description: 'BM25 (k1 1.2, b 0.75) of the query against the task description.',
  },
  {
    name: 'work',
    role: 'measure',
    weight: 0,
    type: 'Float',
    description: '0.5 × BM25 (b 1) of the query against what the episode did: files and symbols it changed, its commands, errors and tools.',
  },
  {
    name: 'change',
    role: 'measure',
    weight: 0,
    type: 'Float',
    description:
      '0.5 × BM25 (b 1) of the query against the change the episode left: its changed files, their module names and the scopes and definitions it changed.',
  },
  { name: 'trigramSimilarity', role: 'measure', weight: 0, type: 'Float' },
] as const satisfies readonly RetrievalSignal[];

export type Signal = (typeof RETRIEVAL_SIGNALS)[number];
type EvidenceEntry = Extract<Signal, { role: 'evidence' }>;
type PriorEntry = Extract<Signal, { role: 'prior' }>;
export type EvidenceSignal = EvidenceEntry['name'];
export type PriorSignal = PriorEntry['name'];
export type WeightedSignal = EvidenceSignal | PriorSignal;

/** The task evidence of the fixed formula (the learned ranker's evidence replaces them), in the table's order. */
export const EVIDENCE_SIGNALS: readonly EvidenceEntry[] = RETRIEVAL_SIGNALS.filter((s): s is EvidenceEntry => s.role === 'evidence');
/** The priors that scale the evidence, learned or fixed (evidenceFirst, score.ts), in the table's order. */
export const PRIOR_SIGNALS: readonly PriorEntry[] = RETRIEVAL_SIGNALS.filter((s): s is PriorEntry => s.role === 'prior');

/** The fixed formula's weights, by signal: those of the evidence and prior signals. */
export function signalWeights(): Record<WeightedSignal, number> {
  const weighted = [...EVIDENCE_SIGNALS, ...PRIOR_SIGNALS];
  return Object.fromEntries(weighted.map((s) => [s.name, s.weight])) as Record<WeightedSignal, number>;
}

const weightOf = (s: RetrievalSignal) => s.weight.toFixed(2);
const weightedSum = (signals: readonly RetrievalSignal[]) => signals.map((s) => `${weightOf(s)} ${s.name}`).join(' + ');

/** The RelevanceScore type's description: its formula, written from the weights above. */
export function scoreFormula(): string {
  const sum = EVIDENCE_SIGNALS.reduce((total, s) => total + s.weight, 0);
  return (
    `total = evidence × (1 + ${weightedSum(PRIOR_SIGNALS)}): evidence first. ` +
    "evidence is the tenant's learned ranker's (e^(its score − the best candidate's)) when it has one, " +
    `else (${weightedSum(EVIDENCE_SIGNALS)}) / ${sum.toFixed(2)} (docs/LEARNING.md).`
  );
}
