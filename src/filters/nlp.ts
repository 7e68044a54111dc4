/**
 * The one place the text filters (src/filters/text.ts) get tokens, part-of-speech tags and lemmas
 * from: a shared wink-nlp instance (English "lite web" model), created lazily on first use so that
 * importing the filters costs nothing until a caption is analysed (model load: ~0.1 s).
 *
 * CC3M §3 ran Google Cloud Natural Language (POS, sentiment, profanity) over each alt-text; wink-nlp
 * is the local stand-in. Its tags are the Universal Dependencies set (NOUN, PROPN, DET, ADP, …).
 *
 * Placeholders. CC12M replaces person names with the special token `<PERSON>`; wink's tokenizer
 * would split it into `<`, `PERSON`, `>`. Before tagging, every placeholder of PLACEHOLDERS is
 * replaced by a stand-in proper name (PLACEHOLDER_STAND_IN, so the tagger sees a name in context and
 * the neighbours get the tags they would have next to a real name); after tagging, that token is
 * given back the placeholder's text, tag PROPN, lemma = the placeholder, `isPlaceholder: true` and
 * `isCapitalised: true` (it stands for a capitalised name). It is always exactly ONE token.
 *
 * Throughput (2-core dev machine, Node 20, the world's alt-text, ~9 tokens a caption, one core): wink
 * alone tokenises ~150k captions/s and tokenises + tags ~100k/s; analyse() (tags, lemmas, offsets,
 * flags) ~60–65k/s (~15 µs a caption); tokenize() ~95k/s. The whole text stage's figures are in
 * text.ts.
 */
import type { ItsFunction, PartOfSpeech, WinkMethods } from 'wink-nlp';
import { winkInstance } from '../text/wink';
import { PERSON_TOKEN } from '../text/tokens';

/** Special tokens that stay single tokens and are tagged as proper nouns (CC12M §2.2's `<PERSON>`). */
export const PLACEHOLDERS: readonly string[] = [PERSON_TOKEN];

/** What the tagger sees in a placeholder's place: a plain given name (tagged PROPN in any context). */
export const PLACEHOLDER_STAND_IN = 'John';

export type Pos = PartOfSpeech;

export interface Token {
  /** The token's text as it is in the caption (a placeholder: `<PERSON>`). */
  text: string;
  /** Lower-cased text: the key of vocabulary look-ups and repetition counts. */
  lower: string;
  /** wink's lemma (lower-cased; "attends" → "attend", "children" → "child"). */
  lemma: string;
  /** Universal POS tag; placeholders are PROPN. */
  pos: Pos;
  /** wink's token type: word, number, punctuation, symbol, hashtag, url, email, emoji, … ; `placeholder` for placeholders. */
  type: string;
  /** Character offsets in the caption passed to analyse(): caption.slice(start, end) === text. */
  start: number;
  end: number;
  /** Contains a letter or a digit: counts as a word in every ratio (punctuation and symbols do not). */
  isWord: boolean;
  /** Contains a letter (so can be capitalised, and is looked up in the vocabulary). */
  hasLetter: boolean;
  isPunctuation: boolean;
  /** First letter is upper case ("Paris", "PHOTO", and every placeholder). */
  isCapitalised: boolean;
  /** At least two letters, all upper case ("PHOTO"). */
  isAllCaps: boolean;
  /** wink's English stop-word list ("a", "the", "is", "of", …). */
  isStopWord: boolean;
  isPlaceholder: boolean;
}

export interface Analysis {
  caption: string;
  /** Every token, punctuation included, in order. */
  tokens: Token[];
  /** The tokens with isWord set, in order. */
  words: Token[];
}

let tagger: WinkMethods | undefined;
let tokenizer: WinkMethods | undefined;

/** The shared wink-nlp instance with the POS tagger (created on first call). */
export function nlp(): WinkMethods {
  return (tagger ??= winkInstance(['pos']));
}

/** A second instance with an empty pipe: tokens only, ~1.5× faster (vocabulary passes). */
function plainTokenizer(): WinkMethods {
  return (tokenizer ??= winkInstance([]));
}

const LETTERS = /\p{L}/gu;
const DIGIT = /\p{N}/u;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

interface Substitution {
  /** Text with placeholders replaced by the stand-in. */
  text: string;
  /**
   * Per placeholder occurrence: its offset in `text` and in the original, and where the text after
   * it starts in both (after the stand-in and any separator space inserted behind it).
   */
  spots: { at: number; originalAt: number; placeholder: string; subEnd: number; originalEnd: number }[];
}

function substitutePlaceholders(caption: string): Substitution {
  const spots: Substitution['spots'] = [];
  if (!caption.includes('<')) return { text: caption, spots };
  let text = '';
  let i = 0;
  while (i < caption.length) {
    const next = caption.indexOf('<', i);
    if (next < 0) break;
    const placeholder = PLACEHOLDERS.find((p) => caption.startsWith(p, next));
    if (!placeholder) {
      text += caption.slice(i, next + 1);
      i = next + 1;
      continue;
    }
    text += caption.slice(i, next);
    // keep the stand-in a separate token when the placeholder touches a word ("<PERSON><PERSON>")
    if (text.length > 0 && WORD_CHAR.test(text[text.length - 1])) text += ' ';
    const at = text.length;
    text += PLACEHOLDER_STAND_IN;
    i = next + placeholder.length;
    if (i < caption.length && WORD_CHAR.test(caption[i])) text += ' ';
    spots.push({ at, originalAt: next, placeholder, subEnd: text.length, originalEnd: i });
  }
  text += caption.slice(i);
  return { text, spots };
}

/** Maps an offset in the substituted text back to the original caption (outside placeholders). */
function originalOffset(sub: Substitution, at: number): number {
  let shift = 0;
  for (const s of sub.spots) {
    if (s.subEnd > at) break;
    shift = s.originalEnd - s.subEnd;
  }
  // inserted separator spaces are never inside a token, so this is exact for token starts
  return at + shift;
}

/** Letter/digit/case facts of a token's text: a char-code loop for ASCII, Unicode regexes otherwise. */
function shapeOf(text: string): { hasLetter: boolean; hasDigit: boolean; capitalised: boolean; allCaps: boolean } {
  let letters = 0;
  let upper = 0;
  let hasDigit = false;
  let capitalised = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return shapeOfUnicode(text);
    if (c >= 48 && c <= 57) hasDigit = true;
    else if (c >= 65 && c <= 90) {
      if (letters === 0) capitalised = true;
      letters++;
      upper++;
    } else if (c >= 97 && c <= 122) letters++;
  }
  return { hasLetter: letters > 0, hasDigit, capitalised, allCaps: letters >= 2 && upper === letters };
}

function shapeOfUnicode(text: string): { hasLetter: boolean; hasDigit: boolean; capitalised: boolean; allCaps: boolean } {
  const letters = text.match(LETTERS) ?? [];
  const first = letters[0];
  const isUpper = (l: string) => l !== l.toLowerCase() && l === l.toUpperCase();
  return {
    hasLetter: letters.length > 0,
    hasDigit: DIGIT.test(text),
    capitalised: first !== undefined && isUpper(first),
    allCaps: letters.length >= 2 && letters.every(isUpper),
  };
}

function makeToken(text: string, lemma: string, pos: Pos, type: string, start: number, end: number, stop: boolean): Token {
  const shape = shapeOf(text);
  const hasLetter = shape.hasLetter;
  const isCapitalised = shape.capitalised;
  const isAllCaps = shape.allCaps;
  const isWord = hasLetter || shape.hasDigit;
  return {
    text,
    lower: text.toLowerCase(),
    lemma,
    pos,
    type,
    start,
    end,
    isWord,
    hasLetter,
    isPunctuation: type === 'punctuation' || pos === 'PUNCT',
    isCapitalised,
    isAllCaps,
    isStopWord: stop,
    isPlaceholder: false,
  };
}

/**
 * Tokens, POS tags, lemmas and flags of a caption. Placeholders (`<PERSON>`) are single PROPN
 * tokens. Offsets refer to `caption` itself.
 */
export function analyse(caption: string): Analysis {
  return run(caption, true);
}

/**
 * The same tokens as analyse() without POS tags and lemmas (pos is 'X', lemma = lower-cased text):
 * for passes that only need the words, such as building a vocabulary.
 */
export function tokenize(caption: string): Analysis {
  return run(caption, false);
}

function run(caption: string, tag: boolean): Analysis {
  const sub = substitutePlaceholders(caption);
  const instance = tag ? nlp() : plainTokenizer();
  const its = instance.its;
  const doc = instance.readDoc(sub.text).tokens();
  const values = doc.out(its.value) as string[];
  const spaces = doc.out(its.precedingSpaces) as string[];
  const types = doc.out(its.type) as string[];
  const tags = tag ? (doc.out(its.pos) as Pos[]) : undefined;
  const lemmas = tag ? (doc.out(its.lemma as unknown as ItsFunction<string>) as string[]) : undefined;
  const stops = doc.out(its.stopWordFlag) as unknown as boolean[];
  const tokens: Token[] = [];
  const words: Token[] = [];
  let offset = 0;
  let spot = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    offset += spaces[i].length;
    const at = offset;
    offset += value.length;
    let token: Token;
    while (spot < sub.spots.length && sub.spots[spot].at < at) spot++;
    const s = sub.spots[spot];
    if (s && s.at === at && value === PLACEHOLDER_STAND_IN) {
      token = {
        text: s.placeholder,
        lower: s.placeholder.toLowerCase(),
        lemma: s.placeholder,
        pos: 'PROPN',
        type: 'placeholder',
        start: s.originalAt,
        end: s.originalAt + s.placeholder.length,
        isWord: true,
        hasLetter: true,
        isPunctuation: false,
        isCapitalised: true,
        isAllCaps: false,
        isStopWord: false,
        isPlaceholder: true,
      };
      spot++;
    } else {
      const start = sub.spots.length === 0 ? at : originalOffset(sub, at);
      token = makeToken(value, lemmas ? lemmas[i].toLowerCase() : value.toLowerCase(), tags ? tags[i] : 'X', types[i], start, start + value.length, stops[i]);
    }
    tokens.push(token);
    if (token.isWord) words.push(token);
  }
  return { caption, tokens, words };
}

/** Words of a caption by whitespace: the unit of CC12M §2.2's "3 to 256 words" (no tagging needed). */
export function countWords(caption: string): number {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < caption.length; i++) {
    const c = caption.charCodeAt(i);
    const space = c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a);
    if (space) inWord = false;
    else if (!inWord) {
      inWord = true;
      count++;
    }
  }
  return count;
}
