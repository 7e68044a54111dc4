/**
 * The text-based filters of CC3M (Sharma et al. 2018, §3 "Text-based Filtering") and CC12M
 * (Changpinyo et al. 2021, §2.2 "Text-based filtering"), as one configurable stage.
 *
 * CC3M ran Google Cloud Natural Language over each alt-text (POS, sentiment/polarity,
 * pornography/profanity) and applied these heuristics, quoted loosely:
 *   1. a well-formed caption has a high unique-word ratio covering various POS tags; candidates with
 *      no determiner, no noun or no preposition are discarded, and so are those with a high noun ratio;
 *   2. candidates with a high rate of token repetition are discarded;
 *   3. capitalisation indicates well-composed sentences: candidates whose first word is not
 *      capitalised, or with too high a capitalised-word ratio, are discarded;
 *   4. highly unlikely tokens: the vocabulary is the token types seen at least 5 times in English
 *      Wikipedia; candidates with a token outside it are discarded;
 *   5. candidates scoring too high or too low on polarity, or triggering the porn/profanity
 *      detectors, are discarded;
 *   6. boilerplate prefixes/suffixes are cropped ("click to enlarge picture", "stock photo"), texts
 *      beginning/ending in some patterns are dropped ("embedded image permalink", "profile photo").
 * Only the thresholds of 4 (5 occurrences) are given; everything else is a parameter below whose
 * default is cckit's choice, marked "paper: vague".
 *
 * CC12M relaxed them: keep alt-texts of 3 to 256 words; discard those with no noun or no determiner
 * but allow no preposition; drop the unique-word-ratio-over-POS and capitalisation heuristics; allow
 * a word-repetition fraction up to 0.2; raise the rare-word threshold from 5 to 20 "given a larger
 * pool of text". The paper says nothing about polarity, profanity or boilerplate, so cckit keeps
 * them as in CC3M (only the relaxations are listed). The noun-ratio check is one of the
 * "POS-ratio" heuristics and is off in CC12M. CC12M also drops CC3M's hypernymisation and keeps
 * raw text (only person names become `<PERSON>`): that is a text *transformation*, not this stage —
 * this filter never rewrites words, it only crops boilerplate.
 *
 * The vocabulary (check 4). cckit has no full Wikipedia counts; the check takes any `WordFrequencies`:
 *   - the reference vocabulary for real text (`ReferenceVocabulary`, src/filters/reference-vocabulary.ts:
 *     English Wikipedia's word list, SUBTLEX-US counts scaled to Wikipedia's size, WordNet lemmas), thresholds as the papers state;
 *   - the corpus being filtered, counted in a first streaming pass (`WordCounts.fromCaptions`), with the
 *     threshold scaled to its size; this is how the embedded world is filtered (its words are its own),
 *     and the reading CC12M's wording suggests (the threshold was raised because the *pool* grew), or
 *   - a word-frequency file, `token<TAB>count` a line (`WordCounts.fromFile`): with counts over English
 *     Wikipedia it follows CC3M to the letter.
 * A caption is rejected when ANY of its words (tokens with a letter; numbers, punctuation and
 * placeholders are exempt) has a count below `minWordFrequency` (5 for CC3M, 20 for CC12M): this
 * is CC3M's "discard candidates that contain tokens not found in this vocabulary", with CC12M's
 * "threshold for counting a word type as rare" put in place of 5. Without a vocabulary the check
 * is skipped (`TextFilter.checksRareWords` tells).
 *
 * Cost order: boilerplate and length (string scans, ~1–2 µs) → one wink-nlp analysis (tokens + POS,
 * ~15 µs) → the POS, ratio, capitalisation and vocabulary checks (one pass over the tokens) →
 * polarity (wink-sentiment, ~7 µs) → profanity (obscenity's regex matcher, ~28 µs, the most
 * expensive step, so last). Each rejection names the first failing check.
 *
 * Throughput: `npm run bench:filter`, figures in docs/filters.md.
 */
import * as fs from 'fs';
import type { RegExpMatcher } from 'obscenity';
import { Boilerplate, BoilerplateLists, DEFAULT_BOILERPLATE } from './boilerplate';
import { Analysis, Token, analyse, countWords, tokenize } from './nlp';
import { Verdict, keep, reject } from './types';

/** The stable rejection reasons of this stage. */
export const TEXT_REASONS = {
  length: 'text:length',
  boilerplate: 'text:boilerplate',
  noNoun: 'text:no-noun',
  noDeterminer: 'text:no-determiner',
  noPreposition: 'text:no-preposition',
  nounRatio: 'text:noun-ratio',
  repetition: 'text:repetition',
  capitalisation: 'text:capitalisation',
  uniqueWords: 'text:unique-words',
  rareWords: 'text:rare-words',
  profanity: 'text:profanity',
  polarity: 'text:polarity',
} as const;

export type TextReason = (typeof TEXT_REASONS)[keyof typeof TEXT_REASONS];

/** Every threshold of the stage; `null` switches a numeric check off. */
export interface TextFilterOptions {
  /** Minimum whitespace-separated words (after boilerplate cropping). CC12M §2.2: 3. */
  minWords: number | null;
  /** Maximum whitespace-separated words. CC12M §2.2: 256. */
  maxWords: number | null;
  /** Crop/reject boilerplate (CC3M §3; lists in boilerplate.ts). */
  boilerplate: boolean;
  /** Lists to use instead of boilerplate.ts's defaults. */
  boilerplateLists?: BoilerplateLists;
  /** At least one NOUN or PROPN. CC3M §3; CC12M §2.2 keeps it. */
  requireNoun: boolean;
  /** At least one DET. CC3M §3; CC12M §2.2 keeps it. */
  requireDeterminer: boolean;
  /** At least one ADP (preposition). CC3M §3; CC12M §2.2 drops it. */
  requirePreposition: boolean;
  /** Maximum (NOUN + PROPN) / words. CC3M §3 "high noun ratio" (paper: vague). */
  maxNounRatio: number | null;
  /**
   * Maximum repetition fraction: words that repeat an earlier content word (NOUN, PROPN, VERB, ADJ,
   * ADV, not a stop word, not a placeholder; compared lower-cased) divided by all words.
   * CC3M §3 "high rate of token repetition" (paper: vague); CC12M §2.2: 0.2. Function words are not
   * counted because any long English sentence repeats "the"/"a"/"of", and CC12M admits 256 words.
   */
  maxRepetition: number | null;
  /** The first word (if it has a letter) must be capitalised. CC3M §3; dropped by CC12M §2.2. */
  requireFirstWordCapitalised: boolean;
  /**
   * Maximum capitalised words / words with a letter (placeholders excluded). CC3M §3 "too high
   * capitalized-word ratio" (paper: vague); dropped by CC12M §2.2.
   */
  maxCapitalisedRatio: number | null;
  /**
   * Minimum distinct words / words (lower-cased, function words included). CC3M §3 "high unique word
   * ratio covering various POS tags" (paper: vague; the "various POS tags" part is already enforced
   * by requiring a noun, a determiner and a preposition); dropped by CC12M §2.2.
   */
  minUniqueWordRatio: number | null;
  /**
   * A word whose vocabulary count is below this is rare, and a caption with a rare word is rejected.
   * CC3M §3: 5 (English Wikipedia); CC12M §2.2: 20.
   */
  minWordFrequency: number | null;
  /**
   * Allowed range of wink-sentiment's normalised polarity (−5…+5, the mean AFINN score of the
   * caption's sentiment words); outside it is rejected. CC3M §3 "too high or too low on the polarity
   * annotations" (paper: vague; Google's score is −1…+1 and no cut-off is given).
   */
  minPolarity: number | null;
  maxPolarity: number | null;
  /** Reject captions obscenity's English dataset matches. CC3M §3 "pornography/profanity". */
  profanity: boolean;
}

/** CC3M §3 (Sharma et al. 2018). */
export const CC3M_TEXT_FILTER: Readonly<TextFilterOptions> = Object.freeze({
  // §3 gives no length bounds; a noun + determiner + preposition already implies ≥ 3 words
  minWords: null,
  maxWords: null,
  boilerplate: true,
  requireNoun: true,
  requireDeterminer: true,
  requirePreposition: true,
  // paper: vague. 0.75 keeps "Pendant designs from the jewelry collection" (0.67) and name-heavy
  // news captions ("Harrison Ford … attend the premiere of … at the … Festival", ~0.6), rejects tag soup
  maxNounRatio: 0.75,
  // paper: vague; CC12M "relaxed" it to 0.2, so CC3M's was lower: cckit uses 0.1
  maxRepetition: 0.1,
  requireFirstWordCapitalised: true,
  // paper: vague. 0.7 admits the news alt-text of the paper's Figure 1 ("Musician Justin Timberlake
  // performs at the 2017 Pilgrimage Music & Cultural Festival on September 23, 2017 in Franklin,
  // Tennessee.": 0.67 of its lettered words are capitalised) and rejects Title Case and ALL CAPS (1.0)
  maxCapitalisedRatio: 0.7,
  // paper: vague. Ordinary sentences score 0.8–1; 0.5 rejects "the the the …" style text
  minUniqueWordRatio: 0.5,
  // §3: "appearing at least 5 times"
  minWordFrequency: 5,
  // paper: vague. AFINN ±4/±5 words ("amazing", "fantastic", swear words) mark opinion or abuse,
  // not description; "beautiful" (+3) stays
  minPolarity: -3,
  maxPolarity: 3,
  profanity: true,
});

/** CC12M §2.2 (Changpinyo et al. 2021): CC3M's filter, relaxed. */
export const CC12M_TEXT_FILTER: Readonly<TextFilterOptions> = Object.freeze({
  ...CC3M_TEXT_FILTER,
  // §2.2: "between 3 and 256 words"
  minWords: 3,
  maxWords: 256,
  // §2.2: discards no-noun and no-determiner candidates "but permit[s] ones without prepositions"
  requirePreposition: false,
  // §2.2 drops the POS-ratio, unique-word and capitalisation heuristics
  maxNounRatio: null,
  requireFirstWordCapitalised: false,
  maxCapitalisedRatio: null,
  minUniqueWordRatio: null,
  // §2.2: "maximum fraction of word repetition allowed to 0.2"
  maxRepetition: 0.2,
  // §2.2: rare-word threshold "increased from 5 to 20"
  minWordFrequency: 20,
});

// ---------------------------------------------------------------------------
// Word counts (the rare-word check's "vocabulary")

/** What the rare-word check asks of a vocabulary: how often a word type (any case) was seen. */
export interface WordFrequencies {
  count(token: string): number;
}

/** The vocabulary key of a token, or undefined for tokens the rare-word check exempts. */
function vocabularyKey(token: Token): string | undefined {
  return token.hasLetter && !token.isPlaceholder ? token.lower : undefined;
}

/**
 * Word-type counts for the rare-word check: lower-cased tokens of wink's tokenizer (the same tokens
 * the filter checks), words with a letter only. A counter, not a model vocabulary (that is
 * src/text/vocab.ts `Vocabulary`).
 */
export class WordCounts implements WordFrequencies {
  private readonly counts = new Map<string, number>();
  /** Tokens counted (sum of all counts). */
  total = 0;

  /** A first streaming pass over the corpus to be filtered. */
  static fromCaptions(captions: Iterable<string>): WordCounts {
    const vocabulary = new WordCounts();
    for (const caption of captions) vocabulary.addCaption(caption);
    return vocabulary;
  }

  /** The same over an async source (readTsv rows mapped to captions, a stream of lines …). */
  static async fromCaptionsAsync(captions: AsyncIterable<string>): Promise<WordCounts> {
    const vocabulary = new WordCounts();
    for await (const caption of captions) vocabulary.addCaption(caption);
    return vocabulary;
  }

  /** `token<TAB>count` lines (e.g. English Wikipedia counts); tokens are lower-cased and merged. */
  static fromFrequencyText(text: string): WordCounts {
    const vocabulary = new WordCounts();
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].replace(/\r$/, '');
      if (line.trim().length === 0) continue;
      const tab = line.lastIndexOf('\t');
      const count = tab > 0 ? Number(line.slice(tab + 1)) : NaN;
      if (!Number.isInteger(count) || count < 0)
        throw new Error(`word-frequency line ${i + 1}: expected token<TAB>count, got ${JSON.stringify(line.slice(0, 80))}`);
      vocabulary.add(line.slice(0, tab).toLowerCase(), count);
    }
    return vocabulary;
  }

  static fromFile(file: string): WordCounts {
    return WordCounts.fromFrequencyText(fs.readFileSync(file, 'utf8'));
  }

  add(token: string, count = 1): void {
    this.counts.set(token, (this.counts.get(token) ?? 0) + count);
    this.total += count;
  }

  addCaption(caption: string): void {
    for (const token of tokenize(caption).words) {
      const key = vocabularyKey(token);
      if (key !== undefined) this.add(key);
    }
  }

  /** How often `token` (any case) was seen. */
  count(token: string): number {
    return this.counts.get(token.toLowerCase()) ?? 0;
  }

  /** Distinct token types. */
  get size(): number {
    return this.counts.size;
  }

  /** `token<TAB>count` lines, most frequent first (readable by fromFrequencyText). */
  toFrequencyText(): string {
    const rows = [...this.counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return rows.map(([token, count]) => `${token}\t${count}\n`).join('');
  }

  writeFile(file: string): void {
    fs.writeFileSync(file, this.toFrequencyText());
  }
}

// ---------------------------------------------------------------------------
// Shared detectors (created on first use)

let profanityMatcher: RegExpMatcher | undefined;

/** obscenity's matcher, built on first use (its module loads then too). */
function profanity(): RegExpMatcher {
  if (!profanityMatcher) {
    const { RegExpMatcher: Matcher, englishDataset, englishRecommendedTransformers } = require('obscenity') as typeof import('obscenity');
    profanityMatcher = new Matcher({ ...englishDataset.build(), ...englishRecommendedTransformers });
  }
  return profanityMatcher;
}

/** obscenity's English dataset with its recommended transformers (leet speak, repeated letters …). */
export function isProfane(text: string): boolean {
  return profanity().hasMatch(text);
}

type SentimentFn = (text: string) => { score: number; normalizedScore: number };
let sentimentFn: SentimentFn | undefined;

/** The caption's words obscenity's matcher flags, as they are written (for a rejection's detail). */
export function profaneMatches(text: string): string[] {
  const words = profanity()
    .getAllMatches(text, true)
    .map((m) => `"${text.slice(m.startIndex, m.endIndex + 1)}"`);
  return [...new Set(words)];
}

/** wink-sentiment's normalised score, −5 (very negative) … +5 (very positive). */
export function polarity(text: string): number {
  // wink-sentiment ships no type declarations
  sentimentFn ??= require('wink-sentiment') as SentimentFn;
  return sentimentFn(text).normalizedScore;
}

// ---------------------------------------------------------------------------
// Statistics and the filter

const CONTENT_POS = new Set(['NOUN', 'PROPN', 'VERB', 'ADJ', 'ADV']);

/** The per-caption numbers the POS-based checks compare with their thresholds. */
export interface TextStatistics {
  words: number;
  nouns: number;
  determiners: number;
  prepositions: number;
  /** (NOUN + PROPN) / words. */
  nounRatio: number;
  /** Repeated content words / words (see TextFilterOptions.maxRepetition). */
  repetition: number;
  /** Whether the first word with a letter is capitalised (true when no word has one). */
  firstWordCapitalised: boolean;
  /** Capitalised / words with a letter, placeholders excluded. */
  capitalisedRatio: number;
  /** Distinct lower-cased words / words. */
  uniqueWordRatio: number;
}

/** A measured ratio for a rejection's detail. */
const ratio = (x: number): string => String(Number(x.toFixed(3)));

/** At most `max` items, then how many more. */
function listed(items: readonly string[], max = 10): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')}, … (${items.length - max} more)`;
}

/** The words with their POS tags ("a/DET red/ADJ car/NOUN"), for the POS checks' details. */
function tagged(analysis: Analysis, max = 24): string {
  const words = analysis.words.map((w) => `${w.text}/${w.pos}`);
  return words.length <= max ? words.join(' ') : `${words.slice(0, max).join(' ')} … (${words.length} words)`;
}

/** The content words that repeat an earlier one, as textStatistics counts them: "ball ×3" (repeats after the first). */
function repeatedWords(analysis: Analysis): string[] {
  const content = new Set<string>();
  const repeats = new Map<string, number>();
  for (const w of analysis.words) {
    if (!CONTENT_POS.has(w.pos) || w.isStopWord || w.isPlaceholder || !w.hasLetter) continue;
    if (content.has(w.lower)) repeats.set(w.lower, (repeats.get(w.lower) ?? 0) + 1);
    else content.add(w.lower);
  }
  return [...repeats].map(([word, n]) => (n === 1 ? word : `${word} ×${n}`));
}

/** The statistics of an analysed caption (one pass over its words). */
export function textStatistics(analysis: Analysis): TextStatistics {
  const words = analysis.words;
  let nouns = 0;
  let determiners = 0;
  let prepositions = 0;
  let repeated = 0;
  let lettered = 0;
  let capitalised = 0;
  const content = new Set<string>();
  const distinct = new Set<string>();
  for (const w of words) {
    switch (w.pos) {
      case 'NOUN':
      case 'PROPN':
        nouns++;
        break;
      case 'DET':
        determiners++;
        break;
      case 'ADP':
        prepositions++;
        break;
      default:
    }
    distinct.add(w.lower);
    if (CONTENT_POS.has(w.pos) && !w.isStopWord && !w.isPlaceholder && w.hasLetter) {
      if (content.has(w.lower)) repeated++;
      else content.add(w.lower);
    }
    if (w.hasLetter && !w.isPlaceholder) {
      lettered++;
      if (w.isCapitalised) capitalised++;
    }
  }
  const first = words.find((w) => w.hasLetter);
  const n = Math.max(1, words.length);
  return {
    words: words.length,
    nouns,
    determiners,
    prepositions,
    nounRatio: nouns / n,
    repetition: repeated / n,
    firstWordCapitalised: first === undefined || first.isCapitalised,
    capitalisedRatio: lettered === 0 ? 0 : capitalised / lettered,
    uniqueWordRatio: words.length === 0 ? 0 : distinct.size / words.length,
  };
}

/**
 * The text stage of either paper. `check` keeps a caption (boilerplate cropped) or names the first
 * check it fails.
 */
export class TextFilter {
  readonly options: Readonly<TextFilterOptions>;
  readonly vocabulary: WordFrequencies | undefined;
  private readonly boilerplate: Boilerplate | undefined;

  constructor(options: Readonly<TextFilterOptions> = CC12M_TEXT_FILTER, vocabulary?: WordFrequencies) {
    this.options = options;
    this.vocabulary = vocabulary;
    this.boilerplate = options.boilerplate ? new Boilerplate(options.boilerplateLists ?? DEFAULT_BOILERPLATE) : undefined;
  }

  /** Whether the rare-word check runs (it needs both a threshold and a vocabulary). */
  get checksRareWords(): boolean {
    return this.options.minWordFrequency !== null && this.vocabulary !== undefined;
  }

  /**
   * Keeps the caption (boilerplate cropped) or rejects it with the first check it fails; the
   * rejection's detail says what that check measured (the value against its threshold, the rare
   * words and their counts, the boilerplate phrase, the words' POS tags). Details are built only
   * for rejections and never change a verdict.
   */
  check(caption: string): Verdict {
    const o = this.options;
    let text = caption.trim();

    if (this.boilerplate) {
      const b = this.boilerplate.apply(text);
      if (!b.keep) return reject(TEXT_REASONS.boilerplate, b.pattern === '' ? 'nothing but boilerplate' : `matched "${b.pattern}"`);
      text = b.text;
    }
    if (o.minWords !== null || o.maxWords !== null) {
      const n = countWords(text);
      if ((o.minWords !== null && n < o.minWords) || (o.maxWords !== null && n > o.maxWords))
        return reject(TEXT_REASONS.length, `${n} words; allowed ${o.minWords ?? 0}–${o.maxWords ?? '∞'}`);
    }
    if (text.length === 0) return reject(TEXT_REASONS.length, 'empty after boilerplate cropping');

    const analysis = analyse(text);
    const s = textStatistics(analysis);
    if (o.requireNoun && s.nouns === 0) return reject(TEXT_REASONS.noNoun, `no NOUN or PROPN: ${tagged(analysis)}`);
    if (o.requireDeterminer && s.determiners === 0) return reject(TEXT_REASONS.noDeterminer, `no DET: ${tagged(analysis)}`);
    if (o.requirePreposition && s.prepositions === 0) return reject(TEXT_REASONS.noPreposition, `no ADP: ${tagged(analysis)}`);
    if (o.maxNounRatio !== null && s.nounRatio > o.maxNounRatio)
      return reject(TEXT_REASONS.nounRatio, `noun ratio ${ratio(s.nounRatio)} (${s.nouns} of ${s.words} words) > ${o.maxNounRatio}`);
    if (o.maxRepetition !== null && s.repetition > o.maxRepetition)
      return reject(TEXT_REASONS.repetition, `repetition ${ratio(s.repetition)} > ${o.maxRepetition} (repeated: ${listed(repeatedWords(analysis))})`);
    if (o.requireFirstWordCapitalised && !s.firstWordCapitalised)
      return reject(TEXT_REASONS.capitalisation, `first word "${analysis.words.find((w) => w.hasLetter)?.text ?? ''}" is not capitalised`);
    if (o.maxCapitalisedRatio !== null && s.capitalisedRatio > o.maxCapitalisedRatio)
      return reject(TEXT_REASONS.capitalisation, `capitalised-word ratio ${ratio(s.capitalisedRatio)} > ${o.maxCapitalisedRatio}`);
    if (o.minUniqueWordRatio !== null && s.uniqueWordRatio < o.minUniqueWordRatio)
      return reject(TEXT_REASONS.uniqueWords, `unique-word ratio ${ratio(s.uniqueWordRatio)} < ${o.minUniqueWordRatio}`);
    if (this.checksRareWords) {
      const rare = this.rareWords(analysis);
      if (rare.length > 0) {
        const counts = [...new Set(rare)].map((w) => `"${w}" seen ${this.vocabulary!.count(w)}`);
        return reject(TEXT_REASONS.rareWords, `${listed(counts)} (a word must be seen ≥ ${o.minWordFrequency})`);
      }
    }
    if (o.minPolarity !== null || o.maxPolarity !== null) {
      const p = polarity(text);
      if ((o.minPolarity !== null && p < o.minPolarity) || (o.maxPolarity !== null && p > o.maxPolarity))
        return reject(TEXT_REASONS.polarity, `polarity ${ratio(p)} outside ${o.minPolarity ?? '−∞'}…${o.maxPolarity ?? '∞'}`);
    }
    // last: obscenity's matcher is the most expensive step
    if (o.profanity && isProfane(text)) return reject(TEXT_REASONS.profanity, `matched ${profaneMatches(text).join(', ')}`);
    return keep(text);
  }

  /** The words of an analysed caption that the vocabulary counts below minWordFrequency. */
  rareWords(analysis: Analysis): string[] {
    const min = this.options.minWordFrequency;
    if (min === null || this.vocabulary === undefined) return [];
    const rare: string[] = [];
    for (const w of analysis.words) {
      const key = vocabularyKey(w);
      if (key !== undefined && this.vocabulary.count(key) < min) rare.push(key);
    }
    return rare;
  }
}
