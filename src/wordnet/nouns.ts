/**
 * English noun helpers for WordNet names: the head word of a synset name, "a"/"an", and plurals
 * (WordNet's noun exception list gives the irregular ones). Shared by the world's caption
 * generator (src/world) and the CC3M hypernymiser (src/filters).
 */
import { wordnet } from './index';

/** The head word of a hypernym name: "edible fruit" → "fruit", "bird of prey" → "bird". */
export function headWord(name: string): string {
  const of = name.indexOf(' of ');
  const core = of >= 0 ? name.slice(0, of) : name;
  const words = core.split(' ');
  return words[words.length - 1]!;
}

/** "a" or "an" before a word, by its first letter (good enough for generated captions). */
export function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/** Plurals where WordNet's exception list is missing or lists an unusual form first. */
const PLURAL_OVERRIDES: Record<string, string> = {
  person: 'people',
  bus: 'buses',
  sheep: 'sheep',
  fish: 'fish',
  deer: 'deer',
  moose: 'moose',
  bison: 'bison',
  salmon: 'salmon',
  trout: 'trout',
  shrimp: 'shrimp',
  squid: 'squid',
  aircraft: 'aircraft',
  series: 'series',
};

let irregular: Map<string, string> | undefined;

/** Plural of a (possibly multi-word) noun: the last word is inflected. */
export function plural(noun: string): string {
  const words = noun.split(' ');
  const last = words[words.length - 1]!;
  words[words.length - 1] = pluralWord(last);
  return words.join(' ');
}

function pluralWord(word: string): string {
  if (word in PLURAL_OVERRIDES) return PLURAL_OVERRIDES[word]!;
  irregular ??= wordnet().irregularPlurals();
  const known = irregular.get(word);
  if (known) return known;
  if (/(s|x|z|ch|sh)$/.test(word)) return word + 'es';
  if (/[^aeiou]y$/.test(word)) return word.slice(0, -1) + 'ies';
  return word + 's';
}
