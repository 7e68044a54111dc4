/**
 * CC3M §3 boilerplate handling: "predefined boiler-plate prefix/suffix sequences matching the text
 * are cropped, e.g. 'click to enlarge picture', 'stock photo'; we also drop text which begins/ends
 * in certain patterns, e.g. 'embedded image permalink', 'profile photo'."
 *
 * The paper gives only those examples; the lists below are cckit's (multi-word phrases, or words that
 * are boilerplate wherever they stand, so that "truck loading" or "camera zoom" is left alone), written from the kind of
 * alt-text stock-photo sites, CMSs and social networks emit. They are plain data: pass your own
 * BoilerplateLists to extend them. Matching is case-insensitive, and the words of a phrase may be
 * separated by spaces, hyphens or underscores ("royalty-free image" matches "royalty free image").
 *
 * - crop: a prefix phrase at the start (with a following "of": "Stock photo of a dog" → "a dog"), or a suffix phrase at the end, optionally in brackets and
 *   separated from the rest by punctuation (" - ", ": ", " | ", ", ") or spaces, is removed, and
 *   so is the separator; repeated until nothing more matches ("Stock Photo - … - click to enlarge").
 * - reject: a caption that begins or ends with a reject phrase (whole words) is dropped. The check
 *   runs before and after cropping, so "Stock photo: image not found" is rejected too.
 * - a caption that is nothing but boilerplate (empty after cropping) is rejected.
 */

/** Cropped at the start of a caption (CC3M §3: "stock photo"). Order does not matter (longest match wins). */
export const BOILERPLATE_PREFIXES: readonly string[] = [
  'stock photo',
  'stock photos',
  'stock photography',
  'stock image',
  'stock images',
  'stock picture',
  'stock vector',
  'stock illustration',
  'stock footage',
  'royalty free image',
  'royalty free stock photo',
  'royalty free stock image',
  'royalty free photo',
  'royalty free picture',
  'royalty free',
  'free stock photo',
  'image may contain',
  'photo may contain',
  'photo by',
  'image by',
  'picture by',
  'photo credit',
  'image credit',
  'click to enlarge',
  'click to enlarge picture',
  'click to enlarge image',
  'click here to enlarge',
  'thumbnail',
  'featured image',
];

/** Cropped at the end of a caption (CC3M §3: "click to enlarge picture", "stock photo"). */
export const BOILERPLATE_SUFFIXES: readonly string[] = [
  'click to enlarge',
  'click to enlarge picture',
  'click to enlarge image',
  'click to enlarge photo',
  'click here to enlarge',
  'click for larger image',
  'click image to enlarge',
  'click to zoom',
  'click to view larger',
  'stock photo',
  'stock photos',
  'stock photography',
  'stock image',
  'stock images',
  'stock picture',
  'stock pictures',
  'stock vector',
  'stock illustration',
  'stock footage',
  'stock photo and image',
  'free stock photo',
  'royalty free image',
  'royalty free stock photo',
  'royalty free stock image',
  'royalty free photo',
  'royalty free picture',
  'royalty free',
  'high resolution image',
  'hd wallpaper',
  'free download',
  'thumbnail',
];

/** A caption beginning or ending with one of these is rejected (CC3M §3: "embedded image permalink", "profile photo"). */
export const BOILERPLATE_REJECTS: readonly string[] = [
  'embedded image permalink',
  'image permalink',
  'profile photo',
  'profile picture',
  'profile image',
  'cover photo',
  'default avatar',
  'image not found',
  'image not available',
  'image unavailable',
  'no image available',
  'no image',
  'no photo available',
  'no photo',
  'photo not available',
  'picture not available',
  'placeholder image',
  'image placeholder',
  'untitled image',
  'insert image',
  'click here',
  'view image',
  'view larger image',
];

export interface BoilerplateLists {
  prefixes: readonly string[];
  suffixes: readonly string[];
  rejects: readonly string[];
}

export const DEFAULT_BOILERPLATE: BoilerplateLists = {
  prefixes: BOILERPLATE_PREFIXES,
  suffixes: BOILERPLATE_SUFFIXES,
  rejects: BOILERPLATE_REJECTS,
};

export type BoilerplateResult =
  /** `text` is the caption with boilerplate cropped (unchanged when `cropped` is empty). */
  | { keep: true; text: string; cropped: string[] }
  /** `pattern` is the reject phrase matched, or '' when nothing but boilerplate was left. */
  | { keep: false; pattern: string };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** "royalty free image" → a pattern accepting spaces, hyphens or underscores between the words. */
function phrasePattern(phrase: string): string {
  return phrase
    .trim()
    .toLowerCase()
    .split(/[\s_-]+/)
    .map(escapeRegExp)
    .join('[\\s_\\-–—]+');
}

function alternation(phrases: readonly string[]): string {
  // longest first, so "stock photography" is tried before "stock photo"
  const sorted = [...new Set(phrases.map((p) => p.trim().toLowerCase()).filter((p) => p.length > 0))].sort((a, b) => b.length - a.length);
  return sorted.map(phrasePattern).join('|');
}

const NOT_WORD = '(?![\\p{L}\\p{N}])';
const NOT_WORD_BEFORE = '(?<![\\p{L}\\p{N}])';
/** Separators between boilerplate and the caption proper. */
const SEPARATORS = '[\\s\\-–—:|,.·•/>»~*_]';
/** The separators trimmed from the caption's ends after a crop ('.' only at the start: "A dog." keeps its period). */
const TRIM_END = new Set([...' \t\n\r\f\v\u00a0-–—:|,·•/>»~*_']);
const TRIM_START = new Set([...TRIM_END, '.']);

function trimSeparators(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (TRIM_START.has(text[start]) || /\s/.test(text[start]))) start++;
  while (end > start && (TRIM_END.has(text[end - 1]) || /\s/.test(text[end - 1]))) end--;
  return text.slice(start, end);
}

/**
 * Crops and rejects boilerplate; compile once, use for any number of captions. The patterns are
 * written so that no input makes them backtrack badly (each is anchored, or starts with a literal
 * phrase and ends with a single run of one class): a 10,000-character caption takes well under a
 * millisecond.
 */
export class Boilerplate {
  readonly lists: BoilerplateLists;
  private readonly prefix: RegExp | undefined;
  private readonly suffix: RegExp | undefined;
  private readonly rejectStart: RegExp | undefined;
  private readonly rejectEnd: RegExp | undefined;

  constructor(lists: BoilerplateLists = DEFAULT_BOILERPLATE) {
    this.lists = lists;
    const prefixes = alternation(lists.prefixes);
    const suffixes = alternation(lists.suffixes);
    const rejects = alternation(lists.rejects);
    // ^ [separators] [( [separators]] PHRASE [of] [)] then separators or the end
    if (prefixes)
      this.prefix = new RegExp(`^${SEPARATORS}*(?:[([{]${SEPARATORS}*)?(?:${prefixes})${NOT_WORD}(?:\\s+of(?=\\s))?\\s*[)\\]}]?(?:${SEPARATORS}+|$)`, 'iu');
    // [(] PHRASE [)] [.!] $ — the separators before it are trimmed afterwards
    if (suffixes) this.suffix = new RegExp(`(?:[([{]\\s*)?${NOT_WORD_BEFORE}(?:${suffixes})${NOT_WORD}[\\s)\\]}.!]*$`, 'iu');
    if (rejects) {
      this.rejectStart = new RegExp(`^[\\W_]*(${rejects})${NOT_WORD}`, 'iu');
      this.rejectEnd = new RegExp(`${NOT_WORD_BEFORE}(${rejects})[\\W_]*$`, 'iu');
    }
  }

  /** The reject phrase the text begins or ends with, if any. */
  rejectPattern(text: string): string | undefined {
    const match = this.rejectStart?.exec(text) ?? this.rejectEnd?.exec(text);
    return match ? match[1].toLowerCase() : undefined;
  }

  /** Crops boilerplate prefixes/suffixes; rejects reject patterns and all-boilerplate captions. */
  apply(caption: string): BoilerplateResult {
    let text = caption.trim();
    const cropped: string[] = [];
    for (let round = 0; round < 16; round++) {
      const rejected = this.rejectPattern(text);
      if (rejected !== undefined) return { keep: false, pattern: rejected };
      let changed = false;
      const p = this.prefix?.exec(text);
      if (p && p[0].length > 0) {
        cropped.push(p[0].trim());
        text = trimSeparators(text.slice(p[0].length));
        changed = true;
      }
      const s = this.suffix?.exec(text);
      if (s && s[0].length > 0) {
        cropped.push(s[0].trim());
        text = trimSeparators(text.slice(0, s.index));
        changed = true;
      }
      if (!changed) break;
    }
    if (text.length === 0) return { keep: false, pattern: '' };
    return { keep: true, text, cropped };
  }
}

let shared: Boilerplate | undefined;

/** apply() of a shared Boilerplate with the default lists. */
export function cropBoilerplate(caption: string): BoilerplateResult {
  return (shared ??= new Boilerplate()).apply(caption);
}
