/**
 * A ground-truth caption judge for the embedded world: object recall and CHAIR-style
 * hallucination (Rohrbach et al. 2018), with the world's concept catalog as the object vocabulary.
 *
 * The vocabulary holds, for every concept, its name, its WordNet lemmas (synonyms), its COCO name
 * and the plurals of all of these, plus the basic-level hypernym words the world's captions use
 * (`hypernymOf(concept, 1)`, "fruit" for durian). Very generic words (entity, object, thing, …)
 * are not object words, nor are the words of the world's caption frame ("on a table", "on top of",
 * "a green …") unless they are a concept's own name. `<PERSON>` and everyday person words count as the concept "person".
 *
 * A caption is lower-cased and tokenised like the metrics (captionTokens); object mentions are
 * matched greedily left to right, longest phrase first. A mention is correct when it names a
 * present concept (name, synonym, COCO name, plural) or is a hypernym of one; otherwise it is
 * hallucinated. Only the world knows what is in its images: the judge runs on cases that carry
 * their objects and never guesses them.
 */
import { captionTokens } from '../text/vocab';
import { PERSON_TOKEN } from '../text/tokens';
import { wordnet } from '../wordnet';
import { ABSTRACT_HEADS, WORDNET_TOP_NODES } from '../wordnet/basic-level';
import { headWord, plural } from '../wordnet/nouns';
import { basicHypernyms, buildConcepts, hypernymOf } from '../world/concepts';
import type { Concept } from '../world/types';
import { ADJECTIVES, BACKDROPS, PERSON_ROLES, POSES, REFERENCE_ADJECTIVES, REFERENCE_PLACES, RELATIONS, SCENE_PLACES } from '../world/words';

/** Words too generic to be an object mention, on top of WordNet's top nodes and abstract heads. */
export const GENERIC_OBJECT_WORDS: ReadonlySet<string> = new Set([
  ...WORDNET_TOP_NODES,
  ...ABSTRACT_HEADS,
  'item',
  'stuff',
  'something',
  'structure',
  'material',
  'body',
  'form',
  'shape',
]);

/** The words of the world's caption templates around the objects: settings' heads, relations, adjectives. */
export const WORLD_FRAME_WORDS: readonly string[] = [
  ...new Set([
    ...SCENE_PLACES.map(headWord),
    ...BACKDROPS.map(headWord),
    ...REFERENCE_PLACES.map(headWord),
    ...RELATIONS.flatMap((r) => r.split(' ')),
    ...ADJECTIVES,
    ...REFERENCE_ADJECTIVES,
    ...POSES,
    // "… can be seen", "a light backdrop"
    'can',
    'light',
  ]),
];

/**
 * Words that may end a noun phrase: a frame word that is also a concept's own name ("orange", "can")
 * is an object mention only when one of these (or the end) follows it — "an orange on a table",
 * not "an orange cat" or "can be seen".
 */
const PHRASE_ENDS: ReadonlySet<string> = new Set([
  ...RELATIONS.flatMap((r) => r.split(' ')),
  ...POSES,
  ...['and', 'or', 'is', 'are', 'at', 'of', 'by', 'to', 'for', 'from', 'in', 'on', 'with', 'near', 'against', 'there', ',', '.', ';', ':', '!', '?'],
]);

/** Everyday words for a person (besides WordNet's lemmas of person.n.01 and the world's roles). */
const PERSON_WORDS = ['people', 'man', 'woman', 'boy', 'girl', 'child', 'kid', 'guy', 'lady', 'gentleman', 'player', 'baby', 'adult', 'human'];

const IRREGULAR_PERSON_PLURALS = [
  ['men', 'man'],
  ['women', 'woman'],
  ['children', 'child'],
  ['gentlemen', 'gentleman'],
] as const;

/** The concept `<PERSON>` and the person words stand for (a COCO category). */
export const PERSON_CONCEPT = 'person';

/** One object phrase of the vocabulary. */
export interface ObjectWord {
  /** Lower-case tokens of the phrase ("hot dog" → ["hot", "dog"]). */
  tokens: string[];
  /** The singular form, as hypernym lists spell it ("fruits" → "fruit"). */
  singular: string;
  /** Concepts the phrase names directly (name, synonym, COCO name or their plurals). */
  concepts: string[];
  /** Also a word of the captions' frame (a colour, "can"): a mention only where a noun phrase can end. */
  frame?: boolean;
}

export interface GroundingVocabulary {
  /** Phrase (tokens joined by one space) → its object word. */
  words: Map<string, ObjectWord>;
  /** Longest phrase, in tokens. */
  maxTokens: number;
  /** Concept name → every hypernym word of it (names and head words of its chain, basic-level words). */
  hypernyms: Map<string, Set<string>>;
}

export interface GroundingVocabularyOptions {
  /** Extra words that are never object mentions (default: none beyond GENERIC_OBJECT_WORDS). */
  generic?: readonly string[];
  /**
   * Words of the captions' frame, not of their objects: these count as mentions only where they are a
   * concept's own name or COCO name, never as a synonym or hypernym (default: the words of the world's
   * caption templates: settings "on a table", relations "on top of", adjectives "a green …").
   */
  frame?: readonly string[];
}

const normalise = (phrase: string): string => phrase.toLowerCase().replace(/_/g, ' ').replace(/\s+/g, ' ').trim();

const vocabularyCache = new WeakMap<readonly Concept[], GroundingVocabulary>();

/** The judge's object vocabulary of a concept catalog (default: the world's catalog). */
export function groundingVocabulary(concepts: readonly Concept[] = buildConcepts(), options: GroundingVocabularyOptions = {}): GroundingVocabulary {
  const plain = options.generic === undefined && options.frame === undefined;
  if (plain) {
    const cached = vocabularyCache.get(concepts);
    if (cached) return cached;
  }
  const generic = new Set([...GENERIC_OBJECT_WORDS, ...(options.generic ?? []).map(normalise)]);
  const frame = new Set((options.frame ?? WORLD_FRAME_WORDS).map(normalise));
  const words = new Map<string, ObjectWord>();
  /** `own`: the phrase is a concept's own (or COCO) name or its plural, which frame words may be. */
  const add = (phrase: string, singular: string, concept?: string, own = false): void => {
    const key = normalise(phrase);
    if (key === '' || generic.has(key) || generic.has(normalise(singular))) return;
    if (!own && (frame.has(key) || frame.has(normalise(singular)))) return;
    let word = words.get(key);
    if (!word) words.set(key, (word = { tokens: key.split(' '), singular: normalise(singular), concepts: [] }));
    if (frame.has(key) || frame.has(normalise(singular))) word.frame = true;
    if (concept !== undefined && !word.concepts.includes(concept)) word.concepts.push(concept);
  };
  const addWithPlural = (phrase: string, concept?: string, own = false): void => {
    const singular = normalise(phrase);
    add(singular, singular, concept, own);
    add(plural(singular), singular, concept, own);
  };
  const wn = wordnet();
  for (const c of concepts) {
    addWithPlural(c.name, c.name, true);
    if (c.cocoName !== undefined) addWithPlural(c.cocoName, c.name, true);
    for (const lemma of wn.synset(c.synset).lemmas) addWithPlural(lemma, c.name);
  }
  const hypernyms = new Map<string, Set<string>>();
  for (const c of concepts) {
    const set = new Set<string>();
    for (const name of c.hypernyms) {
      set.add(normalise(name));
      set.add(normalise(headWord(name)));
    }
    for (const word of basicHypernyms(c)) set.add(normalise(word));
    hypernyms.set(c.name, set);
    const basic = normalise(hypernymOf(c, 1));
    if (basic !== normalise(c.name)) addWithPlural(basic);
  }
  // Person words name the concept "person" (unless a concept of their own already has them).
  if (concepts.some((c) => c.name === PERSON_CONCEPT)) {
    for (const word of [...PERSON_WORDS, ...PERSON_ROLES]) if (!words.has(word)) addWithPlural(word, PERSON_CONCEPT);
    for (const [many, one] of IRREGULAR_PERSON_PLURALS) if (!words.has(many)) add(many, one, PERSON_CONCEPT);
    add(PERSON_TOKEN.toLowerCase(), PERSON_CONCEPT, PERSON_CONCEPT);
  }
  let maxTokens = 1;
  for (const word of words.values()) maxTokens = Math.max(maxTokens, word.tokens.length);
  const vocabulary = { words, maxTokens, hypernyms };
  if (plain) vocabularyCache.set(concepts, vocabulary);
  return vocabulary;
}

/** One object mention found in a caption. */
export interface ObjectMention {
  /** The phrase as matched (lower case). */
  text: string;
  word: ObjectWord;
}

const SUBJECT_PRONOUNS: ReadonlySet<string> = new Set(['i', 'you', 'we', 'they', 'he', 'she', 'it']);

/**
 * The object mentions of a caption, matched longest-first, left to right, without overlaps; a phrase
 * right after a subject pronoun ("I can see") is not a mention.
 */
export function objectMentions(caption: string, vocabulary: GroundingVocabulary): ObjectMention[] {
  const tokens = captionTokens(caption).map((t) => t.toLowerCase());
  const out: ObjectMention[] = [];
  for (let i = 0; i < tokens.length;) {
    let matched = 0;
    for (let n = Math.min(vocabulary.maxTokens, tokens.length - i); n >= 1; n--) {
      const text = tokens.slice(i, i + n).join(' ');
      const word = vocabulary.words.get(text);
      // "I can see", "it can": a word right after a subject pronoun is a verb, not an object
      const next = tokens[i + n];
      if (word && !SUBJECT_PRONOUNS.has(tokens[i - 1] ?? '') && (!word.frame || next === undefined || PHRASE_ENDS.has(next))) {
        out.push({ text, word });
        matched = n;
        break;
      }
    }
    i += matched || 1;
  }
  return out;
}

/** The judge's verdict on one caption. */
export interface CaptionGrounding {
  /** Present concepts the caption names (by name, synonym, COCO name or plural), in image order. */
  named: string[];
  /** Present concepts the caption names only by a hypernym ("a fruit" for a durian), in image order. */
  byKind: string[];
  /** Mentions (as written, lower case) that name no present concept and no hypernym of one. */
  hallucinated: string[];
  /** Object mentions in all (correct and hallucinated). */
  mentions: number;
}

/** Judges one caption against the concept names present in its image. */
export function judgeCaption(caption: string, objects: readonly string[], vocabulary: GroundingVocabulary): CaptionGrounding {
  const present = [...new Set(objects.map(normalise))];
  const named = new Set<string>();
  const kinds = new Set<string>();
  const hallucinated: string[] = [];
  const mentions = objectMentions(caption, vocabulary);
  for (const { text, word } of mentions) {
    const direct = present.filter((p) => word.concepts.includes(p));
    if (direct.length > 0) {
      direct.forEach((p) => named.add(p));
      continue;
    }
    const kindOf = present.filter((p) => vocabulary.hypernyms.get(p)?.has(word.singular));
    if (kindOf.length > 0) kindOf.forEach((p) => kinds.add(p));
    else hallucinated.push(text);
  }
  return {
    named: present.filter((p) => named.has(p)),
    byKind: present.filter((p) => kinds.has(p) && !named.has(p)),
    hallucinated,
    mentions: mentions.length,
  };
}

/** One caption to judge, with the concept names its image shows. */
export interface GroundingCase {
  imageId?: string;
  caption: string;
  objects: readonly string[];
  /** nocaps domain ("in"/"near"/"out", or "in-domain", …). */
  domain?: string;
}

/** Aggregate figures over a set of captions (shares in [0, 1]). */
export interface GroundingFigures {
  /** Share of captions that name at least one present object, by its name, a synonym or a hypernym. */
  recall: number;
  /** Share of captions that name at least one present object by its own name or a synonym (not only its kind). */
  specificRecall: number;
  /** Share of present objects (distinct per image, over all images) that their caption names, by name or kind. */
  objectRecall: number;
  /** CHAIR_s: share of captions with at least one hallucinated mention. */
  chairS: number;
  /** CHAIR_i: hallucinated mentions / all object mentions. */
  chairI: number;
  captions: number;
}

export type GroundingDomain = 'in' | 'near' | 'out';

/** The scores file's `grounding` field: overall figures and, when the cases carry domains, per domain. */
export type GroundingScores = { overall: GroundingFigures } & Partial<Record<GroundingDomain, GroundingFigures>>;

export interface GroundingReport {
  /** Aligned with the cases. */
  perCaption: CaptionGrounding[];
  scores: GroundingScores;
}

/** The aggregate figures of judged captions (`objects` aligned with `verdicts`). */
export function groundingFigures(verdicts: readonly CaptionGrounding[], objects: readonly (readonly string[])[]): GroundingFigures {
  let withNamed = 0;
  let withSpecific = 0;
  let withHallucination = 0;
  let presentCount = 0;
  let namedCount = 0;
  let mentions = 0;
  let hallucinated = 0;
  verdicts.forEach((v, i) => {
    if (v.named.length + v.byKind.length > 0) withNamed++;
    if (v.named.length > 0) withSpecific++;
    if (v.hallucinated.length > 0) withHallucination++;
    presentCount += new Set(objects[i]!.map(normalise)).size;
    namedCount += v.named.length + v.byKind.length;
    mentions += v.mentions;
    hallucinated += v.hallucinated.length;
  });
  const share = (a: number, b: number): number => (b === 0 ? 0 : a / b);
  return {
    recall: share(withNamed, verdicts.length),
    specificRecall: share(withSpecific, verdicts.length),
    objectRecall: share(namedCount, presentCount),
    chairS: share(withHallucination, verdicts.length),
    chairI: share(hallucinated, mentions),
    captions: verdicts.length,
  };
}

function domainOf(domain: string | undefined): GroundingDomain | undefined {
  if (domain === undefined) return undefined;
  const short = domain.toLowerCase().replace(/[-_ ]?domain$/, '');
  if (short === 'in' || short === 'near' || short === 'out') return short;
  throw new Error(`unknown nocaps domain "${domain}"`);
}

/** Judges every case: per-caption verdicts, overall figures and the in / near / out breakdown. */
export function judge(cases: readonly GroundingCase[], vocabulary: GroundingVocabulary = groundingVocabulary()): GroundingReport {
  const perCaption = cases.map((c) => judgeCaption(c.caption, c.objects, vocabulary));
  const scores: GroundingScores = {
    overall: groundingFigures(
      perCaption,
      cases.map((c) => c.objects),
    ),
  };
  const byDomain = new Map<GroundingDomain, number[]>();
  cases.forEach((c, i) => {
    const domain = domainOf(c.domain);
    if (domain === undefined) return;
    if (!byDomain.has(domain)) byDomain.set(domain, []);
    byDomain.get(domain)!.push(i);
  });
  for (const domain of ['in', 'near', 'out'] as const) {
    const indices = byDomain.get(domain);
    if (!indices) continue;
    scores[domain] = groundingFigures(
      indices.map((i) => perCaption[i]!),
      indices.map((i) => cases[i]!.objects),
    );
  }
  return { perCaption, scores };
}

/**
 * Version of the judge's rules (vocabulary and matching). Scores files record it; a split judged by
 * another version is judged again from its stored captions (no decoding). Bump it when the rules change.
 */
export const JUDGE_VERSION = 3;
