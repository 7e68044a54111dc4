/**
 * "Basic-level" hypernym words: the everyday words ("fruit", "dog", "instrument") on a noun's
 * hypernym chain, as opposed to taxonomic ("placental") or abstract ("artifact") ones. Used by
 * the world's concept catalog (src/world/concepts.ts) and the WordNet concept catalog of the
 * CC3M hypernymiser (src/wordnet/catalog.ts).
 */
import { headWord } from './nouns';
import { lemmaTagCount } from './sense-tags';

/** Minimum SemCor tag count (over all noun senses) for a head word to count as a basic-level word. */
export const BASIC_MIN_TAGS = 2;

/** WordNet's top nodes: too abstract for a tagger to report or a classifier to learn as a label. */
export const WORDNET_TOP_NODES: ReadonlySet<string> = new Set([
  'entity',
  'physical entity',
  'abstraction',
  'object',
  'whole',
  'matter',
  'artifact',
  'living thing',
  'organism',
  'causal agent',
  'unit',
  'thing',
  'group',
  'relation',
  'substance',
  'part',
  'instrumentality',
  'attribute',
  'psychological feature',
  'measure',
  'communication',
]);

/** Hypernym heads too abstract to serve as a hypernymised name. */
export const ABSTRACT_HEADS: ReadonlySet<string> = new Set([
  'entity',
  'physical entity',
  'abstraction',
  'object',
  'whole',
  'thing',
  'artifact',
  'instrumentality',
  'matter',
  'substance',
  'solid',
  'organism',
  'being',
  'living thing',
  'causal agent',
  'agent',
  'chordate',
  'vertebrate',
  'placental',
  'part',
  'commodity',
  'article',
  'ware',
  'creation',
  'product',
  'communication',
  'unit',
  'group',
  'nutriment',
  'durables',
  'goods',
]);

/**
 * The basic-level words of a chain of hypernym names (nearest first): walking up the chain, each
 * hypernym contributes its head word ("edible fruit" → "fruit") when that word is common
 * (≥ BASIC_MIN_TAGS SemCor tags over its noun senses), not an abstract top-level word
 * (ABSTRACT_HEADS), and differs from `own` (the noun's own name) and from the earlier entries.
 */
export function basicLevelWords(own: string, hypernymNames: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of hypernymNames) {
    const head = headWord(name);
    if (ABSTRACT_HEADS.has(name) || ABSTRACT_HEADS.has(head)) continue;
    if (lemmaTagCount(head) < BASIC_MIN_TAGS) continue;
    if (head === own || out.includes(head)) continue;
    out.push(head);
  }
  return out;
}
