/**
 * The concept catalog the CC3M hypernymiser (src/filters/transform.ts, rule 1) consults under its
 * `hypernymRule: 'every-noun'` (the 'entities' default consults none: src/filters/hypernyms.ts), defined
 * here at the bottom so the filters and the world both reach it by importing down: which
 * nouns are concepts, whether a concept is "common" (kept under `catalogRule: 'long-tail'`), and
 * the hypernym that replaces it. The catalog is injected; this module knows two kinds:
 *
 *  - `wordnetCatalog()` (here, the default for real data): WordNet 3.1 nouns (src/wordnet);
 *  - the embedded world's catalog of ~600 concepts, `worldCatalog()` in src/world/catalog.ts,
 *    which the world's callers (Table 3, `cckit filter --catalog world`) pass in. src/filters
 *    never imports src/world.
 *
 * ## Which hypernym (CC3M §3)
 * The paper maps Knowledge-Graph entities to "their hypernym" without saying how far up the
 * hierarchy that is; its examples stop at everyday words ("actor", "fruit", not "organism").
 * cckit reads that as the nearest *basic-level* hypernym: walk up the first hypernym path and
 * take each hypernym's head word ("edible fruit" → "fruit") when it is common (≥ 2 SemCor tags
 * over its noun senses), not too abstract and not the noun itself (src/wordnet/basic-level.ts). `level` picks
 * the k-th such word (default 1: the nearest; clamped to the most general one there is). E.g.
 * WordNet: beagle → 1 "hound", 2 "dog", 3 "mammal", 4 "animal"; dachshund → 1 "dog".
 */
import { wordnet } from './index';
import { BASIC_MIN_TAGS, basicLevelWords } from './basic-level';
import { lemmaTagCount } from './sense-tags';

/** What the catalog says about one concept. */
export interface CatalogConcept {
  /**
   * A common concept: kept under `catalogRule: 'long-tail'`, hypernymised only under 'all'
   * (the world: its 80 COCO concepts; WordNet: a noun with ≥ `commonMinTags` SemCor tags).
   */
  readonly common: boolean;
  /** The hypernym that replaces it (singular, lower case). */
  readonly hypernym: string;
}

export interface ConceptCatalog {
  /** "world" or "wordnet" (reports, tests). */
  readonly name: string;
  /** Longest concept name in words; the hypernymiser tries runs of up to min(this, 3) tokens. */
  readonly longestName: number;
  /** The concept called `name` (lower case, single spaces, last word in its singular form), or undefined. */
  concept(name: string): CatalogConcept | undefined;
}

export interface WordnetCatalogOptions {
  /** Which basic-level hypernym replaces a concept (1: the nearest; see the module comment, CC3M §3). */
  level: number;
  /** Nouns with at least this many SemCor tags are common (kept under 'long-tail'): "dog" (42), "sofa" (5), "terrier" (2). */
  commonMinTags: number;
  /** WordNet lexicographer files whose nouns are concepts: noun.animal 5, noun.artifact 6, noun.food 13, noun.plant 20. */
  lexFiles: readonly number[];
}

export const DEFAULT_WORDNET_CATALOG: WordnetCatalogOptions = { level: 1, commonMinTags: BASIC_MIN_TAGS, lexFiles: [5, 6, 13, 20] };

const wordnetCatalogs = new Map<string, ConceptCatalog>();

/**
 * The WordNet 3.1 catalog: a concept is a noun lemma (up to three words) whose first sense is a
 * concrete thing (`lexFiles`), not an instance (names and places are the entity rules' business),
 * and that has a basic-level hypernym. One shared catalog per option set.
 */
export function wordnetCatalog(options: Partial<WordnetCatalogOptions> = {}): ConceptCatalog {
  const o = { ...DEFAULT_WORDNET_CATALOG, ...options };
  const key = `${o.level}:${o.commonMinTags}:${o.lexFiles.join(',')}`;
  let catalog = wordnetCatalogs.get(key);
  if (catalog) return catalog;
  const lexFiles = new Set(o.lexFiles);
  const memo = new Map<string, CatalogConcept | null>();
  const lookup = (name: string): CatalogConcept | null => {
    const wn = wordnet();
    const lemma = name.replace(/ /g, '_');
    const first = wn.synsetsOfLemma(lemma, 'n')[0];
    if (first === undefined) return null;
    const rec = wn.synset(first);
    if (!lexFiles.has(rec.lexFileNum) || rec.pointers.some((p) => p.symbol === '@i')) return null;
    const chain: string[] = [];
    const seen = new Set<string>([first]);
    for (let cur = wn.hypernyms(first)[0]; cur !== undefined && !seen.has(cur); cur = wn.hypernyms(cur)[0]) {
      seen.add(cur);
      chain.push(wn.synset(cur).lemmas[0]!.replace(/_/g, ' '));
    }
    const basic = basicLevelWords(name, chain);
    if (basic.length === 0) return null;
    return { common: lemmaTagCount(lemma) >= o.commonMinTags, hypernym: basic[Math.min(Math.max(o.level, 1), basic.length) - 1]! };
  };
  catalog = {
    name: 'wordnet',
    longestName: 3,
    concept(name: string): CatalogConcept | undefined {
      let c = memo.get(name);
      if (c === undefined) memo.set(name, (c = lookup(name)));
      return c ?? undefined;
    },
  };
  wordnetCatalogs.set(key, catalog);
  return catalog;
}
