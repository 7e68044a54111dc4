/**
 * Which words the CC3M transform hypernymises (CC3M §3, "text transformation with hypernymization"),
 * and the named-entity classes it puts in their place.
 *
 * The paper ran Google Cloud Natural Language over the alt-text and matched the *named entities* it
 * found against the Knowledge Graph: "named-entities are identified, matched against the KG entries,
 * and substitute with their hypernym" ("British Airways Airbus A319 aircraft" → "aircraft"). Ordinary
 * nouns are left as written; rare concepts leave the dataset through the count-based pruning that
 * follows (§3, end), which is why CC3M still holds durian 61 and quiche 50 times (CC12M Table 1).
 *
 *  - `'entities'` (the default, for real text): only named things are replaced: persons by their role
 *    word or "person" (src/filters/persons.ts), places and other named things WordNet knows as
 *    instances by the class WordNet gives them ("Canada" → country, "Manitoba" → province, "Mars" →
 *    planet), proper-noun modifiers removed ("Seville orange" → "orange"). Common nouns stay.
 *  - `'every-noun'`: the rule cckit used before: additionally every fine-grained noun of the concept
 *    catalog and every rare concrete WordNet noun becomes its basic-level hypernym ("beagle" →
 *    "hound", "durian" → "tree"). On real text it generalises common nouns and picks wrong senses
 *    ("cherries" → "woods", "caboose" → "kitchen"). Kept for comparison only: since world generation 3
 *    the embedded world uses `'entities'` too, so its CC3M-like pool keeps rare words as CC3M does.
 *
 * WordNet 3.1 is the open stand-in for the Knowledge Graph. Where the image has labels (a pair's
 * `tags`: vision labels, or keywords on real data), the sense they support is chosen: "Queens" with
 * the labels "chess, queen" stays "queens" rather than the borough; "Colorado" with "river" is a river.
 * Where the labels say nothing, the caption's own words may ("Uranus—one of the gas giants in our
 * solar system": the planet, a member of the solar system, not the Greek god); else WordNet's first sense.
 */
import { wordnet } from '../wordnet';
import { ABSTRACT_HEADS, WORDNET_TOP_NODES, basicLevelWords } from '../wordnet/basic-level';
import { headWord } from '../wordnet/nouns';

/** Which nouns the CC3M transform hypernymises (module comment). */
export type HypernymRule = 'entities' | 'every-noun';

export const HYPERNYM_RULES: readonly HypernymRule[] = ['entities', 'every-noun'];

const isInstance = (id: string): boolean =>
  wordnet()
    .synset(id)
    .pointers.some((p) => p.symbol === '@i');

const nameOf = (id: string): string => wordnet().synset(id).lemmas[0]!.replace(/_/g, ' ').toLowerCase();

const wordsMemo = new Map<string, Set<string>>();

/**
 * The words a label may use for a sense: the synset's lemmas and those of all its hypernyms (class
 * and instance pointers), each also by its head word, without WordNet's abstract top nodes.
 */
function senseWords(id: string): Set<string> {
  let words = wordsMemo.get(id);
  if (words) return words;
  words = new Set<string>();
  const wn = wordnet();
  const seen = new Set<string>();
  const stack = [id];
  while (stack.length > 0) {
    const cur = stack.pop()!;
    if (seen.has(cur)) continue;
    seen.add(cur);
    for (const lemma of wn.synset(cur).lemmas) {
      const name = lemma.replace(/_/g, ' ').toLowerCase();
      for (const w of [name, headWord(name)]) if (!WORDNET_TOP_NODES.has(w) && !ABSTRACT_HEADS.has(w)) words.add(w);
    }
    stack.push(...wn.hypernyms(cur));
  }
  wordsMemo.set(id, words);
  return words;
}

/** A label in the form senseWords uses: lower case, single spaces, its last word singular. */
function labelForms(label: string): string[] {
  const words = label.toLowerCase().replace(/[_-]+/g, ' ').trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  const last = words[words.length - 1]!;
  const singular = wordnet().lemmaBaseForms(last, 'n')[0] ?? last;
  const phrase = [...words.slice(0, -1), singular].join(' ');
  return phrase === singular ? [phrase] : [phrase, singular];
}

/** How many of the labels name the sense or one of its hypernyms. */
export function labelSupport(id: string, labels: readonly string[]): number {
  const words = senseWords(id);
  return labels.filter((label) => labelForms(label).some((form) => words.has(form))).length;
}

/** Whether `phrase` occurs in `text` as whole words (both lower case). */
function mentions(text: string, phrase: string): boolean {
  let at = text.indexOf(phrase);
  while (at >= 0) {
    const before = at === 0 ? '' : text.charAt(at - 1);
    const after = text.charAt(at + phrase.length);
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
    at = text.indexOf(phrase, at + 1);
  }
  return false;
}

/**
 * How many words of the sense (its hypernyms' and the wholes it is a member or part of: "solar system")
 * the caption itself uses, the name excluded.
 */
function contextSupport(id: string, phrase: string, context: string): number {
  const wn = wordnet();
  const words = new Set(senseWords(id));
  for (const q of wn.synset(id).pointers)
    if (q.symbol === '#m' || q.symbol === '#p' || q.symbol === '#s')
      for (const lemma of wn.synset(q.target).lemmas) words.add(lemma.replace(/_/g, ' ').toLowerCase());
  words.delete(phrase);
  let n = 0;
  for (const w of words) if (w.length > 2 && mentions(context, w)) n++;
  return n;
}

/** WordNet's lexicographer file noun.person (people, and the gods WordNet files with them). */
const NOUN_PERSON_FILE = 18;

/** The noun senses of a phrase that name a thing (WordNet instances); persons and gods excluded (findPersons' business). */
function namedSenses(phrase: string): string[] {
  const wn = wordnet();
  return wn
    .synsetsOfLemma(phrase.trim().toLowerCase().replace(/\s+/g, '_'), 'n')
    .filter((id) => isInstance(id) && wn.synset(id).lexFileNum !== NOUN_PERSON_FILE && !senseWords(id).has('person'));
}

/**
 * Whether the labels speak for the named thing, for the ordinary word, or neither (undefined): the
 * best-supported sense of each side compared. "Queens" with labels [chess, queen]: the ordinary word.
 */
export function labelsFavour(phrase: string, labels: readonly string[] | undefined): 'entity' | 'ordinary' | undefined {
  if (labels === undefined || labels.length === 0) return undefined;
  const wn = wordnet();
  const lemma = phrase.trim().toLowerCase().replace(/\s+/g, '_');
  const named = namedSenses(phrase);
  const ordinaryIds = [...new Set(wn.lemmaBaseForms(lemma, 'n').concat(lemma))].flatMap((base) => wn.synsetsOfLemma(base, 'n').filter((id) => !isInstance(id)));
  const best = (ids: string[]) => ids.reduce((m, id) => Math.max(m, labelSupport(id, labels)), 0);
  const entity = best(named);
  const ordinary = best(ordinaryIds);
  if (entity === ordinary) return undefined;
  return entity > ordinary ? 'entity' : 'ordinary';
}

const classMemo = new Map<string, string | null>();

/**
 * The class word of a named thing (its hypernym, CC3M §3): the WordNet instance sense the labels
 * support best, else the one the caption's own words (`context`, lower case) support best, else the
 * first; then the nearest everyday word on its class chain ("North American country" → country,
 * "Canadian province" → province, "superior planet" → planet). Null when WordNet has no such instance.
 */
export function entityClass(phrase: string, labels?: readonly string[], context?: string): string | null {
  const name = phrase.trim().toLowerCase();
  const senses = namedSenses(name);
  if (senses.length === 0) return null;
  let chosen = senses[0]!;
  let most = 0;
  if (labels !== undefined && labels.length > 0) {
    for (const id of senses) {
      const support = labelSupport(id, labels);
      if (support > most) [most, chosen] = [support, id];
    }
  }
  if (most === 0 && context !== undefined && senses.length > 1) {
    for (const id of senses) {
      const support = contextSupport(id, name, context);
      if (support > most) [most, chosen] = [support, id];
    }
  }
  const key = `${phrase}\u0000${chosen}`;
  const memo = classMemo.get(key);
  if (memo !== undefined) return memo;
  const wn = wordnet();
  const chain: string[] = [];
  const seen = new Set<string>([chosen]);
  for (let cur = wn.hypernyms(chosen)[0]; cur !== undefined && !seen.has(cur); cur = wn.hypernyms(cur)[0]) {
    seen.add(cur);
    chain.push(nameOf(cur));
  }
  const out = basicLevelWords(phrase.toLowerCase(), chain)[0] ?? null;
  classMemo.set(key, out);
  return out;
}
