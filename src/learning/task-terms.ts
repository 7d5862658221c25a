/**
 * What a task says, as terms patterns can be keyed on and matched by. Pure.
 *
 * A term is a lower-cased identifier-like token of the task text: a word, an identifier
 * (`get_queryset`, `QuerySet`), a dotted name (`django.db.models`) or a path (`sphinx/ext/autodoc`).
 * Dotted names and paths also yield their segments, so "`models.Q`" and "Q objects in models" meet
 * on `models`. Code-shaped terms (they hold `_`, `.`, `/`, an inner capital or a digit) say more
 * about where a change goes than prose, so they come first; prose words follow by how often the
 * task repeats them. Stop words and words under MIN_WORD_CHARS never count: they are in every task.
 */
export const TASK_TERM_RULES = {
  /** Terms an episode contributes to patterns: bounds the statistics rows one episode touches. */
  perEpisode: 16,
  /** Terms a query may match patterns by (a 10 KB task has a few hundred distinct words). */
  perQuery: 400,
  minWordChars: 4,
  maxTermChars: 80,
} as const;

// Words that say nothing about which part of a project a task is about, in any project. English
// function words plus the vocabulary of every bug report; deliberately short and generic.
const STOP_WORDS = new Set(
  `this that with from have when what which there their then than them they will would should could
  into also only some such more most other each been being were does doesn done here where while
  about after before because since until using used uses like just make makes made need needs
  want wants seem seems same very much many well even still both either neither these those your
  yours ours shall must might can't don't isn't it's instead rather following follows example
  expected actual behavior behaviour issue issues problem problems error errors description
  reproduce steps work works working worked fails fail failed failing case cases correct
  incorrect currently current version versions support supported please thanks true false none
  return returns value values code file files line lines test tests call calls called
  check output input result results change changes changed pull request`.split(/\s+/),
);

const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S+/giu;
const TOKEN = /[\p{L}_][\p{L}\p{N}_]*(?:[./][\p{L}\p{N}_]+)*/gu;

/** Distinct terms of a task, most telling first, at most `limit`. */
export function taskTerms(description: string, limit: number = TASK_TERM_RULES.perEpisode): string[] {
  const code = new Map<string, number>();
  const prose = new Map<string, number>();
  let position = 0;
  // Links name hosts and commits, not the part of the project a task is about.
  const text = description.replace(URL, ' ');
  for (const token of text.match(TOKEN) ?? []) {
    const into = isCodeShaped(token) ? code : prose;
    for (const term of termsOfToken(token)) {
      if (!into.has(term.text)) into.set(term.text, position++);
    }
  }
  const counts = countWords(text);
  const codeTerms = [...code.entries()].sort((a, b) => a[1] - b[1]).map(([text]) => text);
  const proseTerms = [...prose.entries()]
    .filter(([text]) => !code.has(text))
    .sort((a, b) => (counts.get(b[0]) ?? 0) - (counts.get(a[0]) ?? 0) || a[1] - b[1])
    .map(([text]) => text);
  return [...new Set([...codeTerms, ...proseTerms])].slice(0, limit);
}

/** The token and, for a dotted name or path, each of its segments; lower-cased, informative only. */
function termsOfToken(token: string): Array<{ text: string }> {
  const trimmed = token.replace(/[./]+$/, '');
  const segments = trimmed.split(/[./]/).filter((s) => s.length > 0);
  const texts = segments.length > 1 ? [trimmed, ...segments] : segments;
  return texts.map((t) => ({ text: t.toLowerCase() })).filter((t) => informative(t.text));
}

function informative(text: string): boolean {
  const length = Array.from(text).length;
  return length >= TASK_TERM_RULES.minWordChars && length <= TASK_TERM_RULES.maxTermChars && !STOP_WORDS.has(text) && !/^_+$/.test(text);
}

function isCodeShaped(raw: string): boolean {
  return /[_./\d]/.test(raw) || /\p{Ll}\p{Lu}/u.test(raw);
}

function countWords(description: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of description.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}
