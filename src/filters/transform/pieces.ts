/**
 * The caption as the passes see it: one `Piece` per wink-nlp token, marked gone or fixed in place, and the
 * shared edits on pieces (article agreement, plurals, rendering back to text).
 */
import { wordnet } from '../../wordnet';
import { article, headWord, plural } from '../../wordnet/nouns';
import { PERSON_TOKEN } from '../../text/tokens';
import { DANGLING, MASS_NOUNS } from './words';

export interface Piece {
  text: string;
  lower: string;
  pos: string;
  /** Whitespace before the piece in the output. */
  space: string;
  isWord: boolean;
  capital: boolean;
  /** Removed from the output. */
  gone: boolean;
  /** Produced by a replacement (do not look at it again). */
  fixed: boolean;
}

/** A noun's base form by WordNet's morphy ("bottles" → "bottle"), or the word itself. */
export function nounBase(word: string): string {
  return wordnet().lemmaBaseForms(word, 'n')[0] ?? word;
}

/** After words before `i` were removed: the nearest "a"/"an" within three tokens agrees with the next word. */
export function fixArticle(p: Piece[], i: number): void {
  for (let k = i - 1, seen = 0; k >= 0 && seen < 3; k--) {
    const a = p[k]!;
    if (a.gone) continue;
    seen++;
    if (a.lower === 'a' || a.lower === 'an') {
      const following = p.slice(k + 1).find((x) => !x.gone && x.isWord);
      if (following) a.text = matchCase(a.text, article(following.lower));
      return;
    }
  }
}

/** Replaces live[i, i+len) by `word`, fixing a preceding "a"/"an". */
export function replaceRun(live: Piece[], i: number, len: number, word: string): void {
  const t = live[i]!;
  t.text = word;
  t.lower = word;
  t.pos = 'NOUN';
  t.fixed = true;
  for (let k = i + 1; k < i + len; k++) live[k]!.gone = true;
  // the article may sit before adjectives: fix the nearest a/an within two tokens
  for (let k = i - 1; k >= Math.max(0, i - 3); k--) {
    const a = live[k]!;
    if (a.lower === 'a' || a.lower === 'an') {
      const following = live.slice(k + 1).find((x) => !x.gone && x.isWord);
      if (following) a.text = matchCase(a.text, article(following.lower));
      break;
    }
  }
}

export function pluralOf(noun: string): string {
  return MASS_NOUNS.has(headWord(noun)) || headWord(noun).endsWith('ware') ? noun : plural(noun);
}

function matchCase(original: string, word: string): string {
  return original[0] !== original[0]!.toLowerCase() ? word[0]!.toUpperCase() + word.slice(1) : word;
}

export function render(pieces: Piece[], lowercase: boolean): string {
  let out = '';
  for (const t of pieces) {
    const space = t.space.length > 0 || out.length === 0 ? t.space : '';
    out += (out.length === 0 ? '' : space.length > 0 ? ' ' : '') + t.text;
  }
  out = out
    .replace(/\s+([,.;:!?])/g, '$1')
    .replace(/([,;:])(?:\s*[,;:])+/g, '$1')
    .replace(/\(\s*\)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  // strip dangling punctuation and function words at the ends
  for (;;) {
    const before = out;
    out = out
      .replace(/^[\s,;:.\-|]+/, '')
      .replace(/[\s,;:\-|]+$/, '')
      .replace(/\s*\.$/, '');
    const words = out.split(' ');
    if (words.length > 1 && DANGLING.has(words[words.length - 1]!.toLowerCase())) out = words.slice(0, -1).join(' ');
    if (out === before) break;
  }
  return lowercase ? out.toLowerCase().replace(/<person>/g, PERSON_TOKEN) : out;
}
