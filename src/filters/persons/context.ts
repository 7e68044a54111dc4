/**
 * Sentence context around a capitalised run, for alt-text written as sentences ("Xxxx Yyyy performs on the stage",
 * "a photo of Xxxx Yyyy with …"): where a run stands says it names someone even when no name list knows the name.
 *  - a subject before a verb: the run opens a sentence or a clause and a finite verb follows ("… holds a red
 *    umbrella", "… was photographed", "… has been named"; after "as", "while", "when": "fans cheer as X crosses");
 *  - the object of a depiction: "a photo of", "portrait of", "picture of" just before it (`depictionBefore`);
 *  - a possessive before a lower-case word ("Xxxx Yyyy's new album");
 *  - the object of a verb or of "with" / "for" / "as" in running text ("hugs Xxxx Yyyy", "talks with …").
 * And against a person: "the" just before it names a thing ("at the Santiago Bernabéu"), a possessive followed by a
 * capitalised common noun in mid-sentence names a place ("on Martha's Vineyard", "St. Paul's Cathedral").
 *
 * Verb forms come from WordNet's morphology (`lemmaBaseForms(word, 'v')`), not a list.
 */
import { wordnet } from '../../wordnet';
import { isGivenName } from './names';
import { Token } from './tokens';
import { entityKinds, isOrdinaryWord, isPlaceOnly } from './wordnet-lookups';
import { FUNCTION_WORDS, PLACE_PREPOSITIONS, ROLE_WORDS } from './words';

/** Auxiliaries and the commonest irregular finite verbs after a subject. */
const FINITE = new Set(
  `is was has had does did will would can could may might must shall should gets got becomes became remains
  seems stands sits lies leaves takes makes gives goes comes sees holds wears`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Words after which a clause, and so a subject, starts. */
const CLAUSE_OPENERS = new Set(['as', 'while', 'when', 'whilst', 'after', 'before', 'until', 'and', 'but', 'because', 'since', 'where', 'then']);

/** Nouns that depict someone, before "of": "a photo of …", "portrait of …". */
const DEPICTION_FRAMES = new Set(
  `photo photos photograph photographs picture pictures image images portrait portraits painting paintings drawing
  drawings sketch sketches illustration illustrations shot snapshot selfie headshot caricature cartoon statue bust`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Prepositions that take a person as readily as a thing ("talks with …", "a cake for …", "identified as …"). */
const OBJECT_PREPOSITIONS = new Set(['with', 'for', 'as', 'alongside', 'beside', 'behind']);

const verbMemo = new Map<string, string[]>();

function verbBases(word: string): string[] {
  let v = verbMemo.get(word);
  if (v === undefined) {
    v = wordnet().lemmaBaseForms(word, 'v');
    verbMemo.set(word, v);
  }
  return v;
}

/** A lower-case word joined by spaces to the token before it. */
function lowerJoined(t: Token | undefined): t is Token {
  return t !== undefined && !t.cap && !t.skip && t.joined && !t.sentenceStart;
}

/**
 * A finite verb at k: an auxiliary, or a third-person "-s" / past "-ed" form of a WordNet verb ("performs",
 * "carries", "arrived"); with `plural` also a bare verb ("X and Y attend"). "-ing" forms count too ("X holding …").
 */
export function verbAt(tokens: readonly Token[], k: number, plural: boolean): boolean {
  const t = tokens[k];
  if (!lowerJoined(t)) return false;
  const w = t.key;
  if (FINITE.has(w)) return true;
  if (FUNCTION_WORDS.has(w) || w.length < 3) return false;
  const bases = verbBases(w);
  if (bases.length === 0) return false;
  if (plural && bases.includes(w)) return true;
  if (bases.every((b) => b === w)) return false;
  return (w.endsWith('s') && !w.endsWith('ss')) || w.endsWith('ed') || w.endsWith('ing');
}

/** The run starting at `i` opens a sentence or a clause ("… as Xxxx Yyyy crosses"). */
export function subjectPosition(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i]!;
  if (t.sentenceStart) return true;
  const prev = tokens[i - 1];
  return prev !== undefined && !prev.cap && t.joined && CLAUSE_OPENERS.has(prev.key);
}

/** "a photo of …", "portrait of …": a depiction and "of" just before the run at a. */
export function depictionBefore(tokens: readonly Token[], a: number): boolean {
  const of = tokens[a - 1];
  const noun = tokens[a - 2];
  return of !== undefined && noun !== undefined && of.key === 'of' && !of.cap && tokens[a]!.joined && DEPICTION_FRAMES.has(noun.key);
}

/** A plural role word ("Actors …", "tennis players …"): a cue for the names after it, never their role. */
export function pluralRoleBefore(tokens: readonly Token[], a: number): boolean {
  const prev = tokens[a - 1];
  return prev !== undefined && !prev.skip && tokens[a]!.joined && isPluralRole(prev.key);
}

/** "actors", "actresses", "players": the plural of a role word. */
export function isPluralRole(w: string): boolean {
  if (!w.endsWith('s')) return false;
  return ROLE_WORDS.has(w.slice(0, -1)) || (w.endsWith('es') && ROLE_WORDS.has(w.slice(0, -2)));
}

/** Possessive determiners: "X Y and her daughter …". */
const OWNERS = new Set(['his', 'her', 'their']);

/**
 * Runs that name a place or a thing whatever their context: a named thing WordNet knows that is no person ("Rio
 * Grande"), a run headed by another language's word for a place ("Sagrada Familia"), or a run ending in a city or
 * country that no given name opens (a team: "Bayern Munich fans …").
 */
export function namedThing(tokens: readonly Token[], a: number, b: number): boolean {
  const first = tokens[a]!;
  const whole = entityKinds(
    tokens
      .slice(a, b)
      .map((t) => t.key)
      .join(' '),
  );
  // a named thing WordNet knows ("Rio Grande", a river), or a foreign place word heading the run ("Sagrada Familia")
  if (whole.length > 0 && !whole.includes('person')) return true;
  if (PLACE_HEADS.has(first.key)) return true;
  return !isGivenName(first.key) && isPlaceOnly(tokens[b - 1]!.key);
}

const ARTICLES = new Set(['a', 'an', 'the']);

/** A person WordNet knows alone, then ordinary words: a thing named after them ("Tamerlane Chess is …"). */
function namedAfterPerson(tokens: readonly Token[], a: number, b: number): boolean {
  const first = tokens[a]!;
  if (isGivenName(first.key) || !entityKinds(first.key).includes('person')) return false;
  const whole = tokens
    .slice(a, b)
    .map((t) => t.key)
    .join(' ');
  return !entityKinds(whole).includes('person') && tokens.slice(a + 1, b).every((t) => isOrdinaryWord(t.key));
}

/**
 * Words of other languages that head the name of a place, a building or a temple ("Rio Grande", "Notre Dame",
 * "Sagrada Familia", "Hagia Sophia", "Wat Arun", "Piazza Navona"): never the start of a person's name.
 */
const PLACE_HEADS = new Set(
  `rio notre sagrada hagia wat piazza piazzale lago via rue calle puerto porto isla ile bahia cerro sierra ponte
  palazzo castello schloss kirche burg pont place praca largo parque jardin jardim museo musee mezquita basilica`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** "the" just before the run: a building, a team, a ship ("at the Santiago Bernabéu", "the Hagia Sophia"). */
export function articleBefore(tokens: readonly Token[], a: number): boolean {
  const prev = tokens[a - 1];
  return prev !== undefined && prev.key === 'the' && tokens[a]!.joined;
}

/**
 * A possessive run in mid-sentence before a capitalised common noun names a place or a thing: "on Martha's
 * Vineyard", "St. Paul's Cathedral", "New Year's Eve" (not "Abe's face").
 */
export function possessivePlace(tokens: readonly Token[], a: number, b: number): boolean {
  const last = tokens[b - 1]!;
  const next = tokens[b];
  if (!last.possessive || next === undefined || !next.cap || next.skip || !/^\s+$/.test(next.gap)) return false;
  return !tokens[a]!.sentenceStart && isOrdinaryWord(next.key) && !isGivenName(next.key);
}

/**
 * Sentence context that makes the run [a, b) a person's name (b - a ≥ 2 words): a subject before a verb, a possessive
 * before a lower-case word, or the object of a verb or of "with" / "for" / "as". `i` is where the capitalised run
 * started (a role or a sentence-initial word before a may have been left out).
 */
export function sentenceEvidence(tokens: readonly Token[], i: number, a: number, b: number): boolean {
  if (b - a < 2 || namedThing(tokens, a, b) || namedAfterPerson(tokens, a, b)) return false;
  // "A Mars Lumograph drawing pencil": an article before the run makes it a thing's name
  if (tokens.slice(i, a).some((t) => ARTICLES.has(t.key)) || ARTICLES.has(tokens[a - 1]?.key ?? '')) return false;
  // "X Y, the new manager, …": an apposition with a role word
  if (/^\s*,\s*$/.test(tokens[b]?.gap ?? '') && ARTICLES.has(tokens[b]!.key)) {
    for (let k = b + 1; k < b + 5 && k < tokens.length && lowerJoined(tokens[k]); k++) if (ROLE_WORDS.has(tokens[k]!.key)) return true;
  }
  if (subjectPosition(tokens, i) && verbAt(tokens, b, false)) return true;
  // "Al Breck, 82, still rows …": an age between commas after a subject, then a lower-case word
  if (subjectPosition(tokens, i) && ageApposition(tokens, b)) return true;
  // "Quentin Beaulieu-Marchand at the finish of …": a caption's subject before "at the" or "during", no verb, when no
  // word of the run is one WordNet knows (as an ordinary word or a place)
  if (a === i && tokens[a]!.sentenceStart && eventAfter(tokens, b) && tokens.slice(a, b).every((t) => unknownWord(t))) return true;
  // "X Y and her daughter walk …"
  const and = tokens[b];
  if (subjectPosition(tokens, i) && and?.key === 'and' && lowerJoined(and) && OWNERS.has(tokens[b + 1]?.key ?? '') && verbAt(tokens, b + 3, true)) return true;
  // "The guest of honour, X Y, cuts the ribbon.": between commas, before a verb
  const after = tokens[b];
  if (
    a === i &&
    /^\s*,\s*$/.test(tokens[a]!.gap) &&
    after !== undefined &&
    /^\s*,\s*$/.test(after.gap) &&
    !after.cap &&
    verbAt([{ ...after, joined: true }], 0, false)
  )
    return true;
  const last = tokens[b - 1]!;
  if (last.possessive && lowerJoined(tokens[b])) return true;
  const prev = tokens[a - 1];
  if (a !== i || prev === undefined || prev.cap || prev.skip || !tokens[a]!.joined) return false;
  if (OBJECT_PREPOSITIONS.has(prev.key)) return true;
  // the object of a verb in running text ("hugs …", "congratulates …"), not of a place's ("visiting …")
  return !FUNCTION_WORDS.has(prev.key) && !PLACE_PREPOSITIONS.has(prev.key) && verbAt(tokens, a - 1, false) && !prev.key.endsWith('ing');
}

/** ", 82," after a run: an age in an apposition, then a lower-case word. */
function ageApposition(tokens: readonly Token[], b: number): boolean {
  const age = tokens[b];
  const next = tokens[b + 1];
  return (
    age !== undefined && next !== undefined && /^\s*,\s*$/.test(age.gap) && /^[1-9]\d?$/.test(age.text) && /^\s*,\s*$/.test(next.gap) && !next.cap && !next.skip
  );
}

/** "at the …" or "during …" right after the run. */
function eventAfter(tokens: readonly Token[], b: number): boolean {
  const t = tokens[b];
  if (!lowerJoined(t)) return false;
  if (t.key === 'during') return true;
  const the = tokens[b + 1];
  return t.key === 'at' && the !== undefined && the.key === 'the' && !the.cap && the.joined;
}

/** A capitalised word of three letters or more that WordNet knows neither as an ordinary word nor as a place. */
function unknownWord(t: Token): boolean {
  return t.cap && !t.initial && t.key.length >= 3 && !isOrdinaryWord(t.key) && !isPlaceOnly(t.key);
}

/**
 * A sentence-initial word WordNet knows ("Lamees" read as a plural) still starts a name when the whole run is a
 * subject before a verb or a possessive (`sentenceEvidence`) and a later word of it is one WordNet does not know.
 */
export function initialWordInSentence(tokens: readonly Token[], a: number, j: number): boolean {
  if (FUNCTION_WORDS.has(tokens[a]!.key) || !sentenceEvidence(tokens, a, a, j)) return false;
  return tokens.slice(a + 1, j).some((u) => !u.initial && u.key.length >= 3 && !isOrdinaryWord(u.key) && !isPlaceOnly(u.key));
}
