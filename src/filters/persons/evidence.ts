/**
 * The tests the detector applies to a capitalised run: cues before it, evidence of a name inside it, famous
 * names WordNet knows, and the signs that it names a place or a thing instead.
 */
import { wordnet } from '../../wordnet';
import { isCommonGivenName, isCommonSurname, isGivenName } from './names';
import { Token } from './tokens';
import { sentenceEvidence } from './context';
import { entityKinds, hasNounSense, isOrdinaryWord, isPersonNoun, isPlaceOnly } from './wordnet-lookups';
import {
  BRANDS,
  CUE_WORDS,
  DEPICTIONS,
  DESIGNATORS,
  FUNCTION_WORDS,
  MONTHS_AND_DAYS,
  NAME_SUFFIXES,
  PARTICLES,
  PLACE_PREPOSITIONS,
  ROLE_WORDS,
  THING_HEADS,
  TITLE_WORDS,
  isRole,
} from './words';

/**
 * A capital letter with a full stop, followed by a capitalised word: an initial ("Jon A. Cruz",
 * "A.C. Fox-Davies"), never the article or the pronoun "I".
 */
export function nameInitial(tokens: readonly Token[], k: number): boolean {
  const t = tokens[k];
  const next = tokens[k + 1];
  return t !== undefined && (t.initial || t.abbrev) && t.dotted && next !== undefined && next.joined && next.cap && !next.skip;
}

/**
 * "Lê Quang Huy": a capitalised word with accents whose folded form is a function word ("le") is not that word but
 * a name part (the lists are of folded keys).
 */
export function accentedName(t: Token): boolean {
  return t.cap && t.key.length >= 2 && FUNCTION_WORDS.has(t.key) && t.key !== t.text.slice(0, t.end - t.start).toLowerCase();
}

/**
 * "children listen as Della Baker reads": a capitalised particle in mid-sentence opening a run that is a subject
 * before a verb (or an object, a possessive: `sentenceEvidence`) is a given name or a surname's first part, even when
 * the word after it is an English one.
 */
export function particleOpensName(tokens: readonly Token[], a: number, j: number): boolean {
  const t = tokens[a]!;
  return t.cap && !t.upper && !t.sentenceStart && PARTICLES.has(t.key) && a + 1 < j && sentenceEvidence(tokens, a, a, j);
}

/** A token that cannot be any part of a name. */
export function nonName(t: Token): boolean {
  return t.skip || FUNCTION_WORDS.has(t.key) || MONTHS_AND_DAYS.has(t.key) || DESIGNATORS.has(t.key) || isRole(t.key) || CUE_WORDS.has(t.key);
}

export function roleBefore(tokens: readonly Token[], i: number): string | undefined {
  const prev = tokens[i - 1];
  if (prev === undefined || prev.skip) return undefined;
  if (ROLE_WORDS.has(prev.key)) return prev.key;
  return undefined;
}

export function cueBefore(tokens: readonly Token[], i: number): boolean {
  const prev = tokens[i - 1];
  if (prev === undefined) return false;
  if (CUE_WORDS.has(prev.key) || isRole(prev.key)) return true;
  // "fisherman Sione Tuilagi": a lower-case singular noun for a kind of person that no role list holds
  if (!prev.cap && !prev.skip && tokens[i]!.joined && tokens[i]!.cap && isPersonNoun(prev.key)) return true;
  const prev2 = tokens[i - 2];
  return prev.key === 'to' && prev2 !== undefined && (prev2.key === 'belonging' || prev2.key === 'belongs' || prev2.key === 'thanks');
}

/**
 * Whether a capitalised run found without a cue looks like a person's name at all: a given name
 * (either list), a person WordNet knows by the whole run, initials, or a common surname at its end. Without this, a
 * word WordNet does not know was enough, and real titles are full of those: misspellings and
 * other languages ("Gattina Cat", "Volleball Net", "Stara Ksiega", "Brunei Darussalam").
 */
export function nameEvidence(tokens: readonly Token[], i: number, j: number): boolean {
  const words = tokens.slice(i, j).filter((t) => !PARTICLES.has(t.key));
  const last = words[words.length - 1];
  if (last === undefined) return false;
  // Left as they were, because the embedded world's filtered pools depend on them: runs of four words
  // or more (the CC3M paper's example "… the Taj Mahal Hotel November 7, 2005", notebook 02) and runs
  // opening with a compound of ordinary words ("A Red-Bellied Snake.", a kept row of the world).
  if (j - i >= 4 || (words[0]!.key.includes('-') && words[0]!.key.split('-').every((p) => isOrdinaryWord(p)))) return true;
  if (words.some((t) => isGivenName(t.key) || isCommonGivenName(t.key) || (t.initial && t.dotted))) return true;
  if (words.length > 1 && entityKinds(words.map((t) => t.key).join(' ')).includes('person')) return true;
  // a common surname that is not also an English word ("Meijer", not "Black")
  if (words.length > 1 && isCommonSurname(last.key) && !isOrdinaryWord(last.key)) return true;
  return false;
}

/**
 * "Clipart by Steve Hall": after a cue, a given name and one more word that is a designator but
 * also a surname (WordNet has people of that name: Hall, Park, Field) make a name, not a building.
 */
function surnameAfterCue(words: readonly Token[], cue: boolean, firstGiven: boolean): boolean {
  if (!cue || !firstGiven) return false;
  const rest = words.slice(1).filter((t) => !t.initial);
  return rest.length === 1 && entityKinds(rest[0]!.key).includes('person');
}

/** "Saint Lucia", "Saint Kitts": a title and what follows it are together a place WordNet knows. */
export function titledPlace(tokens: readonly Token[], i: number, j: number): boolean {
  const prev = tokens[i - 1];
  if (prev === undefined || !isRole(prev.key)) return false;
  for (let k = i + 1; k <= j; k++) {
    const kinds = entityKinds([prev, ...tokens.slice(i, k)].map((t) => t.key).join(' '));
    if (kinds.length > 0 && !kinds.includes('person')) return true;
  }
  return false;
}

/** A common surname, or a word WordNet knows as the name of people (Hall, Brooks, Young). */
function surnameLike(key: string): boolean {
  return isCommonSurname(key) || entityKinds(key).includes('person');
}

const famousMemo = new Map<string, boolean>();

/**
 * A capitalised word WordNet knows only as people's name: its instances are all persons and its
 * ordinary noun senses, if any, name them too ("Bach": "the music of Bach"). "Hall" or "Lincoln" are
 * not (a room; a city).
 */
function famousName(t: Token): boolean {
  if (!t.cap || t.upper || t.key.length < 3) return false;
  let v = famousMemo.get(t.key);
  if (v === undefined) {
    const kinds = entityKinds(t.key);
    const wn = wordnet();
    const name = t.key.charAt(0).toUpperCase() + t.key.slice(1);
    v =
      kinds.length > 0 &&
      kinds.every((k) => k === 'person') &&
      wn.synsetsOfLemma(t.key, 'n').every((id) => {
        const rec = wn.synset(id);
        return rec.pointers.some((p) => p.symbol === '@i') || rec.gloss.includes(name);
      });
    famousMemo.set(t.key, v);
  }
  return v;
}

/**
 * "Bach Cartoon Bust", "a portrait of Beethoven": a famous name opening a capitalised run [a, j)
 * whose other words are ordinary ones, none a designator or a thing's head ("Carnegie Library").
 */
export function famousAt(tokens: readonly Token[], a: number, j: number): boolean {
  if (!famousName(tokens[a]!)) return false;
  // "Melba Toast", "Napoleon Brandy": a compound WordNet knows as an ordinary noun
  if (
    j > a + 1 &&
    isOrdinaryWord(
      tokens
        .slice(a, a + 2)
        .map((u) => u.key)
        .join('_'),
    )
  )
    return false;
  // alone, or before what depicts the person: "Bach Cartoon Bust", but not "Tamerlane Chess"
  const rest = tokens.slice(a + 1, j);
  return (
    rest.length === 0 ||
    (rest.every((u) => isOrdinaryWord(u.key) && !DESIGNATORS.has(u.key) && !THING_HEADS.has(u.key)) && rest.some((u) => DEPICTIONS.has(u.key)))
  );
}

/**
 * "A US “Sacagawea” dollar": the word after a name, in lower case with only spaces or quotes between,
 * is a noun that cannot be a verb, so the name names the thing.
 */
export function namesNoun(tokens: readonly Token[], j: number): boolean {
  const next = tokens[j];
  if (next === undefined || next.cap || next.skip || !/^[\s"'“”‘’]+$/.test(next.gap)) return false;
  const wn = wordnet();
  return hasNounSense(next.key) && wn.lemmaBaseForms(next.key, 'v').length === 0 && !FUNCTION_WORDS.has(next.key);
}

/** Whether tokens [i, j) look like a person's name rather than a place or an ordinary phrase. */
export function plausibleName(tokens: readonly Token[], i: number, j: number, given: boolean, cue: boolean, normalCase: boolean): boolean {
  const words = tokens.slice(i, j).filter((t) => !PARTICLES.has(t.key) || t.cap);
  if (words.length === 0) return false;
  const last = words[words.length - 1]!;
  const firstGiven = given && isGivenName(words[0]!.key);
  // "singer Marisa Hill": after a role, a given name of the wider list also makes a designator a surname
  const firstAnyGiven = firstGiven || (given && cue && isCommonGivenName(words[0]!.key));
  if (DESIGNATORS.has(last.key) && !surnameAfterCue(words, cue, firstAnyGiven)) return false;
  if (THING_HEADS.has(last.key) || TITLE_WORDS.has(last.key) || titledPlace(tokens, i, j)) return false;
  const phrase = words.map((t) => t.key).join(' ');
  if (isPlaceOnly(phrase)) return false;
  // a person WordNet knows by this name ("Van Gogh", "Santa Claus")
  if (words.length > 1 && entityKinds(phrase).includes('person')) return true;
  // "Florence Flag": a given name that is a place, then only ordinary words
  if (firstGiven && words.length > 1 && isPlaceOnly(words[0]!.key) && words.slice(1).every((t) => isOrdinaryWord(t.key) && !surnameLike(t.key))) return false;
  // "Mount Everest", "Lake Como": a leading designator; "Toyota Corolla": a brand
  if (DESIGNATORS.has(words[0]!.key) || BRANDS.has(words[0]!.key)) return false;
  if (words.length === 1) {
    const t = words[0]!;
    const prev = tokens[i - 1];
    // "Prince Rainier", "President Lincoln": a title settles it even for a place-like word
    if (cue && prev !== undefined && isRole(prev.key)) return !isOrdinaryWord(t.key) || firstGiven;
    if (isPlaceOnly(t.key)) return false;
    if (prev && PLACE_PREPOSITIONS.has(prev.key) && !cue) return false;
    if (cue) return !isOrdinaryWord(t.key) || firstGiven;
    const givenAny = given && (firstGiven || isCommonGivenName(t.key));
    // "Abe's face" anywhere; "Jonathon's Duck" at the start too
    return givenAny && !isOrdinaryWord(t.key) && (!t.sentenceStart || t.possessive);
  }
  if (firstGiven) return true;
  // A capitalised run after "by" / a role word is a name (in noisy case: two words or more).
  if (cue && (normalCase || words.length >= 2)) return true;
  // Otherwise one token must be a word (3+ letters) WordNet does not know, neither as an ordinary
  // word nor as a place ("Real Madrid" is not a name).
  // A place-like first word followed by a non-place ("Tara Brooks", "Paris Hilton") still counts;
  // landmarks and teams after a place name end in a designator, rejected above.
  // a capitalised particle in mid-sentence that the scan kept as a name part ("as Della Baker reads", "and Lê Quang Huy")
  if (normalCase && !words[0]!.sentenceStart && FUNCTION_WORDS.has(words[0]!.key) && PARTICLES.has(words[0]!.key)) return true;
  return words.some((t, k) => !t.initial && t.key.length >= 3 && !isOrdinaryWord(t.key) && (!isPlaceOnly(t.key) || (k === 0 && !isPlaceOnly(last.key))));
}

/**
 * The end k of the longest tokens [a, k), k ≤ j, two words or more, that are a person WordNet knows
 * ("Van Gogh", "Santa Claus"); -1 when there is none, or when a longer one is something else
 * ("Prince Edward Island").
 */
export function personPhraseEnd(tokens: readonly Token[], a: number, j: number): number {
  for (let k = Math.min(j, a + 4); k >= a + 2; k--) {
    const kinds = entityKinds(
      tokens
        .slice(a, k)
        .map((t) => t.key)
        .join(' '),
    );
    if (kinds.includes('person')) return k;
    if (kinds.length > 0) return -1;
  }
  return -1;
}

export function personPhraseAt(tokens: readonly Token[], a: number, j: number): boolean {
  return personPhraseEnd(tokens, a, j) > 0;
}

/**
 * A sentence-initial capitalised word that WordNet knows ("Rosa", "Grace") still starts a name
 * when it is a given name, or when it can be a noun and a later word of the run is unknown to
 * WordNet ("Rosa Okafor with a desk").
 */
export function keepsInitialWord(tokens: readonly Token[], a: number, j: number, given: boolean): boolean {
  const t = tokens[a]!;
  if (given && isGivenName(t.key)) return true;
  if (!hasNounSense(t.key)) return false;
  return tokens.slice(a + 1, j).some((u) => !u.initial && u.key.length >= 3 && !isOrdinaryWord(u.key));
}

/**
 * Where a name starts in a capitalised run [a, b) that no cue introduces: at a given name followed by a
 * surname when no word before it is a name part ("Bibliografia Francesco Rollandin": a title's word in title
 * case, not a name). a stays when a word before the given name can be one (a given name: "Mary Ann Smith"; an
 * initial; a particle; a surname WordNet or the list knows) or when a given name follows it (surname first:
 * "Rollandin Francesco Maria"). After a cue the run is a name from its start ("by Celso Emilio Ferreiro").
 */
export function givenNameStart(tokens: readonly Token[], a: number, b: number): number {
  for (let p = a + 1; p + 1 < b; p++) {
    const at = tokens[p]!;
    const next = tokens[p + 1]!;
    if (!isGivenName(at.key) || !next.cap || PARTICLES.has(next.key) || isGivenName(next.key) || isCommonGivenName(next.key)) continue;
    const before = tokens.slice(a, p);
    const namePart = (u: Token): boolean =>
      u.initial || u.abbrev || PARTICLES.has(u.key) || isGivenName(u.key) || isCommonGivenName(u.key) || surnameLike(u.key) || NAME_SUFFIXES.has(u.key);
    if (before.some(namePart)) return a;
    return p;
  }
  return a;
}
