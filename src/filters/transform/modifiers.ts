/** CC3M §3: numbers, units and proper nouns that modify a noun are removed ("2 bottles" → "bottles", "Nike shoes" → "shoes"). */
import { PERSON_TOKEN } from '../../text/tokens';
import { isOrdinaryWord } from '../persons';
import type { HypernymRule } from '../hypernyms';
import { Piece, fixArticle } from './pieces';
import { DURATION_UNITS, UNITS, isNumber } from './words';

/** Marks gone the number, unit and proper-noun modifiers of nouns (`hypernymRule` 'entities' also drops runs of names before a noun). */
export function dropModifiers(p: Piece[], noisy: boolean, hypernymRule: HypernymRule): void {
  const n = p.length;
  const next = (i: number): number => {
    let j = i + 1;
    while (j < n && p[j]!.gone) j++;
    return j;
  };
  for (let i = 0; i < n; i++) {
    const t = p[i]!;
    if (t.gone || t.fixed) continue;
    if (isNumber(t.lower) || (t.pos === 'NUM' && /\d/.test(t.lower))) {
      // "5-year-old girl" → "girl", "3 kg of rice" → "rice", "2 bottles" → "bottles"
      let j = next(i);
      const age = p[j]?.lower === '-' && DURATION_UNITS.has(p[next(j)]?.lower ?? '');
      if (age) {
        j = next(next(j));
        if (p[j]?.lower === '-') j = next(j);
        if (p[j]?.lower === 'old') j = next(j);
      } else if (UNITS.has(p[j]?.lower ?? '') && p[j]?.lower !== 'in') {
        j = next(j);
        if (p[j]?.lower === 'of') j = next(j);
      }
      const head = p[j];
      if (head && (head.pos === 'NOUN' || head.pos === 'ADJ' || head.pos === 'PROPN') && head.isWord && !isNumber(head.lower)) {
        for (let k = i; k < j; k++) p[k]!.gone = true;
      }
      continue;
    }
    // 'entities' rule: a run of two or more proper nouns before a noun is a name too, even of ordinary
    // words ("British Airways Airbus A319 aircraft" → "aircraft", CC3M §3's example)
    if (!noisy && hypernymRule === 'entities' && t.pos === 'PROPN' && t.capital && !t.fixed) {
      let j = i;
      let names = 0;
      while (j < n && (p[j]!.gone || (p[j]!.pos === 'PROPN' && p[j]!.capital && !p[j]!.fixed))) {
        if (!p[j]!.gone) names++;
        j++;
      }
      const head = p[j];
      if (names >= 2 && head && head.pos === 'NOUN' && !head.capital && head.isWord) {
        for (let k = i; k < j; k++) p[k]!.gone = true;
        fixArticle(p, j);
        i = j - 1;
        continue;
      }
    }
    // proper-noun modifiers of a noun ("Nike shoes" → "shoes"); ordinary words stay ("Apple pie")
    if (!noisy && t.pos === 'PROPN' && t.capital && !isOrdinaryWord(t.lower)) {
      let j = i;
      while (j < n && !p[j]!.gone && p[j]!.pos === 'PROPN' && p[j]!.capital && !p[j]!.fixed) j++;
      const head = p[j];
      if (head && !head.gone && head.pos === 'NOUN' && !head.capital && p[j - 1]!.lower !== PERSON_TOKEN.toLowerCase()) {
        for (let k = i; k < j; k++) p[k]!.gone = true;
      }
      i = j - 1;
    }
  }
}
