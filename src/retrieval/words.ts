/**
 * Query words for full-text retrieval, and the tsquery text built from them. Pure.
 *
 * Words are runs of letters, marks and digits in any script, lower-cased: close to what
 * PostgreSQL's 'simple' configuration indexes. A script written without spaces (Japanese, Chinese)
 * yields one long run, which rarely matches a document word; trigram similarity covers it.
 * At most QUERY_WORDS_MAX distinct words are used, long words (>= LONG_WORD_CHARS) first, so a long
 * description cannot produce an unbounded query.
 */
export const QUERY_WORDS_MAX = 16;
export const LONG_WORD_CHARS = 4;

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

export interface QueryWords {
  /** Distinct words, long ones first, at most QUERY_WORDS_MAX. */
  all: string[];
  /** The long ones: short words ("the", "fix", "de") match too much to select candidates by. */
  long: string[];
}

export function queryWords(description: string): QueryWords {
  const distinct = [...new Set(description.toLowerCase().match(WORD) ?? [])];
  const isLong = (word: string) => Array.from(word).length >= LONG_WORD_CHARS;
  const all = [...distinct.filter(isLong), ...distinct.filter((word) => !isLong(word))].slice(0, QUERY_WORDS_MAX);
  return { all, long: all.filter(isLong) };
}

/** tsquery text (for to_tsquery('simple', …)) matching any of the words; null for none. */
export function anyWordQuery(words: readonly string[]): string | null {
  return words.length === 0 ? null : words.map(quoted).join(' | ');
}

/** tsquery text matching all of the words; null for none. */
export function allWordsQuery(words: readonly string[]): string | null {
  return words.length === 0 ? null : words.map(quoted).join(' & ');
}

// Words hold only letters, marks and digits, so quoting cannot be broken out of.
function quoted(word: string): string {
  return `'${word}'`;
}
