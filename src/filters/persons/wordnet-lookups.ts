/** WordNet as the detector's dictionary: which named things a phrase is (person, city, …) and whether a word is ordinary. */
import { wordnet } from '../../wordnet';
import { fold } from './names';
import { FUNCTION_WORDS } from './words';

let ids: { person: string; location: string; organization: string; structure: string; city: string; country: string[] } | undefined;

function anchorIds(): NonNullable<typeof ids> {
  if (ids) return ids;
  const wn = wordnet();
  const first = (lemma: string, gloss: RegExp): string => {
    const found = wn.synsetsOfLemma(lemma, 'n').find((id) => gloss.test(wn.synset(id).gloss)) ?? wn.synsetsOfLemma(lemma, 'n')[0];
    if (found === undefined) throw new Error(`persons: WordNet has no noun "${lemma}"`);
    return found;
  };
  ids = {
    person: first('person', /human/),
    location: first('location', /point or extent in space/),
    organization: first('organization', /group of people/),
    structure: first('structure', /constructed/),
    city: first('city', /large and densely populated/),
    country: ['state', 'country', 'nation'].map((l) => wn.synsetsOfLemma(l, 'n')[0]!).filter((x) => x !== undefined),
  };
  return ids;
}

const ancestorMemo = new Map<string, Set<string>>();

/** All hypernyms (class and instance pointers), transitively. */
function ancestorsOf(id: string): Set<string> {
  const memo = ancestorMemo.get(id);
  if (memo) return memo;
  const out = new Set<string>();
  ancestorMemo.set(id, out);
  for (const h of wordnet().hypernyms(id)) {
    out.add(h);
    for (const a of ancestorsOf(h)) out.add(a);
  }
  return out;
}

/** What kind of named thing WordNet says a phrase is: its instance senses' classes. */
export type EntityKind = 'person' | 'city' | 'country' | 'location' | 'structure' | 'organization' | 'other';

const entityMemo = new Map<string, EntityKind[]>();

/**
 * Kinds of the WordNet *instance* senses of a (possibly multi-word) phrase, most frequent sense
 * first: "Los Angeles" → ["city"], "Harrison" → ["person", …], "Eiffel Tower" → ["structure"].
 * Empty when WordNet has no instance of that name.
 */
export function entityKinds(phrase: string): EntityKind[] {
  const key = fold(phrase).trim().replace(/[\s]+/g, '_');
  const memo = entityMemo.get(key);
  if (memo) return memo;
  const wn = wordnet();
  const a = anchorIds();
  const kinds: EntityKind[] = [];
  for (const id of key.length > 0 ? wn.synsetsOfLemma(key, 'n') : []) {
    const rec = wn.synset(id);
    if (!rec.pointers.some((p) => p.symbol === '@i')) continue;
    const anc = ancestorsOf(id);
    let kind: EntityKind = 'other';
    if (anc.has(a.person)) kind = 'person';
    else if (anc.has(a.city)) kind = 'city';
    else if (a.country.some((c) => anc.has(c))) kind = 'country';
    else if (anc.has(a.location)) kind = 'location';
    else if (anc.has(a.structure)) kind = 'structure';
    else if (anc.has(a.organization)) kind = 'organization';
    if (!kinds.includes(kind)) kinds.push(kind);
  }
  entityMemo.set(key, kinds);
  return kinds;
}

const ordinaryMemo = new Map<string, boolean>();

/**
 * Whether WordNet knows `word` as an ordinary word: a lemma (after morphy) of some part of speech
 * with at least one non-instance sense ("young", "brooks" → brook, "grace"), or a function word.
 */
export function isOrdinaryWord(word: string): boolean {
  const w = fold(word);
  const memo = ordinaryMemo.get(w);
  if (memo !== undefined) return memo;
  let ordinary = FUNCTION_WORDS.has(w);
  if (!ordinary) {
    const wn = wordnet();
    for (const id of wn.synsetsOf(w)) {
      if (id.charAt(0) !== 'n' || !wn.synset(id).pointers.some((p) => p.symbol === '@i')) {
        ordinary = true;
        break;
      }
    }
  }
  ordinaryMemo.set(w, ordinary);
  return ordinary;
}

/** A place (city, country, other location) that is never a person in WordNet. */
export function isPlaceOnly(phrase: string): boolean {
  const kinds = entityKinds(phrase);
  return (
    kinds.length > 0 &&
    !kinds.includes('person') &&
    kinds.some((k) => k === 'city' || k === 'country' || k === 'location' || k === 'structure' || k === 'organization')
  );
}

const nounMemo = new Map<string, boolean>();

export function hasNounSense(word: string): boolean {
  let v = nounMemo.get(word);
  if (v === undefined) {
    v = wordnet().lemmaBaseForms(word, 'n').length > 0;
    nounMemo.set(word, v);
  }
  return v;
}

const occupationMemo = new Map<string, boolean>();

/**
 * A singular noun naming a kind of person ("fisherman", "midwife", "blacksmith"): WordNet has it as a noun lemma, its
 * commonest sense is a person's and so are at least half of its senses (hyponyms of person.n.01, by hypernym closure). "man"
 * and "boy" count too; "fan" (a machine first), "star" or "pilot" do not.
 */
export function isPersonNoun(word: string): boolean {
  const w = fold(word);
  let v = occupationMemo.get(w);
  if (v === undefined) {
    v = false;
    if (w.length >= 3 && !FUNCTION_WORDS.has(w) && /^[a-z]+$/.test(w)) {
      const wn = wordnet();
      const person = anchorIds().person;
      const senses = wn.synsetsOfLemma(w, 'n').filter((id) => !wn.synset(id).pointers.some((p) => p.symbol === '@i'));
      const isPerson = (id: string): boolean => id === person || ancestorsOf(id).has(person);
      const people = senses.filter(isPerson).length;
      v = senses.length > 0 && isPerson(senses[0]!) && 2 * people >= senses.length;
    }
    occupationMemo.set(w, v);
  }
  return v;
}
