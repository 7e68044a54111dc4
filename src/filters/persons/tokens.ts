/** The detector's tokens (case, initials, possessives, sentence starts) and the caption's case mode. */
import { fold, isCommonGivenName, isGivenName } from './names';
import { isOrdinaryWord } from './wordnet-lookups';
import { CUE_WORDS, DESIGNATORS, FUNCTION_WORDS, MONTHS_AND_DAYS, NAME_SUFFIXES, PARTICLES, isRole } from './words';

export interface Token {
  text: string;
  /** Lower-case, accents folded, possessive removed. */
  key: string;
  start: number;
  /** End of the name part (before a possessive "'s"). */
  end: number;
  /** Starts with an upper-case letter. */
  cap: boolean;
  /** Entirely upper-case (length ≥ 2). */
  upper: boolean;
  /** A single letter (possibly followed by "."): an initial when capitalised. */
  initial: boolean;
  /** Directly followed by "." ("A." in "Jon A. Cruz", "C" in "A.C. Fox-Davies"). */
  dotted: boolean;
  /** An abbreviated name part of two or three letters with its full stop ("Jose Fco. Hevia", "Wm."). */
  abbrev: boolean;
  /** The text between the previous token and this one. */
  gap: string;
  /** Ends in a possessive "'s": a name ends there ("Jonathon's Duck"). */
  possessive: boolean;
  /** First token of a sentence or of a segment after ":", "|", " - ", quotes. */
  sentenceStart: boolean;
  /** Joined to the previous token by plain whitespace (or "X. " after an initial). */
  joined: boolean;
  /** A hashtag / @mention / number-like token: never part of a name. */
  skip: boolean;
}

// C1 control characters (U+0080–U+009F) stay inside a word: they are letters decoded with the wrong code
// page ("Mikolá\u009a" for "Mikoláš")
const TOKEN_RE = /[\p{L}\p{N}][\p{L}\p{M}\p{N}\u0080-\u009f]*(?:['’-][\p{L}\p{N}][\p{L}\p{M}\p{N}\u0080-\u009f]*)*/gu;

export function tokenize(caption: string): Token[] {
  const out: Token[] = [];
  let prevEnd = 0;
  let prev: Token | undefined;
  for (const m of caption.matchAll(TOKEN_RE)) {
    const text = m[0];
    const start = m.index!;
    const gap = caption.slice(prevEnd, start);
    const possessive = /['’]s$/i.test(text) && text.length > 2;
    const core = possessive ? text.slice(0, -2) : text;
    const first = core.charAt(0);
    const cap = first !== first.toLowerCase() && first === first.toUpperCase();
    const letters = core.replace(/[^\p{L}]/gu, '');
    const upper = letters.length >= 2 && letters === letters.toUpperCase() && letters !== letters.toLowerCase();
    const initial = letters.length === 1 && cap;
    const prevChar = start > 0 ? caption.charAt(start - 1) : '';
    const skip = prevChar === '#' || prevChar === '@' || /\d/.test(core) || letters.length === 0;
    const dotted = caption.charAt(start + text.length) === '.';
    const abbrev =
      cap &&
      !upper &&
      !possessive &&
      dotted &&
      (letters.length === 2 || letters.length === 3) &&
      /\s/.test(caption.charAt(start + text.length + 1)) &&
      nameAbbreviation(fold(core));
    const afterInitial = prev !== undefined && (prev.initial || prev.abbrev);
    let joined = prev !== undefined && /^\s+$/.test(gap);
    if (!joined && afterInitial && /^\.\s*$/.test(gap)) joined = true;
    const sentenceStart =
      prev === undefined || /[.!?:|;"“”()[\]]/.test(gap.replace(/^\.\s*$/, afterInitial ? '' : '.')) || /\s[-–—]\s/.test(gap) || /^[-–—]\s/.test(gap);
    const token: Token = {
      text,
      key: fold(core),
      start,
      end: start + core.length,
      cap,
      upper,
      initial,
      dotted,
      abbrev,
      gap,
      possessive,
      sentenceStart,
      joined,
      skip,
    };
    out.push(token);
    prev = token;
    prevEnd = start + text.length;
  }
  return out;
}

/** "Fco" (Francisco), "Wm" (William): not a word, a name, a title, a designator or a month. */
function nameAbbreviation(key: string): boolean {
  return (
    !isOrdinaryWord(key) &&
    !isGivenName(key) &&
    !isCommonGivenName(key) &&
    !isRole(key) &&
    !DESIGNATORS.has(key) &&
    !NAME_SUFFIXES.has(key) &&
    !MONTHS_AND_DAYS.has(key) &&
    !CUE_WORDS.has(key)
  );
}

type CaseMode = 'normal' | 'noisy';

/** ALL CAPS or Title Case text carries no capitalisation signal. */
export function caseMode(tokens: readonly Token[]): CaseMode {
  const words = tokens.filter((t) => !t.skip && t.key.length >= 2);
  if (words.length < 2) return 'normal';
  const upper = words.filter((t) => t.upper).length;
  if (upper / words.length >= 0.8) return 'noisy';
  if (words.length >= 3 && words.filter((t) => t.cap).length / words.length >= 0.85) return 'noisy';
  const inner = words.filter((t) => !t.sentenceStart);
  if (inner.length < 2) return 'normal';
  const capInner = inner.filter((t) => t.cap).length;
  // Title Case: capitalised function words inside the text, or almost every word capitalised
  const capFunction = inner.some((t) => t.cap && FUNCTION_WORDS.has(t.key) && !PARTICLES.has(t.key));
  if (capFunction && capInner / inner.length >= 0.6) return 'noisy';
  if (capInner / inner.length >= 0.85 && inner.length >= 3) return 'noisy';
  return 'normal';
}
