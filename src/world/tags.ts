/**
 * A simulated image tagger, standing for the Cloud Vision labels that CC3M's image–text filter
 * matches caption tokens against. Rates are parameters; defaults below.
 *
 * Per image: each shown concept's own name is reported unless missed (`missRate`); its nearest
 * hypernyms follow, each with `hypernymRate`, skipping WordNet's most abstract nodes; false
 * positives (names of concepts not shown, `falsePositiveMean` on average) and generic photo labels
 * are mixed in; the list is padded with generic labels to `minTags` and cut to `maxTags`.
 */
import { Concept } from './types';
import { pick, shuffled } from '../util/random';
import { WORDNET_TOP_NODES } from '../wordnet/basic-level';

export interface TaggerOptions {
  missRate: number;
  hypernymRate: number;
  hypernymDepth: number;
  falsePositiveMean: number;
  minTags: number;
  maxTags: number;
}

export const DEFAULT_TAGGER: TaggerOptions = {
  missRate: 0.1,
  hypernymRate: 0.7,
  hypernymDepth: 4,
  falsePositiveMean: 1.5,
  minTags: 5,
  maxTags: 20,
};

/** Labels a tagger reports on almost any photo; they match no concept. */
export const GENERIC_LABELS = [
  'photograph',
  'image',
  'design',
  'pattern',
  'art',
  'illustration',
  'graphics',
  'colorfulness',
  'rectangle',
  'circle',
  'font',
  'still life photography',
];

export interface Tags {
  labels: string[];
  /** Shown concepts whose own name the tagger missed. */
  missed: number[];
  /** Labels naming concepts that are not in the image. */
  falsePositives: string[];
}

export function tagsFor(random: () => number, shown: readonly Concept[], randomConcept: () => Concept, options: TaggerOptions = DEFAULT_TAGGER): Tags {
  const labels = new Set<string>();
  const missed: number[] = [];
  for (const concept of shown) {
    if (random() < options.missRate) missed.push(concept.index);
    else labels.add(concept.name);
    for (const hypernym of concept.hypernyms.slice(0, options.hypernymDepth)) {
      if (!WORDNET_TOP_NODES.has(hypernym) && random() < options.hypernymRate) labels.add(hypernym);
    }
  }
  const shownNames = new Set(shown.map((c) => c.name));
  const falsePositives: string[] = [];
  // Poisson draw by inversion (small means)
  let count = 0;
  for (let p = Math.exp(-options.falsePositiveMean), cumulative = p, u = random(); u > cumulative; count++) {
    p *= options.falsePositiveMean / (count + 1);
    cumulative += p;
  }
  for (let i = 0; i < count; i++) {
    const other = randomConcept();
    if (!shownNames.has(other.name) && !labels.has(other.name)) {
      labels.add(other.name);
      falsePositives.push(other.name);
    }
  }
  if (random() < 0.5) labels.add(pick(random, GENERIC_LABELS));
  for (const label of shuffled(random, GENERIC_LABELS)) {
    if (labels.size >= options.minTags) break;
    labels.add(label);
  }
  const reported = [...labels].slice(0, options.maxTags);
  const kept = new Set(reported);
  return { labels: reported, missed, falsePositives: falsePositives.filter((label) => kept.has(label)) };
}
