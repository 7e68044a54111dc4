/**
 * Web-like alt-text for the world's images, with its ground truth: which concepts it names,
 * where person names are, and whether it describes the image at all. Styles and shares are
 * parameters (defaults below) so the filters of both papers have realistic work to do.
 */
import { Concept } from './types';
import { basicHypernyms, hypernymOf } from './concepts';
import { plural, withArticle } from './nouns';
import { pick } from '../util/random';
import * as words from './words';

/** A person's name inside the alt-text: characters [start, end). */
export interface PersonMention {
  start: number;
  end: number;
  name: string;
  /** The occupation CC3M's hypernymisation would put in its place ("actor"). */
  role: string;
}

export type AltTextStyle = 'sentence' | 'phrase' | 'long' | 'person' | 'keywords' | 'hashtags' | 'title' | 'filename' | 'non-english' | 'boilerplate-reject';

export interface AltText {
  text: string;
  style: AltTextStyle;
  /** Concept indices the text names (by name or by hypernym). */
  mentions: number[];
  persons: PersonMention[];
  /** False for the pairs whose text was written for another image. */
  describesImage: boolean;
}

/** Shares of each style and of noise; the rest of the pairs are plain descriptive sentences. */
export interface AltTextOptions {
  /**
   * Descriptive sentences and news captions whose text describes some other image. Calibrated with
   * contextMismatchShare against the papers' caption precision: CC3M 90.3%, CC12M 76.6%.
   */
  mismatchShare: number;
  /** The same for every other style (long shop/blog text, phrases, tag lists), which is about its page more often. */
  contextMismatchShare: number;
  /** Mismatched texts written for a related picture that shares one object with this one. */
  mismatchSharedObjectShare: number;
  /** Sentences that name a person ("Anna Moreau holding a cup at the premiere"). */
  personShare: number;
  keywordShare: number;
  hashtagShare: number;
  titleShare: number;
  filenameShare: number;
  nonEnglishShare: number;
  /** Texts that CC3M's pattern filter rejects outright ("embedded image permalink"). */
  rejectedBoilerplateShare: number;
  /** Descriptive texts wrapped in croppable boilerplate ("Stock Photo - …"). */
  boilerplateShare: number;
  /** Names an object by its nearest hypernym instead of its own name. */
  hypernymShare: number;
  /** Texts in ALL CAPS or Title Case. */
  capitalisationNoiseShare: number;
  /**
   * Descriptive texts written without a leading capital ("red durian next to a cup"), as much
   * alt-text is. CC3M's text filter rejects them (first word capitalised), CC12M's keeps them.
   * Calibrated on `pool-ratio` over disjoint pools (0.6: CC12M-like minus CC3M-like images ≈ 3.5× CC3M-like;
   * papers 12.4M / 3.3M = 3.74, CC12M Table 1); it was 0.5 while the pools overlapped.
   */
  lowercaseShare: number;
  /** Noun phrases without a preposition ("A red durian and a cup"): CC3M rejects, CC12M keeps. */
  phraseShare: number;
  /**
   * Long product / blog / news descriptions: a sentence and 2–6 more (the object named again,
   * shop and place talk). CC12M Table 1: its captions are longer and vary more (20.2 ± 16.3 tokens
   * against CC3M's 10.3 ± 4.5); CC3M's repetition and capitalisation checks reject most of them.
   */
  longShare: number;
}

export const DEFAULT_ALT_TEXT: AltTextOptions = {
  mismatchShare: 0.07,
  contextMismatchShare: 0.4,
  mismatchSharedObjectShare: 0.6,
  personShare: 0.13,
  keywordShare: 0.08,
  hashtagShare: 0.06,
  titleShare: 0.08,
  filenameShare: 0.03,
  nonEnglishShare: 0.04,
  rejectedBoilerplateShare: 0.02,
  boilerplateShare: 0.12,
  hypernymShare: 0.3,
  capitalisationNoiseShare: 0.1,
  lowercaseShare: 0.65,
  phraseShare: 0.15,
  longShare: 0.2,
};

/** Builds text piece by piece, remembering where person names land. */
class TextBuilder {
  text = '';
  persons: PersonMention[] = [];
  add(piece: string): this {
    this.text += piece;
    return this;
  }
  person(name: string, role: string): this {
    this.persons.push({ start: this.text.length, end: this.text.length + name.length, name, role });
    this.text += name;
    return this;
  }
}

function objectName(random: () => number, concept: Concept, options: AltTextOptions): string {
  return random() < options.hypernymShare ? hypernymOf(concept, 1) : concept.name;
}

function adjectivePhrase(random: () => number, noun: string): string {
  return random() < 0.4 ? `${pick(random, words.ADJECTIVES)} ${noun}` : noun;
}

function dateOrNothing(random: () => number): string {
  const r = random();
  if (r < 0.1) return ` on ${pick(random, words.MONTHS)} ${1 + Math.floor(random() * 28)}, ${2005 + Math.floor(random() * 15)}`;
  if (r < 0.18) return ` in ${2005 + Math.floor(random() * 15)}`;
  return '';
}

/** "a red durian next to a cup on a table in Paris" */
function describe(random: () => number, names: string[]): string {
  const first = withArticle(adjectivePhrase(random, names[0]));
  let text = first;
  if (names.length > 1) text += ` ${pick(random, words.RELATIONS)} ${withArticle(names[1])}`;
  if (names.length > 2) text += ` and ${names.length === 3 ? withArticle(names[2]) : `${names.length - 2} other things`}`;
  if (random() < 0.5) text += ` on ${pick(random, words.SCENE_PLACES)}`;
  if (random() < 0.3) text += ` in ${pick(random, words.PLACES)}`;
  return text + dateOrNothing(random);
}

function capitalise(text: string): string {
  return text.length === 0 ? text : text[0].toUpperCase() + text.slice(1);
}

function titleCase(text: string): string {
  return text.replace(/\b[a-z]/g, (c) => c.toUpperCase());
}

function personName(random: () => number): string {
  return `${pick(random, words.GIVEN_NAMES)} ${pick(random, words.SURNAMES)}`;
}

/** One follow-up sentence of a long description, about the first object. */
function longSentence(random: () => number, b: TextBuilder, concept: Concept, name: string): void {
  const kind = hypernymOf(concept, 1);
  const templates = [
    () => b.add(`This ${name} is ${pick(random, words.ADJECTIVES)} and ${pick(random, words.ADJECTIVES)}.`),
    () => b.add(`This ${name} is perfect for ${pick(random, words.OCCASIONS)}.`),
    () => b.add(`Photo of the ${name} taken in ${pick(random, words.PLACES)}${dateOrNothing(random)}.`),
    () => b.add(`The ${name} is popular in ${pick(random, words.PLACES)}.`),
    () => b.add(`Find more ${name} and ${kind} ${pick(random, words.SEO_WORDS)} ideas in our shop.`),
    () => b.add(`We love the ${pick(random, words.ADJECTIVES)} colors of the ${name}.`),
    () => b.add(`This ${name} comes in ${2 + Math.floor(random() * 6)} sizes, free shipping on all orders.`),
    () => b.add(`Read more about the ${name} on our blog.`),
    () => b.add('Picture of the ').add(name).add(' by ').person(personName(random), 'photographer').add('.'),
    () =>
      b.add(
        `It was ${pick(random, ['a great day', 'a sunny morning', 'late in the evening', 'the first time'])} and the ${name} looked ${pick(random, words.ADJECTIVES)}.`,
      ),
  ];
  pick(random, templates)();
}

/**
 * How a person-style text places its person: the subject of the picture ("Anna Moreau with a cup at the
 * premiere", "a cup held by Anna Moreau"), shown in the image as in CC3M Table 1's examples (the worker, the
 * musician), or someone outside it (its owner, its photographer).
 */
export type PersonRole = 'with' | 'holding' | 'owner' | 'photographer';

/** Whether a person in this role is in the picture. */
export const PERSON_IN_PICTURE: Record<PersonRole, boolean> = { with: true, holding: true, owner: false, photographer: false };

/**
 * What an alt-text will be, drawn before the image is: its style, whether it was written for this image,
 * and for person-style texts the person's role. The image's scene shows the person when the text was
 * written for it and names its subject (`personShown`), so the world draws the plan first.
 */
export interface AltTextPlan {
  style: AltTextStyle;
  describesImage: boolean;
  personRole?: PersonRole;
  /** The text names a person who is in the picture: the scene shows the person concept first. */
  personShown: boolean;
}

export function altTextPlan(random: () => number, options: AltTextOptions = DEFAULT_ALT_TEXT): AltTextPlan {
  let style: AltTextStyle = 'sentence';
  const cumulative: [AltTextStyle, number][] = [
    ['person', options.personShare],
    ['phrase', options.phraseShare],
    ['long', options.longShare],
    ['keywords', options.keywordShare],
    ['hashtags', options.hashtagShare],
    ['title', options.titleShare],
    ['filename', options.filenameShare],
    ['non-english', options.nonEnglishShare],
    ['boilerplate-reject', options.rejectedBoilerplateShare],
  ];
  let r = random();
  for (const [candidate, share] of cumulative) {
    if (r < share) {
      style = candidate;
      break;
    }
    r -= share;
  }
  // careful captions (sentences, news captions) are about the picture; shop and blog text, tag lists
  // and fragments are about their page more often
  const mismatch = style === 'sentence' || style === 'person' ? options.mismatchShare : options.contextMismatchShare;
  const describesImage = random() >= mismatch;
  if (style !== 'person') return { style, describesImage, personShown: false };
  // half the news captions are about the person with the object, the rest about the object and whose it is
  const personRole: PersonRole = random() < 0.5 ? 'with' : pick(random, ['holding', 'owner', 'photographer'] as const);
  return { style, describesImage, personRole, personShown: describesImage && PERSON_IN_PICTURE[personRole] };
}

/**
 * Alt-text for an image showing `shown` concepts, as `plan` says (altTextPlan with the same random
 * source, drawn before the scene). `otherImage` draws the concepts of some other web image, used for the
 * mismatched share. When `plan.personShown`, `shown[0]` is the person the text names.
 */
export function altTextFor(
  random: () => number,
  plan: AltTextPlan,
  shown: readonly Concept[],
  otherImage: () => Concept[],
  options: AltTextOptions = DEFAULT_ALT_TEXT,
): AltText {
  const { style, describesImage } = plan;
  // the person is named by name, not as an object: the text names the other objects
  const person = plan.personShown && shown.length > 1 ? shown[0] : undefined;
  const objects = person ? shown.slice(1) : shown;
  let subjects = describesImage ? [...objects] : otherImage();
  // a text written for a related picture shares one object with this one (so vision tags can match)
  if (!describesImage && random() < options.mismatchSharedObjectShare && !subjects.some((c) => c.index === shown[0]!.index))
    subjects = [shown[0]!, ...subjects].slice(0, Math.max(2, subjects.length));
  const names = subjects.map((c) => objectName(random, c, options));
  const mentions = subjects.map((c) => c.index);
  if (person) mentions.unshift(person.index);
  const b = new TextBuilder();

  switch (style) {
    case 'person': {
      const role = pick(random, words.PERSON_ROLES);
      const name = personName(random);
      if (plan.personRole === 'with') {
        b.add(random() < 0.5 ? `${capitalise(role)} ` : '').person(name, role);
        b.add(` with ${withArticle(names[0])} at ${pick(random, words.EVENTS)}`);
      } else {
        const relation = plan.personRole === 'holding' ? 'held by' : plan.personRole === 'owner' ? 'belonging to' : 'photographed by';
        b.add(capitalise(withArticle(adjectivePhrase(random, names[0])))).add(` ${relation} `);
        b.person(name, role);
      }
      if (random() < 0.5) b.add(` in ${pick(random, words.PLACES)}`);
      b.add(dateOrNothing(random));
      break;
    }
    case 'keywords': {
      const terms = new Set<string>();
      subjects.forEach((c, i) => {
        terms.add(names[i]);
        basicHypernyms(c)
          .slice(0, 2)
          .forEach((h) => terms.add(h));
      });
      const seo = Math.floor(random() * 4);
      for (let i = 0; i < seo; i++) terms.add(pick(random, words.SEO_WORDS));
      b.add([...terms].join(random() < 0.5 ? ', ' : ' '));
      break;
    }
    case 'hashtags': {
      const tags = names.map((n) => '#' + n.replace(/[^a-z0-9]/gi, ''));
      const extra = 1 + Math.floor(random() * 3);
      for (let i = 0; i < extra; i++) tags.push('#' + pick(random, words.HASHTAG_WORDS));
      b.add((random() < 0.5 ? capitalise(describe(random, names)) + ' ' : '') + tags.join(' '));
      break;
    }
    case 'title':
      b.add(titleCase(`${adjectivePhrase(random, plural(names[0]))} ${pick(random, ['for sale', 'ideas', 'wallpaper', 'pictures'])}`));
      if (random() < 0.5) b.add(` | ${titleCase(pick(random, words.SEO_WORDS))} ${titleCase(pick(random, words.SEO_WORDS))}`);
      break;
    case 'phrase': {
      const phrases = names.slice(0, 3).map((n, i) => withArticle(i === 0 ? adjectivePhrase(random, n) : n));
      b.add(capitalise(phrases.length === 1 ? phrases[0]! : `${phrases.slice(0, -1).join(', ')} and ${phrases.at(-1)}`));
      break;
    }
    case 'long': {
      // shop pages open with the product's name as a title (SEO repetition)
      if (random() < 0.6) b.add(`${titleCase(names[0]!)}: `);
      b.add(capitalise(describe(random, names)) + '.');
      const more = 2 + Math.min(4, Math.floor(-Math.log(1 - random()) * 1.6));
      for (let i = 0; i < more; i++) {
        b.add(' ');
        longSentence(random, b, subjects[0]!, names[0]!);
      }
      break;
    }
    case 'filename':
      b.add(`${pick(random, ['IMG_', 'DSC0', 'P10', 'photo-'])}${1000 + Math.floor(random() * 9000)}${random() < 0.5 ? '.jpg' : ''}`);
      mentions.length = 0;
      break;
    case 'non-english':
      b.add(pick(random, words.NON_ENGLISH_TEMPLATES).replace('{}', names[0]));
      mentions.splice(1);
      break;
    case 'boilerplate-reject':
      b.add(capitalise(pick(random, words.REJECTED_BOILERPLATE)));
      mentions.length = 0;
      break;
    default:
      b.add(capitalise(describe(random, names)));
      if (random() < 0.6) b.add('.');
  }

  // lower-casing the first letter never touches a person's name (names never open a text in lower case)
  if ((style === 'sentence' || style === 'long' || (style === 'person' && b.persons[0]?.start !== 0)) && random() < options.lowercaseShare)
    b.text = b.text[0]!.toLowerCase() + b.text.slice(1);
  if (style === 'sentence' && random() < options.boilerplateShare) {
    if (random() < 0.5) {
      const prefix = pick(random, words.BOILERPLATE_PREFIXES);
      b.text = prefix + b.text;
      b.persons.forEach((p) => ((p.start += prefix.length), (p.end += prefix.length)));
    } else b.add(pick(random, words.BOILERPLATE_SUFFIXES));
  }
  let text = b.text;
  if (random() < options.capitalisationNoiseShare) text = random() < 0.4 ? text.toUpperCase() : titleCase(text);
  return { text, style, mentions: describesImage ? mentions : [], persons: b.persons, describesImage };
}

/**
 * How people vary when they caption the same image (COCO / nocaps style). The world's references
 * are calibrated against the papers' human baselines: leave-one-out CIDEr-D of nocaps val
 * references ≈ 87 overall (`cckit world check`, statistic `reference-diversity`).
 */
export interface ReferenceOptions {
  /** Chance that a reference names the second / third object at all (people mention the salient ones). */
  secondObjectShare: number;
  thirdObjectShare: number;
  /** Chance that an object is named by its basic-level hypernym ("a fruit") instead of its name. */
  hypernymShare: number;
  /** Chance of one adjective on a noun phrase, and of a second one. */
  adjectiveShare: number;
  secondAdjectiveShare: number;
  /**
   * Which object people mention first: objects are ranked by size, and each caption draws its order with
   * weight salienceDecay^rank (1: any order; smaller: the largest first more often). Calibrated on COCO's human
   * CIDEr (85, `human-cider-coco`) once COCO-like images show COCO's 3.5 objects (generation 4).
   */
  salienceDecay: number;
  /**
   * Chance that an object people have no name for (`unfamiliar`: the world's novel objects, which COCO-like
   * images never show) is named by its basic-level hypernym ("a fruit"). Calibrated on nocaps' out-of-domain human
   * CIDEr (96, `human-cider-nocaps`).
   */
  unfamiliarHypernymShare: number;
}

export const DEFAULT_REFERENCES: ReferenceOptions = {
  secondObjectShare: 0.5,
  thirdObjectShare: 0.2,
  hypernymShare: 0.15,
  adjectiveShare: 0.9,
  secondAdjectiveShare: 0.5,
  salienceDecay: 0.35,
  unfamiliarHypernymShare: 0.5,
};

/** An order of `items` (ranked, most salient first) drawn with weight decay^rank without replacement. */
function salientOrder<T>(random: () => number, items: readonly T[], decay: number): T[] {
  if (!(decay > 0 && decay <= 1)) throw new Error(`references.salienceDecay must be in (0, 1], got ${decay}`);
  const left = items.map((item, rank) => ({ item, weight: decay ** rank }));
  const order: T[] = [];
  while (left.length > 0) {
    let u = random() * left.reduce((s, x) => s + x.weight, 0);
    let k = 0;
    while (k < left.length - 1 && (u -= left[k]!.weight) >= 0) k++;
    order.push(left.splice(k, 1)[0]!.item);
  }
  return order;
}

/** One noun phrase as a person would say it: article, maybe adjectives, the name. */
function referencePhrase(random: () => number, name: string, options: ReferenceOptions): string {
  let phrase = name;
  if (random() < options.adjectiveShare) {
    phrase = `${pick(random, words.REFERENCE_ADJECTIVES)} ${phrase}`;
    const second = pick(random, words.REFERENCE_ADJECTIVES);
    if (random() < options.secondAdjectiveShare && !phrase.startsWith(second + ' ')) phrase = `${second} ${phrase}`;
  }
  const r = random();
  return r < 0.7 ? withArticle(phrase) : r < 0.85 ? `the ${phrase}` : r < 0.93 ? `one ${phrase}` : `this ${phrase}`;
}

type Frame = (a: string, b: string | undefined, c: string | undefined, random: () => number) => string;

const and = (b: string | undefined, c: string | undefined): string => (b ? (c ? `, ${b} and ${c}` : ` and ${b}`) : '');
const rel = (random: () => number, b: string | undefined): string => (b ? ` ${pick(random, words.RELATIONS)} ${b}` : '');
const pose = (random: () => number): string => pick(random, words.POSES);
const backdrop = (random: () => number): string => pick(random, words.BACKDROPS);
const extra = (c: string | undefined): string => (c ? ` and ${c}` : '');

/** Sentence frames people use; `b` and `c` are the optional second and third objects. */
const REFERENCE_FRAMES: Frame[] = [
  (a, b, c, r) => `${a}${rel(r, b)}${extra(c)} on ${pick(r, words.SCENE_PLACES)}`,
  (a, b, c, r) => `${a}${and(b, c)} ${pose(r)} on ${backdrop(r)}`,
  (a, b, c, r) => `there is ${a}${rel(r, b)}${extra(c)}`,
  (a, b, c) => `a picture of ${a}${and(b, c)}`,
  (a, b, c, r) => `${a} is ${pose(r)}${b ? ` ${pick(r, words.RELATIONS)} ${b}` : ` on ${backdrop(r)}`}${extra(c)}`,
  (a, b) => `close up of ${a}${b ? ` with ${b} nearby` : ''}`,
  (a, b, c, r) => `${a} ${pose(r)} against ${backdrop(r)}${b ? ` with ${b}` : ''}`,
  (a, b, c, r) => `an illustration of ${a}${rel(r, b)}`,
  (a, b, c, r) => `${a} can be seen${b ? ` ${pick(r, words.RELATIONS)} ${b}` : ' in the picture'}`,
  (a, b) => `${a} in the middle of the picture${b ? ` and ${b} at the side` : ''}`,
  (a, b, c) => `a drawing that shows ${a}${and(b, c)}`,
  (a, b, c, r) => (b ? `${a} with ${b} in the background` : `${a} on ${backdrop(r)}`),
  (a, b, c, r) => `${pick(r, ['an image', 'a photo', 'a picture', 'a simple image', 'a cartoon'])} with ${a}${and(b, c)}`,
  (a, b, c, r) => (b ? `${a} on the left and ${b} on the right` : `${a} tilted to one side on ${backdrop(r)}`),
  (a, b, c, r) => `${a}${and(b, c)} ${pick(r, ['shown together', 'lying around', 'placed close together', 'drawn in bright colors'])}`,
  (a, b, c, r) => `looks like ${a}${rel(r, b)}`,
  (a, b, c, r) => `${a}${b ? ` and ${b}` : ''} ${pick(r, words.REFERENCE_PLACES)}`,
];

/**
 * What one person calls an object: its name, or its basic-level hypernym ("a fruit"); an object they have no
 * name for is called by a hypernym more often, and people disagree on which ("a fruit", "some produce", "food").
 */
function referenceName(random: () => number, concept: Concept, options: ReferenceOptions, unfamiliar: boolean): string {
  if (!unfamiliar) return random() < options.hypernymShare ? hypernymOf(concept, 1) : concept.name;
  if (random() >= Math.max(options.hypernymShare, options.unfamiliarHypernymShare)) return concept.name;
  return hypernymOf(concept, 1 + Math.floor(random() * 3));
}

/**
 * Clean, human-style reference captions (COCO / nocaps / Flickr style): `count` different ones. `shown` is
 * ranked by salience (largest first); `unfamiliar` says which concepts people have no name for.
 */
export function referenceCaptions(
  random: () => number,
  shown: readonly Concept[],
  count: number,
  options: ReferenceOptions = DEFAULT_REFERENCES,
  unfamiliar: (concept: Concept) => boolean = () => false,
): string[] {
  const captions: string[] = [];
  for (let i = 0; i < count; i++) {
    const order = salientOrder(random, shown, options.salienceDecay);
    const mentioned = order.filter((_, k) => k === 0 || (k === 1 ? random() < options.secondObjectShare : random() < options.thirdObjectShare)).slice(0, 3);
    const phrases = mentioned.map((c) => referencePhrase(random, referenceName(random, c, options, unfamiliar(c)), options));
    const caption = pick(random, REFERENCE_FRAMES)(phrases[0]!, phrases[1], phrases[2], random);
    captions.push(random() < 0.5 ? capitalise(caption) + (random() < 0.5 ? '.' : '') : caption);
  }
  return captions;
}

/** A long, narrative-style description (Localized Narratives style, ~40 words). */
export function narrative(random: () => number, shown: readonly Concept[]): string {
  const parts = [`In this image I can see ${withArticle(shown[0].name)}.`];
  const kind = hypernymOf(shown[0], 1);
  if (kind !== shown[0].name) parts.push(`It looks like ${withArticle(kind)} and it is ${pick(random, words.ADJECTIVES)} in color.`);
  shown.slice(1).forEach((c) => parts.push(`${capitalise(pick(random, words.RELATIONS))} it there is ${withArticle(c.name)}.`));
  parts.push(
    `In the background I can see ${pick(random, words.SCENE_PLACES)} and the image is ${pick(random, ['slightly blurred', 'bright', 'a bit dark', 'colorful'])}.`,
  );
  parts.push(`At the bottom of the image there is ${pick(random, ['a shadow', 'some texture', 'a plain surface', 'a pattern'])}.`);
  return parts.join(' ');
}
