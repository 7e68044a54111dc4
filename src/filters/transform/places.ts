/**
 * CC3M §3's named places and things: removed inside a locative phrase ("in Los Angeles"), dropped as a noun's
 * modifier, else replaced by their class. WordNet instances stand in for the Knowledge Graph's entities.
 */
import { wordnet } from '../../wordnet';
import { headWord } from '../../wordnet/nouns';
import { entityKinds, isOrdinaryWord, EntityKind } from '../persons';
import { entityClass, labelsFavour } from '../hypernyms';
import type { Cc3mTransformOptions } from './options';
import { Piece, fixArticle } from './pieces';
import { LOCATIVE_PREPOSITIONS, PLACE_HEADS } from './words';

/** The class word a named place becomes: "city", "country", a landmark's class, "organization" or "place". */
function placeWord(kinds: readonly EntityKind[], phrase: string): string | null {
  const k = kinds.find((x) => x !== 'person' && x !== 'other');
  if (k === undefined) return null;
  if (k === 'city') return 'city';
  if (k === 'country') return 'country';
  if (k === 'structure') {
    // a landmark: its class ("Eiffel Tower" → tower)
    const wn = wordnet();
    const id = wn.synsetsOfLemma(phrase.replace(/ /g, '_'), 'n')[0];
    const up = id !== undefined ? wn.hypernyms(id)[0] : undefined;
    return up !== undefined ? headWord(wn.synset(up).lemmas[0]!.replace(/_/g, ' ')) : 'place';
  }
  if (k === 'organization') return 'organization';
  return 'place';
}

/** Whether a lower-case phrase is only a name (every noun sense an instance): "paris", not "china". */
function onlyInstance(phrase: string): boolean {
  const wn = wordnet();
  const ids = wn.synsetsOfLemma(phrase.replace(/ /g, '_'));
  if (ids.length === 0) return false;
  return ids.every((id) => id.charAt(0) === 'n' && wn.synset(id).pointers.some((p) => p.symbol === '@i'));
}

/**
 * The 'entities' rule's test for a capitalised run (src/filters/hypernyms.ts): a WordNet instance that is
 * not mainly a person (names are findPersons' business), not contradicted by the image's labels; a
 * single word that is also an ordinary word ("Queens", "Turkey", "China") only with a sign of the name:
 * labels for it, a locative preposition before it, or a named place beside it ("China - Hong Kong").
 */
function namedThing(p: Piece[], i: number, len: number, phrase: string, kinds: readonly EntityKind[], noisy: boolean, labels: readonly string[]): boolean {
  if (kinds.length === 0 || kinds[0] === 'person' || !kinds.some((k) => k !== 'person')) return false;
  const favour = labelsFavour(phrase, labels);
  if (favour === 'ordinary') return false;
  if (favour === 'entity') return true;
  if (noisy) return onlyInstance(phrase);
  if (len > 1 || !isOrdinaryWord(phrase)) return true;
  const live = (from: number, step: number): Piece | undefined => {
    for (let k = from; k >= 0 && k < p.length; k += step) if (!p[k]!.gone) return p[k];
    return undefined;
  };
  // an ordinary word before another capitalised word is part of a longer name WordNet does not know ("Sierra Beauty")
  const following = live(i + len, 1);
  if (following !== undefined && following.isWord && following.capital) return false;
  if (namedFirst(phrase)) return true;
  let before = live(i - 1, -1);
  if (before?.lower === 'the') before = live(p.indexOf(before) - 1, -1);
  if (before !== undefined && LOCATIVE_PREPOSITIONS.has(before.lower)) return true;
  const besidePlace = (sep: Piece | undefined, other: Piece | undefined): boolean =>
    sep !== undefined &&
    (sep.lower === ',' || sep.lower === '-') &&
    other !== undefined &&
    other.capital &&
    !isOrdinaryWord(other.lower) &&
    entityKinds(other.lower).some((k) => k !== 'person' && k !== 'other');
  // the run must be a whole item of the list ("China - Hong Kong", not "Germany - North Rhine Westphalia")
  const previous = live(i - 1, -1);
  const next = live(i + len, 1);
  const bound = (t: Piece | undefined): boolean => t === undefined || /^[,.;:!?-]$/.test(t.lower);
  if (!bound(previous) || !bound(next)) return false;
  return besidePlace(previous, previous ? live(p.indexOf(previous) - 1, -1) : undefined) || besidePlace(next, next ? live(p.indexOf(next) + 1, 1) : undefined);
}

/**
 * A word whose first noun sense in WordNet is a named thing ("Paris", "China"), not the plural of an
 * ordinary noun ("Queens") and no other part of speech ("Nice", "North").
 */
function namedFirst(word: string): boolean {
  const wn = wordnet();
  const first = wn.synsetsOfLemma(word, 'n')[0];
  if (first === undefined || !wn.synset(first).pointers.some((q) => q.symbol === '@i')) return false;
  if (wn.lemmaBaseForms(word, 'n').some((base) => base !== word && wn.synsetsOfLemma(base, 'n').length > 0)) return false;
  return wn.synsetsOf(word).every((id) => id.charAt(0) === 'n');
}

/**
 * Named places (and, under the 'entities' rule, every named thing WordNet knows): removed in a locative
 * phrase, else replaced by their class. `labels` is given under the 'entities' rule only.
 */
export function handlePlaces(p: Piece[], noisy: boolean, o: Cc3mTransformOptions, labels?: readonly string[]): void {
  const n = p.length;
  // the caption's own words, before any replacement: the context that picks a name's sense without labels
  const context = p.map((t) => t.lower).join(' ');
  for (let i = 0; i < n; i++) {
    if (p[i]!.gone || !p[i]!.isWord) continue;
    // the longest run (≤ 4 tokens) that is a named place
    let found = -1;
    let word: string | null = null;
    for (let len = Math.min(4, n - i); len >= 1 && found < 0; len--) {
      const run = p.slice(i, i + len);
      if (run.some((t) => t.gone || !t.isWord || !/\p{L}/u.test(t.text))) continue;
      // under the 'entities' rule a name may hold "of" / "de" ("District of Columbia", "Comte de Nice")
      const capitalised = (t: Piece, k: number): boolean =>
        t.capital || (labels !== undefined && k > 0 && k < len - 1 && (t.lower === 'of' || t.lower === 'de'));
      if (!noisy && !run.every(capitalised)) continue;
      const phrase = run.map((t) => t.lower).join(' ');
      const kinds = entityKinds(phrase);
      if (labels !== undefined) {
        if (namedThing(p, i, len, phrase, kinds, noisy, labels)) {
          found = i + len;
          word = kinds.find((k) => k !== 'person') === 'city' ? 'city' : (entityClass(phrase, labels, context) ?? placeWord(kinds, phrase));
        } else if (!noisy && len >= 2 && PLACE_HEADS.has(run[len - 1]!.lower)) {
          found = i + len;
          word = run[len - 1]!.lower;
        }
        continue;
      }
      const place =
        kinds.length > 0 &&
        kinds[0] !== 'person' &&
        kinds[0] !== 'other' &&
        (!noisy || onlyInstance(phrase)) &&
        (noisy || len > 1 || !isOrdinaryWord(phrase) || p[i]!.pos === 'PROPN');
      if (place) {
        found = i + len;
        word = placeWord(kinds, phrase);
      } else if (!noisy && len >= 2 && PLACE_HEADS.has(run[len - 1]!.lower)) {
        found = i + len;
        word = run[len - 1]!.lower; // "Main Street" → street
      }
    }
    if (found < 0 || word === null) continue;
    // "in Bangkok, Thailand": a comma-joined place chain ends the phrase
    let end = found;
    while (p[end]?.lower === ',' && p[end + 1] && entityKinds(p[end + 1]!.lower).some((k) => k === 'country' || k === 'location' || k === 'city')) end += 2;
    let s = i;
    if (p[s - 1]?.lower === 'the') s--;
    const after = p.slice(end).find((t) => !t.gone);
    if (o.removeLocations && LOCATIVE_PREPOSITIONS.has(p[s - 1]?.lower ?? '')) {
      for (let k = s - 1; k < end; k++) p[k]!.gone = true;
    } else if (labels !== undefined && o.removeModifiers && after !== undefined && after.isWord && (after.pos === 'NOUN' || after.pos === 'PROPN')) {
      // §3: a proper-noun modifier of a noun is removed ("a Seville orange" → "an orange")
      for (let k = i; k < end; k++) p[k]!.gone = true;
      fixArticle(p, i);
    } else if (o.replaceEntities) {
      p[i]!.text = word;
      p[i]!.lower = word;
      p[i]!.pos = 'NOUN';
      p[i]!.fixed = true;
      for (let k = i + 1; k < end; k++) p[k]!.gone = true;
    }
    i = end - 1;
  }
}
