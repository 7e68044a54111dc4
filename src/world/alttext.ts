/**
 * Web-like alt-text for the world's images, with its ground truth: which concepts it names,
 * where person names are, and whether it describes the image at all. Styles and shares are
 * parameters (defaults below) so the filters of both papers have realistic work to do.
 */
import { Concept } from './types';
import { basicHypernyms, hypernymOf } from './concepts';
import { plural, withArticle } from './nouns';
import { pick, shuffled } from '../util/random';
import * as words from './words';

/** A person's name inside the alt-text: characters [start, end). */
export interface PersonMention {
  start: number;
  end: number;
  name: string;
  /** The occupation CC3M's hypernymisation would put in its place ("actor"). */
  role: string;
}

export type AltTextStyle = 'sentence' | 'person' | 'keywords' | 'hashtags' | 'title' | 'filename' | 'non-english' | 'boilerplate-reject';

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
  /** Pairs whose text describes some other image (the papers measured 77–90% precision). */
  mismatchShare: number;
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
}

export const DEFAULT_ALT_TEXT: AltTextOptions = {
  mismatchShare: 0.15,
  personShare: 0.2,
  keywordShare: 0.08,
  hashtagShare: 0.06,
  titleShare: 0.08,
  filenameShare: 0.03,
  nonEnglishShare: 0.04,
  rejectedBoilerplateShare: 0.02,
  boilerplateShare: 0.12,
  hypernymShare: 0.3,
  capitalisationNoiseShare: 0.1,
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

/**
 * Alt-text for an image showing `shown` concepts. `otherImage` draws the concepts of some other
 * web image, used for the mismatched share.
 */
export function altTextFor(random: () => number, shown: readonly Concept[], otherImage: () => Concept[], options: AltTextOptions = DEFAULT_ALT_TEXT): AltText {
  const describesImage = random() >= options.mismatchShare;
  const subjects = describesImage ? [...shown] : otherImage();
  const names = subjects.map((c) => objectName(random, c, options));
  const mentions = subjects.map((c) => c.index);
  const b = new TextBuilder();
  let style: AltTextStyle = 'sentence';

  const cumulative: [AltTextStyle, number][] = [
    ['person', options.personShare],
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

  switch (style) {
    case 'person': {
      const role = pick(random, words.PERSON_ROLES);
      const name = personName(random);
      if (random() < 0.5) {
        b.add(random() < 0.5 ? `${capitalise(role)} ` : '').person(name, role);
        b.add(` with ${withArticle(names[0])} at ${pick(random, words.EVENTS)}`);
      } else {
        b.add(capitalise(withArticle(adjectivePhrase(random, names[0]))))
          .add(' ')
          .add(pick(random, ['belonging to', 'photographed by', 'held by']))
          .add(' ');
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

/** Clean, human-style reference captions (COCO / nocaps / Flickr style): `count` different ones. */
export function referenceCaptions(random: () => number, shown: readonly Concept[], count: number): string[] {
  const templates: ((names: string[]) => string)[] = [
    (n) =>
      `${withArticle(adjectivePhrase(random, n[0]))}${n[1] ? ` ${pick(random, words.RELATIONS)} ${withArticle(n[1])}` : ''} on ${pick(random, words.SCENE_PLACES)}`,
    (n) => `there is ${withArticle(n[0])}${n[1] ? ` and ${withArticle(n[1])}` : ''} in this picture`,
    (n) => `a close up of ${withArticle(n[0])}${n[1] ? ` near ${withArticle(n[1])}` : ''}`,
    (n) =>
      `a photo of ${withArticle(adjectivePhrase(random, n[0]))}${n.length > 1 ? ` with ${n.length - 1 === 1 ? withArticle(n[1]) : `${n.length - 1} other objects`}` : ''}`,
    (n) => `${withArticle(n[0])} sitting ${pick(random, ['on', 'near', 'beside'])} ${n[1] ? withArticle(n[1]) : pick(random, words.SCENE_PLACES)}`,
    (n) => `an image of ${n.length > 1 ? `${withArticle(n[0])} and ${withArticle(n[1])}` : withArticle(n[0])}`,
  ];
  const captions: string[] = [];
  for (let i = 0; i < count; i++) {
    const order = shuffled(random, shown);
    const names = order.map((c) => (random() < 0.15 ? hypernymOf(c, 1) : c.name));
    const caption = pick(random, templates)(names);
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
