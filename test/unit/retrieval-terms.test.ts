// addWords skips splitting a word that is one CAMEL piece (the words of ordinary text); the terms
// must be exactly those of splitting every word, as the index already holds them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STOP_WORDS } from '../../src/retrieval/stop-words.ts';
import { addWords, changeTerms, type TermCounts, taskTerms, workTerms } from '../../src/retrieval/terms.ts';

/** addWords as it was before the shortcut: every word split on underscores and CamelCase. */
function splittingEveryWord(text: string): TermCounts {
  const counts: TermCounts = new Map();
  const keep = (term: string) => term.length >= 2 && term.length <= 64 && !/^[\d_]+$/.test(term) && !STOP_WORDS.has(term);
  const add = (term: string) => keep(term) && counts.set(term, (counts.get(term) ?? 0) + 1);
  for (const [word] of text.matchAll(/[\p{L}\p{N}_]+/gu)) {
    if (/^(?:0x)?(?=[0-9a-f]*\d)[0-9a-f]{6,}$/i.test(word)) continue;
    const lower = word.toLowerCase();
    add(lower);
    const parts = new Set<string>();
    for (const piece of word.split('_')) for (const [part] of piece.matchAll(/[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+/g)) parts.add(part.toLowerCase());
    if (parts.size > 1) for (const part of parts) if (part !== lower) add(part);
  }
  return counts;
}

const PIECES = [
  'a',
  'b',
  'Z',
  'Q',
  'x',
  'HTTP',
  'Error',
  'get',
  'Value',
  '_',
  '0',
  '7',
  '42',
  'é',
  'É',
  'ß',
  '中',
  'ﬁ',
  'İ',
  ' ',
  '.',
  '/',
  '-',
  'deadbeef1',
  'is',
  'When',
  '0x',
];
const texts = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((pieces) => pieces.join(''));

describe('addWords', () => {
  it('gives the terms of splitting every word, for any mix of cases, digits, underscores and non-ASCII letters', () => {
    fc.assert(
      fc.property(fc.oneof(texts, fc.string({ unit: 'grapheme', maxLength: 60 })), (text) => {
        expect([...addWords(new Map(), text)].sort()).toEqual([...splittingEveryWord(text)].sort());
      }),
      { numRuns: 3000 },
    );
  });

  it('splits identifiers and keeps plain words whole', () => {
    const terms = addWords(new Map(), 'ModelChoiceField bulk_create HTTPServer Hello world');
    expect([...terms.keys()].sort()).toEqual(
      ['modelchoicefield', 'model', 'choice', 'field', 'bulk_create', 'bulk', 'create', 'httpserver', 'http', 'server', 'hello', 'world'].sort(),
    );
  });
});

describe('stop words', () => {
  const diff = [
    'diff --git a/tests/test_pickle.py b/tests/test_pickle.py',
    '@@ -10,3 +10,6 @@ class PickleTests(TestCase):',
    '+    def test_pickling_works_when_getstate_is_overwritten_in_the_subclass(self):',
    '+        pass',
  ].join('\n');

  it('are no term of any field, not even as parts of a split test name', () => {
    const fields = [
      changeTerms({ artifacts: ['tests/test_pickle.py'], diff }),
      workTerms({
        artifacts: [],
        failure: null,
        steps: [{ tool: 'bash', action: null, parameters: null, errorClass: null, errorMessage: null, output: diff }],
      }),
      taskTerms('When the object is pickled, it is not the same as the one in the cache'),
    ];
    for (const counts of fields) for (const word of ['is', 'when', 'the', 'in', 'it', 'not', 'as']) expect(counts.has(word)).toBe(false);
    expect(fields[0]?.has('getstate')).toBe(true);
    expect(fields[0]?.has('pickling')).toBe(true);
    expect(fields[0]?.has('test_pickling_works_when_getstate_is_overwritten_in_the_subclass')).toBe(true);
  });
});

describe('addWords remembers each word’s terms', () => {
  it('counts the same terms in the same order the first time and after (the words’ terms are not shared mutably)', () => {
    const text = 'QuerySet.bulk_create() ignores db_default; ModelChoiceField 0xdeadbeef1 __init__ x '.repeat(3) + 'a'.repeat(200) + 'B_c'.repeat(60);
    const first = [...addWords(new Map(), text).entries()];
    const again = addWords(new Map(), text);
    again.set('queryset', 99);
    expect([...addWords(new Map(), text).entries()]).toEqual(first);
    expect(first).toContainEqual(['modelchoicefield', 3]);
    expect(first).toContainEqual(['choice', 3]);
    expect(first.some(([term]) => term.startsWith('0x') || term === 'deadbeef1')).toBe(false);
  });
});
