/** The CC3M transform's switches and their defaults (the paper's §3 rewrites, each on by default). */
import type { ConceptCatalog } from '../../wordnet/catalog';
import type { HypernymRule } from '../hypernyms';

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
