/**
 * English function words: no field's terms hold them (terms.ts). Said by every text, they carry no
 * evidence, yet in a field where they are rare they look telling: split from a test name
 * (`test_pickling_works_when_getstate_is_overwritten` gives "when", "is") they entered the change
 * field of a few runs, got a high idf there and put one run in a fifth of all top-5 lists. The
 * list is the usual one (Lucene's English set and NLTK's, without the words that are also common
 * identifiers: "id", "key", "set"). Own list, no library: it is data, and a dependency for
 * 130 words would be heavier than the words.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are as at be because been before being below
  between both but by can could did do does doing down during each few for from further had has have
  having he her here hers herself him himself his how i if in into is it its itself just me more most
  my myself no nor not now of off on once only or other our ours ourselves out over own same she
  should so some such than that the their theirs them themselves then there these they this those
  through to too under until up very was we were what when where which while who whom why will with
  would you your yours yourself yourselves also however may might must shall us upon whether yet
  etc via either neither`.split(/\s+/),
);
