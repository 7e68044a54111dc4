/**
 * CC3M §3 "Text transformation with hypernymization" (Sharma et al. 2018), and the low-count
 * concept pruning that follows it.
 *
 * The paper ran Google Cloud Natural Language over each alt-text and used the Google Knowledge
 * Graph to map entities to hypernyms: "noun modifiers of certain types (proper nouns, numbers,
 * units) are removed; dates, durations, and preposition-based locations (e.g., 'in Los Angeles')
 * are removed; named-entities are identified, matched against the KG entries, and substitute with
 * their hypernym; resulting coordination noun-phrases with the same head (e.g., 'actor and actor')
 * are resolved into a single, plural head noun (e.g., 'actors')". Here wink-nlp (src/filters/nlp.ts)
 * gives tokens, POS tags and lemmas, persons come from src/filters/persons.ts, and WordNet 3.1 is the
 * open stand-in for the Knowledge Graph (instances: places; hypernyms: fine-grained nouns). Dates and
 * durations are found by patterns over the tokens (months, years, weekdays, "10 minutes", …).
 *
 * ## Which nouns are hypernymised
 * `hypernymRule` (src/filters/hypernyms.ts) chooses. 'entities' (the default, the paper's rule): named things
 * only: persons as below, capitalised runs WordNet knows as instances → their class ("Canada" → country,
 * "Manitoba" → province), removed before a noun or in a locative phrase; the image's labels or the caption's
 * words pick the sense; common nouns stay. 'every-noun' (cckit's earlier rule; the embedded world until
 * issue #26) adds rules 1 and 2 below and its own place rule (`handlePlaces` without labels).
 *  1. Nouns naming a concept of the injected concept catalog (src/wordnet/catalog.ts; multi-word
 *     names such as "spotted owl" match as one): with `catalogRule: 'long-tail'` (default) the
 *     catalog's fine-grained concepts become their hypernym and its common concepts are kept;
 *     'all' hypernymises common concepts too; 'none' keeps all. Real data gets the WordNet catalog
 *     (the default: beagle → hound, dachshund → dog, dog stays dog); the embedded world's callers
 *     pass the world's catalog (src/world/catalog.ts: durian → fruit, sitar → instrument, the 80
 *     COCO concepts kept).
 *  2. Any other noun is hypernymised when WordNet says it is fine-grained and rare: its first noun
 *     sense is a concrete thing (lexicographer files animal, artifact, food, plant), a leaf of the
 *     hierarchy (no hyponyms), and its noun senses carry fewer than `rareBelow` SemCor tags (default
 *     1: never tagged). Its replacement is the nearest hypernym on the first hypernym path whose head
 *     word is a common (≥ 2 SemCor tags), non-abstract noun ("kumquat" → "fruit").
 * Named entities: a person becomes the occupation word before the name ("actor Harrison Ford" →
 * "actor"), else "person"; a place outside a locative prepositional phrase becomes "city",
 * "country", "place", or its class for a landmark ("the Eiffel Tower" → "the tower").
 *
 * ## Low-count concept pruning (CC3M §3, end)
 * "we cluster all resolved entities … and remove all the <image, caption> pairs that contain
 * entities whose class count is below 100". `ConceptCounter` counts, over a dataset's transformed
 * captions, the concept nouns of each caption (lemmatised nouns, once per caption); a caption is
 * kept when every one of its concepts has a count ≥ the threshold. 100 was for 3.3M pairs;
 * `ConceptPruner` scales it to the pairs that reach the stage (src/filters/scale.ts).
 */
import { wordnet } from '../wordnet';
import { article, headWord, plural } from '../wordnet/nouns';
import { synsetTagCount } from '../wordnet/sense-tags';
import { ConceptCatalog, wordnetCatalog } from '../wordnet/catalog';
import { scaledThreshold } from './scale';
import { analyse, Token } from './nlp';
import { CandidatePair, Verdict, keep, reject } from './types';
import { PERSON_TOKEN } from '../text/tokens';
import { entityKinds, findPersons, isOrdinaryWord, EntityKind } from './persons';
import { HypernymRule, entityClass, labelsFavour } from './hypernyms';

export interface Cc3mTransformOptions {
  /** Captions with fewer word tokens after the transform are dropped (`transform:too-short`). */
  minTokens: number;
  /** Remove dates and durations ("on May 5, 2015", "in 2012", "for 10 minutes"). */
  removeDates: boolean;
  /** Remove prepositional phrases whose object is a named place ("in Los Angeles"). */
  removeLocations: boolean;
  /** Remove numbers, units and proper nouns that modify a noun ("2 bottles" → "bottles"). */
  removeModifiers: boolean;
  /** Replace names by role / "person" and places by their class. */
  replaceEntities: boolean;
  /** Hypernymise fine-grained nouns (rules 1 and 2 in the module comment; only under `hypernymRule: 'every-noun'`). */
  hypernymize: boolean;
  /**
   * Which words are hypernymised (src/filters/hypernyms.ts, CC3M §3): 'entities' (default: named things only;
   * common nouns stay, the image's labels pick the sense) or 'every-noun' (also every fine-grained catalog
   * noun and rare WordNet noun: rules 1 and 2; the embedded world's pools until issue #26).
   */
  hypernymRule: HypernymRule;
  /** Which catalog concepts are hypernymised (rule 1). */
  catalogRule: 'long-tail' | 'all' | 'none';
  /** Rule 2: WordNet nouns with fewer SemCor tags than this are rare. */
  rareBelow: number;
  /** "actor and actor" → "actors". */
  mergeCoordination: boolean;
  /** Lower-case the result (CC3M's captions are lower case). */
  lowercase: boolean;
  /** The concept catalog for rule 1 (default: `wordnetCatalog()`; the world passes `worldCatalog()`). */
  catalog?: ConceptCatalog;
}

export const DEFAULT_CC3M_TRANSFORM: Cc3mTransformOptions = {
  minTokens: 3,
  removeDates: true,
  removeLocations: true,
  removeModifiers: true,
  replaceEntities: true,
  hypernymize: true,
  hypernymRule: 'entities',
  catalogRule: 'long-tail',
  rareBelow: 1,
  mergeCoordination: true,
  lowercase: true,
};

// ------------------------------------------------------------------ word lists

const MONTHS = new Set(['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']);
const MONTH_ABBREVIATIONS = new Set(['jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec']);
const WEEKDAYS = new Set(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']);
const DATE_WORDS = new Set(['today', 'yesterday', 'tomorrow', 'tonight']);
const RELATIVE = new Set(['last', 'next', 'this', 'past', 'previous', 'coming']);
const PERIODS = new Set([
  'second',
  'minute',
  'hour',
  'day',
  'week',
  'weekend',
  'month',
  'year',
  'decade',
  'century',
  'night',
  'morning',
  'evening',
  'afternoon',
  'season',
  'spring',
  'summer',
  'autumn',
  'fall',
  'winter',
]);
const DURATION_UNITS = new Set([
  'second',
  'seconds',
  'sec',
  'secs',
  'minute',
  'minutes',
  'min',
  'mins',
  'hour',
  'hours',
  'hr',
  'hrs',
  'day',
  'days',
  'week',
  'weeks',
  'month',
  'months',
  'year',
  'years',
  'decade',
  'decades',
]);
const TIME_WORDS = new Set(['am', 'pm', 'a.m.', 'p.m.', "o'clock"]);
const UNITS = new Set(
  `kg kgs kilogram kilograms g gram grams mg lb lbs pound pounds oz ounce ounces t ton tons tonne tonnes
  mm cm m km meter meters metre metres kilometer kilometers inch inches in ft foot feet yd yard yards mile miles
  ml l liter liters litre litres gallon gallons cup cups tbsp tsp mph kph kmh km/h w kw hp v mah gb mb tb
  px mp k % percent degree degrees °c °f x pcs pc piece pieces pack packs set sets pair pairs`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);
const DATE_PREPOSITIONS = new Set(['on', 'in', 'at', 'during', 'since', 'from', 'until', 'till', 'by', 'of', 'for', 'before', 'after', 'circa', 'around']);
const LOCATIVE_PREPOSITIONS = new Set([
  'in',
  'at',
  'near',
  'from',
  'outside',
  'inside',
  'around',
  'across',
  'throughout',
  'on',
  'to',
  'into',
  'within',
  'through',
  'over',
]);
const DETERMINERS = new Set(['a', 'an', 'the', 'this', 'that', 'these', 'those', 'some', 'two', 'my', 'his', 'her', 'their', 'our', 'your']);
/** Place designators: a capitalised run ending in one of these is a place ("Main Street"). */
const PLACE_HEADS = new Set(
  `street st avenue ave road rd boulevard blvd lane square plaza bridge tower city town village county
  state province district island islands lake river bay beach coast harbour harbor falls mountain
  mountains hill hills valley canyon desert forest park gardens airport station stadium arena center
  centre hall museum gallery palace castle cathedral church chapel temple mosque abbey university college
  hotel market mall zoo`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);
/** Hypernym heads too abstract to stand in for a noun (rule 2). */
const ABSTRACT = new Set(
  `entity physical object whole thing artifact artefact instrumentality matter substance solid organism
  being causal agent chordate vertebrate placental part commodity article ware creation product
  communication unit group nutriment durables goods abstraction structure covering device implement
  container equipment`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);
/** Concrete lexicographer files: noun.animal 5, noun.artifact 6, noun.food 13, noun.plant 20. */
const CONCRETE_LEX_FILES = new Set([5, 6, 13, 20]);

// ------------------------------------------------------------------ helpers

interface Piece {
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

function isYear(text: string): boolean {
  return /^(1[5-9]|20)\d\d$/.test(text) || /^'\d\d$/.test(text) || /^(1[5-9]|20)\d0s$/.test(text);
}

function isNumber(text: string): boolean {
  return /^\d+([.,:]\d+)*(st|nd|rd|th)?$/.test(text) || /^\d+(\.\d+)?(k|m|kg|g|cm|mm|km|ml|l|gb|mb|px|mp|x|%)$/i.test(text);
}

const NUMBER_WORDS = new Set([
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'twenty',
  'thirty',
  'hundred',
  'dozen',
]);

function nounBase(word: string): string {
  return wordnet().lemmaBaseForms(word, 'n')[0] ?? word;
}

const tagMemo = new Map<string, number>();

/** SemCor tags over the noun synsets of a lemma. */
function nounTagCount(lemma: string): number {
  let n = tagMemo.get(lemma);
  if (n === undefined) {
    n = wordnet()
      .synsetsOfLemma(lemma, 'n')
      .reduce((s, id) => s + synsetTagCount(id), 0);
    tagMemo.set(lemma, n);
  }
  return n;
}

const fallbackMemo = new Map<string, string | null>();

/** Rule 2: the basic-level hypernym of a rare, fine-grained concrete noun, or null. */
function wordnetHypernym(lemma: string, rareBelow: number): string | null {
  const key = `${rareBelow}:${lemma}`;
  const memo = fallbackMemo.get(key);
  if (memo !== undefined) return memo;
  let out: string | null = null;
  const wn = wordnet();
  const senses = wn.synsetsOfLemma(lemma, 'n');
  const first = senses[0];
  if (first !== undefined && nounTagCount(lemma) < rareBelow) {
    const rec = wn.synset(first);
    const leaf = !rec.pointers.some((p) => p.symbol === '~' || p.symbol === '~i');
    const instance = rec.pointers.some((p) => p.symbol === '@i');
    if (leaf && !instance && CONCRETE_LEX_FILES.has(rec.lexFileNum)) {
      let cur = first;
      for (let depth = 0; depth < 12 && out === null; depth++) {
        const up = wn.hypernyms(cur)[0];
        if (up === undefined) break;
        cur = up;
        const name = wn.synset(up).lemmas[0]!.replace(/_/g, ' ');
        const head = headWord(name);
        if (ABSTRACT.has(name) || ABSTRACT.has(head) || head === lemma) continue;
        if (nounTagCount(head) >= 2) out = head;
      }
    }
  }
  fallbackMemo.set(key, out);
  return out;
}

/** Whether most letters are upper case, or most words are capitalised (no case signal). */
function noisyCase(text: string): boolean {
  const words = text.match(/\p{L}[\p{L}'’-]*/gu) ?? [];
  if (words.length < 3) return false;
  const upper = words.filter((w) => w.length >= 2 && w === w.toUpperCase()).length;
  if (upper / words.length >= 0.8) return true;
  const cap = words.filter((w) => w[0] !== w[0]!.toLowerCase()).length;
  return cap / words.length >= 0.85;
}

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

/** After words before `i` were removed: the nearest "a"/"an" within three tokens agrees with the next word. */
function fixArticle(p: Piece[], i: number): void {
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

// ------------------------------------------------------------------ transform

export class Cc3mTransform {
  readonly name = 'transform';
  readonly options: Cc3mTransformOptions;

  constructor(options: Partial<Cc3mTransformOptions> = {}) {
    this.options = { ...DEFAULT_CC3M_TRANSFORM, ...options };
  }

  /** PairStage-compatible entry point (src/filters/pipeline.ts). */
  check(pair: CandidatePair): Verdict {
    return this.transform(pair.caption, pair.tags);
  }

  /** The transformed caption, or a rejection (`transform:too-short`). `labels`: the image's tags, if any. */
  transform(caption: string, labels?: readonly string[]): Verdict {
    const out = this.rewrite(caption, labels);
    const words = out.match(/[\p{L}\p{N}<>]+/gu) ?? [];
    if (words.length < this.options.minTokens)
      return reject('transform:too-short', `"${out.slice(0, 200)}" has ${words.length} words after the transform; at least ${this.options.minTokens}`);
    return keep(out);
  }

  /** The rewritten caption without the length check (`labels` pick senses under the 'entities' rule). */
  rewrite(caption: string, labels?: readonly string[]): string {
    const o = this.options;
    let text = caption.replace(/\s+/g, ' ').trim();
    // §3 named entities, persons: role word or "person" (CC12M's <PERSON> placeholder too)
    if (o.replaceEntities) text = this.replaceNames(text);
    const noisy = noisyCase(text);
    if (noisy) text = text.toLowerCase();
    const pieces: Piece[] = analyse(text).tokens.map((t: Token, i, all) => ({
      text: t.text,
      lower: t.lower,
      pos: t.pos,
      space: i === 0 ? '' : text.slice(all[i - 1]!.end, t.start),
      isWord: t.isWord,
      capital: t.isCapitalised,
      gone: false,
      fixed: false,
    }));
    if (o.removeDates) this.dropDates(pieces);
    if (o.removeLocations || o.replaceEntities) this.handlePlaces(pieces, noisy, o.hypernymRule === 'entities' ? (labels ?? []) : undefined);
    if (o.removeModifiers) this.dropModifiers(pieces, noisy);
    if (o.hypernymize && o.hypernymRule === 'every-noun') this.hypernymise(pieces);
    // "durian fruit" → "fruit fruit" → "fruit": a replacement equal to its neighbour collapses
    let kept = pieces.filter((p) => !p.gone);
    kept = kept.filter((p, i) => !(p.fixed && kept[i + 1] !== undefined && kept[i + 1]!.isWord && nounBase(kept[i + 1]!.lower) === nounBase(p.lower)));
    if (o.mergeCoordination) kept = mergeCoordination(kept);
    return render(kept, o.lowercase);
  }

  private replaceNames(text: string): string {
    let out = '';
    let at = 0;
    const spans = findPersons(text).map((s) => ({ start: s.start, end: s.end, role: s.role }));
    for (let i = text.indexOf(PERSON_TOKEN); i >= 0; i = text.indexOf(PERSON_TOKEN, i + 1))
      spans.push({ start: i, end: i + PERSON_TOKEN.length, role: undefined });
    spans.sort((a, b) => a.start - b.start);
    for (const s of spans) {
      if (s.start < at) continue;
      if (s.role !== undefined) {
        // "Actor Harrison Ford attends" → "Actor attends": the role word stands for the person
        out += text.slice(at, s.start).replace(/\s+$/, '');
      } else out += text.slice(at, s.start) + 'person';
      at = s.end;
    }
    return out + text.slice(at);
  }

  private dropDates(p: Piece[]): void {
    const n = p.length;
    const w = (i: number): string => (i >= 0 && i < n ? p[i]!.lower : '');
    const mark = (a: number, b: number): void => {
      // and the preposition / comma that introduced it
      let s = a;
      while (s > 0 && (w(s - 1) === ',' || DATE_PREPOSITIONS.has(w(s - 1)))) {
        s--;
        if (DATE_PREPOSITIONS.has(w(s))) break;
      }
      for (let k = s; k < b; k++) p[k]!.gone = true;
    };
    for (let i = 0; i < n; i++) {
      if (p[i]!.gone) continue;
      const t = w(i);
      let end = -1;
      const monthLike = MONTHS.has(t) || (MONTH_ABBREVIATIONS.has(t.replace(/\.$/, '')) && (isNumber(w(i + 1)) || isYear(w(i + 1))));
      // "may" the verb: a month only next to a number or after "in/on" with a year
      const month = monthLike && (t !== 'may' && t !== 'march' ? true : isNumber(w(i + 1)) || isYear(w(i + 1)) || isNumber(w(i - 1)));
      if (month) {
        end = i + 1;
        if (isNumber(w(end)) && !isYear(w(end))) end++;
        if (w(end) === ',' && isYear(w(end + 1))) end += 2;
        else if (isYear(w(end))) end++;
        if (isNumber(w(i - 1)) && !isYear(w(i - 1))) i--; // "5 May 2015"
      } else if (WEEKDAYS.has(t) || DATE_WORDS.has(t)) {
        end = i + 1;
        if (w(end) === ',') end++;
        if (MONTHS.has(w(end))) continue; // handled at the month
      } else if (RELATIVE.has(t) && PERIODS.has(w(i + 1))) {
        end = i + 2;
      } else if (isYear(t) && (i === 0 || DATE_PREPOSITIONS.has(w(i - 1)) || w(i - 1) === ',' || w(i - 1) === '-' || i === n - 1 || PERIODS.has(w(i - 1)))) {
        end = i + 1;
        if (PERIODS.has(w(i - 1))) i--; // "summer 2015"
      } else if (
        (isNumber(t) || NUMBER_WORDS.has(t) || t === 'a' || t === 'few' || t === 'several') &&
        DURATION_UNITS.has(w(i + 1)) &&
        w(i + 2) !== 'old' &&
        w(i + 2) !== '-'
      ) {
        if (t === 'a' && !['for', 'after', 'in'].includes(w(i - 1))) continue;
        end = i + 2; // "for 10 minutes"
      } else if (/^\d{1,2}(:\d\d)?$/.test(t) && TIME_WORDS.has(w(i + 1))) {
        end = i + 2;
      } else if (/^\d{1,2}:\d\d$/.test(t)) {
        end = i + 1;
      }
      if (end > i) {
        mark(i, end);
        i = end - 1;
      }
    }
  }

  /**
   * Named places (and, under the 'entities' rule, every named thing WordNet knows): removed in a locative
   * phrase, else replaced by their class. `labels` is given under the 'entities' rule only.
   */
  private handlePlaces(p: Piece[], noisy: boolean, labels?: readonly string[]): void {
    const o = this.options;
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

  private dropModifiers(p: Piece[], noisy: boolean): void {
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
      if (!noisy && this.options.hypernymRule === 'entities' && t.pos === 'PROPN' && t.capital && !t.fixed) {
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

  private hypernymise(p: Piece[]): void {
    const o = this.options;
    const catalog = o.catalog ?? wordnetCatalog();
    const longest = Math.min(catalog.longestName, 3);
    const live = p.filter((t) => !t.gone);
    for (let i = 0; i < live.length; i++) {
      const t = live[i]!;
      if (t.fixed || !t.isWord || !/^[\p{L}-]+$/u.test(t.lower)) continue;
      let done = false;
      for (let len = Math.min(longest, live.length - i); len >= 1 && !done; len--) {
        const run = live.slice(i, i + len);
        if (run.some((u) => u.fixed || !/^[\p{L}-]+$/u.test(u.lower))) continue;
        const last = run[len - 1]!;
        if (last.pos !== 'NOUN' && last.pos !== 'PROPN' && !(len > 1 && last.pos === 'ADJ')) continue;
        const base = nounBase(last.lower);
        const isPlural = base !== last.lower;
        const name = [...run.slice(0, -1).map((u) => u.lower), base].join(' ');
        const concept = catalog.concept(name);
        if (concept === undefined) continue;
        done = true;
        const replace = o.catalogRule === 'all' || (o.catalogRule === 'long-tail' && !concept.common);
        if (!replace) {
          run.forEach((u) => (u.fixed = true));
          break;
        }
        const hyper = concept.hypernym;
        this.put(live, i, len, isPlural ? pluralOf(hyper) : hyper);
      }
      if (done || t.pos !== 'NOUN') continue;
      const base = nounBase(t.lower);
      const hyper = wordnetHypernym(base, o.rareBelow);
      if (hyper !== null) this.put(live, i, 1, base !== t.lower ? pluralOf(hyper) : hyper);
    }
  }

  /** Replaces live[i, i+len) by `word`, fixing a preceding "a"/"an". */
  private put(live: Piece[], i: number, len: number, word: string): void {
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
}

/** Mass nouns keep their form in the plural ("garments" → "clothing", not "clothings"). */
const MASS_NOUNS = new Set([
  'clothing',
  'furniture',
  'equipment',
  'food',
  'jewelry',
  'footwear',
  'headgear',
  'luggage',
  'baggage',
  'tableware',
  'cutlery',
  'hardware',
  'software',
  'produce',
  'seafood',
  'poultry',
  'livestock',
  'cattle',
  'foliage',
  'apparel',
  'gear',
  'bread',
]);

function pluralOf(noun: string): string {
  return MASS_NOUNS.has(headWord(noun)) || headWord(noun).endsWith('ware') ? noun : plural(noun);
}

function matchCase(original: string, word: string): string {
  return original[0] !== original[0]!.toLowerCase() ? word[0]!.toUpperCase() + word.slice(1) : word;
}

/** "actor and actor" → "actors"; "a fruit, a fruit and a fruit" → "fruits"; the verb agrees. */
function mergeCoordination(pieces: Piece[]): Piece[] {
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

const DANGLING = new Set(['and', 'or', 'with', 'in', 'on', 'at', 'of', 'from', 'by', 'for', 'to', 'the', 'a', 'an', 'near', 'during']);

function render(pieces: Piece[], lowercase: boolean): string {
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

// ------------------------------------------------------------ concept pruning

/** Nouns that are not concepts (placeholders, generic words). */
const NOT_CONCEPTS = new Set([PERSON_TOKEN.toLowerCase(), 'thing', 'things', 'image', 'photo', 'picture', 'view', 'other']);

/** The concepts of a (transformed) caption: lemmatised nouns, each once. */
export function conceptsOf(caption: string): string[] {
  const out = new Set<string>();
  for (const t of analyse(caption).tokens) {
    if (t.pos !== 'NOUN' || !/^[\p{L}-]+$/u.test(t.lower)) continue;
    const base = nounBase(t.lower);
    if (!NOT_CONCEPTS.has(base)) out.add(base);
  }
  return [...out];
}

/** First pass: counts each concept once per caption over a dataset. */
export class ConceptCounter {
  private readonly counts = new Map<string, number>();
  captions = 0;

  add(caption: string): string[] {
    const concepts = conceptsOf(caption);
    for (const c of concepts) this.counts.set(c, (this.counts.get(c) ?? 0) + 1);
    this.captions++;
    return concepts;
  }

  count(concept: string): number {
    return this.counts.get(concept) ?? 0;
  }

  /** All concepts with their counts, most frequent first. */
  entries(): Array<[string, number]> {
    return [...this.counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  }

  /** Second pass: keep a caption when every concept's count is ≥ threshold. */
  check(caption: string, threshold: number): Verdict {
    const rare = conceptsOf(caption).find((c) => this.count(c) < threshold);
    return rare === undefined ? keep(caption) : reject('prune:rare-concept', `"${rare}" seen in ${this.count(rare)} kept captions; at least ${threshold}`);
  }
}

/** A pruning threshold stated for the paper's corpus: `threshold` at `atPairs` pairs, never below `floor` once scaled. */
export interface ScaledCount {
  threshold: number;
  atPairs: number;
  floor: number;
}

/**
 * CC3M §3's low-count concept pruning as a two-pass dataset stage (src/filters/pipeline.ts
 * DatasetStage): observe every caption, then check each. The threshold is a fixed count, or the
 * paper's (src/filters/presets.ts CC3M_CONCEPT_PRUNING) scaled (src/filters/scale.ts) to the
 * number of captions observed, fixed at the first check. The pipeline and the tests use this one.
 */
export class ConceptPruner {
  readonly name = 'prune';
  readonly counter = new ConceptCounter();
  private fixed: number | undefined;
  constructor(readonly rule: number | ScaledCount) {}
  observe(caption: string): void {
    this.counter.add(caption);
  }
  /** The count a concept needs (for a scaled rule: at the number of captions observed so far). */
  threshold(): number {
    if (this.fixed !== undefined) return this.fixed;
    const r = this.rule;
    return typeof r === 'number' ? r : scaledThreshold(r.threshold, this.counter.captions, r.atPairs, r.floor);
  }
  check(caption: string): Verdict {
    this.fixed ??= this.threshold();
    return this.counter.check(caption, this.fixed);
  }
}
