/** CC3M §3's last rewrite: coordinated noun phrases with one head become its plural ("actor and actor" → "actors"). */
import { wordnet } from '../../wordnet';
import { PERSON_TOKEN } from '../../text/tokens';
import { Piece, nounBase, pluralOf } from './pieces';
import { DETERMINERS } from './words';

/** "actor and actor" → "actors"; "a fruit, a fruit and a fruit" → "fruits"; the verb agrees. */
export function mergeCoordination(pieces: Piece[]): Piece[] {
  const out = [...pieces];
  const nounOf = (t: Piece | undefined): string | null =>
    t && (t.pos === 'NOUN' || t.pos === 'PROPN') && /^[\p{L}-]+$/u.test(t.lower) && t.lower !== PERSON_TOKEN.toLowerCase() ? nounBase(t.lower) : null;
  // a simple noun phrase starting at i: det? adj* noun → [end, head]
  const np = (i: number): [number, string] | null => {
    let j = i;
    if (DETERMINERS.has(out[j]?.lower ?? '')) j++;
    while (out[j] && out[j]!.pos === 'ADJ') j++;
    const head = nounOf(out[j]);
    if (head === null) return null;
    // not the modifier of a compound ("fruit salad")
    if (nounOf(out[j + 1]) !== null) return null;
    return [j + 1, head];
  };
  for (let i = 0; i < out.length; i++) {
    const first = np(i);
    if (!first) continue;
    // "A, B and C": commas continue the list, "and" ends it; a list without "and" is not merged
    const head = first[1];
    let end = first[0];
    let sawAnd = false;
    while (!sawAnd) {
      const sep = out[end]?.lower;
      let next: number;
      if (sep === ',' && out[end + 1]?.lower === 'and') next = end + 2;
      else if (sep === ',' || sep === 'and' || sep === '&') next = end + 1;
      else break;
      const more = np(next);
      if (!more || more[1] !== head) break;
      sawAnd = next > end + 1 || sep !== ',';
      end = more[0];
    }
    if (!sawAnd) continue;
    const merged: Piece = { ...out[i]!, text: pluralOf(head), lower: pluralOf(head), pos: 'NOUN', fixed: true, isWord: true };
    out.splice(i, end - i, merged);
    // subject–verb agreement: "actors attends" → "actors attend"
    const verb = out[i + 1];
    if (verb && (verb.pos === 'VERB' || verb.pos === 'AUX')) {
      const plain = ({ is: 'are', was: 'were', has: 'have', does: 'do' } as Record<string, string>)[verb.lower];
      const bases = wordnet().lemmaBaseForms(verb.lower, 'v');
      const base = plain ?? bases.find((b) => b !== verb.lower && (verb.lower === b + 's' || verb.lower === b + 'es' || verb.lower === b.slice(0, -1) + 'ies'));
      if (base !== undefined) {
        verb.text = base;
        verb.lower = base;
      }
    }
  }
  return out;
}
