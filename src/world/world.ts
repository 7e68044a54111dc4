/**
 * The embedded long-tail world: every image, caption, tag and ground truth of every split is a
 * pure function of (seed, split, id). Nothing is stored; `build.ts` writes it out in the
 * ecosystem's file formats, and `render` produces any image's bytes on demand.
 */
import {
  AltText,
  AltTextOptions,
  AltTextPlan,
  DEFAULT_ALT_TEXT,
  DEFAULT_REFERENCES,
  ReferenceOptions,
  altTextFor,
  altTextPlan,
  narrative,
  referenceCaptions,
} from './alttext';
import { COCO_SCENE_CONTEXTS, cocoCategoryByName } from './coco-categories';
import { buildConcepts, cocoConceptIndices, longTailConceptIndices } from './concepts';
import { renderScene } from './render';
import { ConceptSampler, DEFAULT_SCENE_OPTIONS, SceneOptions, conceptSampler, sceneFor } from './scene';
import { NocapsDomain, REFERENCES_PER_IMAGE, WorldSplit, nocapsDomain, splitNumber } from './splits';
import { DEFAULT_TAGGER, TaggerOptions, Tags, tagsFor } from './tags';
import { Box, Concept, Scene } from './types';
import { nonDefaultZipf, parseWorldUrl, WorldImageRef, worldUrl } from './url';
import { mixSeed, seededRandom } from '../util/random';

/**
 * Generation of the world's generator: bumped whenever the same (seed, split, id) would give a
 * different image or text, so caches keyed by world URLs (built worlds, filtered pools, the world
 * CNN and its features) are rebuilt instead of reused. 2: calibrated alt-text, web-frequency
 * out-of-domain concepts, varied references (docs/world.md, *Calibration*). 3: the papers' proportions
 * (issue #26): split sizes, the CC12M-like pool disjoint from the CC3M-like one, entity-only hypernymisation.
 * 4: people named as a picture's subject are in it, COCO-like scenes with COCO's objects per image and
 * co-occurrence and with the non-COCO objects COCO captions name (docs/world.md, *Generation 4*).
 */
export const WORLD_GENERATION = 4;

/**
 * How COCO-like scenes are drawn (COCO-like train and val). Values and sources in docs/world.md
 * (*Generation 4*); `cckit world check` measures them (`coco-objects-per-image`).
 */
export interface CocoSceneOptions {
  /**
   * Relative weights of 1, 2, 3, … objects per image, before repeats are merged. Calibrated on COCO's 3.5
   * categories per image with about 10% single-category images (Lin et al. 2014, Sec. 5), counting COCO categories
   * only as COCO does: with the non-COCO objects (`beyondShare`) an image shows about 4.5 objects.
   */
  objectCountWeights: readonly number[];
  /** Share of an image's further objects drawn from its first object's scene context (COCO_SCENE_CONTEXTS). */
  contextShare: number;
  /**
   * Share of an image's further objects that are not COCO categories, drawn by web share from the
   * `beyondCategories` most common non-COCO concepts: COCO captions name things outside its 80 categories.
   */
  beyondShare: number;
  /**
   * How many non-COCO concepts COCO-like images can show. nocaps (Agrawal et al. 2019, abstract): of Open
   * Images' 600 classes, nearly 400 seen in its test images have no or very few COCO training captions; the
   * world's 600 concepts (80 COCO) keep the 520 − 400 = 120 most common non-COCO ones for COCO-like scenes.
   */
  beyondCategories: number;
}

export const DEFAULT_COCO_SCENES: CocoSceneOptions = {
  objectCountWeights: [0.05, 0.1, 0.15, 0.2, 0.2, 0.15, 0.1, 0.05],
  contextShare: 0.6,
  beyondShare: 0.25,
  beyondCategories: 120,
};

export interface WorldOptions {
  seed: number;
  /** Zipf exponent of concept popularity on the web (default 1.0). */
  zipfExponent?: number;
  altText?: Partial<AltTextOptions>;
  tagger?: Partial<TaggerOptions>;
  /** Scene options of the web pool (formats, sizes; defaults: scene.ts). */
  webScenes?: SceneOptions;
  /** How people write the reference captions (defaults: DEFAULT_REFERENCES in alttext.ts). */
  references?: Partial<ReferenceOptions>;
  /** How COCO-like scenes are drawn (defaults: DEFAULT_COCO_SCENES). */
  cocoScenes?: Partial<CocoSceneOptions>;
}

/** Ground truth of one image: what is in it, where. */
export interface ImageTruth {
  concepts: string[];
  boxes: Box[];
  width: number;
  height: number;
  format: Scene['format'];
}

/** One web candidate pair: an image URL, its alt-text, its vision tags, and the truth about both. */
export interface WebPair {
  id: number;
  url: string;
  caption: string;
  tags: string[];
  truth: ImageTruth & {
    style: AltText['style'];
    describesImage: boolean;
    /** Concepts the text names. */
    mentions: string[];
    persons: AltText['persons'];
    missedTags: string[];
    falsePositiveTags: string[];
  };
}

/** One image of a captioned split (COCO, nocaps, Flickr, narratives). */
export interface CaptionedWorldImage {
  id: number;
  url: string;
  references: string[];
  domain?: NocapsDomain;
  truth: ImageTruth;
}

/** Clean datasets: JPEG, ordinary sizes, a little smaller for faster rendering. */
const CLEAN_SCENES: SceneOptions = { pngShare: 0, gifShare: 0, undersizedShare: 0, extremeAspectShare: 0, wideAspectShare: 0, maxShortSide: 520 };

export class World {
  readonly seed: number;
  /** The Zipf exponent where it is not the default 1 (it changes the scenes, so the world's URLs carry it). */
  readonly zipf: number | undefined;
  readonly concepts: Concept[];
  private readonly altText: AltTextOptions;
  private readonly tagger: TaggerOptions;
  private readonly webScenes: SceneOptions;
  private readonly all: ConceptSampler;
  private readonly common: ConceptSampler;
  private readonly tail: ConceptSampler;
  private readonly cocoScenes: CocoSceneOptions;
  private readonly person: number;
  /** Per COCO concept, the samplers of the scene contexts it belongs to (none for person: its images draw from all of COCO). */
  private readonly contexts = new Map<number, ConceptSampler[]>();
  private readonly beyond: ConceptSampler;
  /** Concepts COCO-like images can show: COCO's and the most common others (the rest are novel, unnamed by COCO). */
  private readonly familiar: ReadonlySet<number>;
  private readonly references: ReferenceOptions;

  constructor(options: WorldOptions) {
    this.seed = options.seed;
    this.zipf = nonDefaultZipf(options.zipfExponent);
    this.concepts = buildConcepts({ zipfExponent: options.zipfExponent });
    this.altText = { ...DEFAULT_ALT_TEXT, ...options.altText };
    this.tagger = { ...DEFAULT_TAGGER, ...options.tagger };
    this.webScenes = options.webScenes ?? {};
    this.all = conceptSampler(this.concepts);
    this.common = conceptSampler(this.concepts, cocoConceptIndices(this.concepts));
    // nocaps's novel objects are Open Images classes COCO lacks: everyday web objects, so they are
    // drawn by web frequency over the tail (CC12M Table 9: the web covers them), not uniformly
    this.tail = conceptSampler(this.concepts, longTailConceptIndices(this.concepts));
    this.cocoScenes = { ...DEFAULT_COCO_SCENES, ...options.cocoScenes };
    const person = this.concepts.find((c) => c.cocoName === 'person');
    if (!person) throw new Error('world: the catalog has no person concept');
    this.person = person.index;
    const supercategory = (c: Concept) => (c.cocoName === undefined ? undefined : cocoCategoryByName(c.cocoName)?.supercategory);
    for (const groups of Object.values(COCO_SCENE_CONTEXTS)) {
      const members = this.concepts.filter((c) => c.coco && groups.includes(supercategory(c) ?? '')).map((c) => c.index);
      const sampler = conceptSampler(this.concepts, members);
      for (const index of members) this.contexts.set(index, [...(this.contexts.get(index) ?? []), sampler]);
    }
    // the catalog is sorted by web popularity, so the first non-COCO concepts are the most common
    const beyond = longTailConceptIndices(this.concepts).slice(0, this.cocoScenes.beyondCategories);
    this.beyond = conceptSampler(this.concepts, beyond);
    this.familiar = new Set([...cocoConceptIndices(this.concepts), ...beyond]);
    this.references = { ...DEFAULT_REFERENCES, ...options.references };
  }

  /** A COCO-like scene's sampler: the first object by web share over COCO, the others from its context, beyond COCO, or anywhere in COCO. */
  private cocoSampler(): ConceptSampler {
    const o = this.cocoScenes;
    let context: ConceptSampler | undefined;
    return (random) => {
      if (context === undefined) {
        const first = this.common(random);
        const options = this.contexts.get(first);
        context = options && options.length > 0 ? options[Math.floor(random() * options.length)]! : this.common;
        return first;
      }
      const u = random();
      return u < o.beyondShare ? this.beyond(random) : u < o.beyondShare + o.contextShare ? context(random) : this.common(random);
    };
  }

  /** What the alt-text of web image `id` will be (drawn first from the text's stream: the scene depends on it). */
  private webTextPlan(id: number): AltTextPlan {
    return altTextPlan(this.textRandom('web', id), this.altText);
  }

  /** The scene of image `id` of `split` (for nocaps, its domain decides the concepts). */
  scene(split: WorldSplit, id: number): Scene {
    const seed = mixSeed(this.seed, splitNumber(split));
    switch (split) {
      case 'web': {
        if (!this.webTextPlan(id).personShown) return sceneFor(seed, id, this.concepts, { ...this.webScenes, sampler: this.all });
        // the text names the person it shows: the person first, then as many other objects as any web image has
        let first = true;
        const personFirst: ConceptSampler = (random) => (first ? ((first = false), this.person) : this.all(random));
        const weights = [0, ...(this.webScenes.objectCountWeights ?? DEFAULT_SCENE_OPTIONS.objectCountWeights)];
        return sceneFor(seed, id, this.concepts, { ...this.webScenes, sampler: personFirst, objectCountWeights: weights });
      }
      case 'flickr':
      case 'narratives':
        return sceneFor(seed, id, this.concepts, { ...CLEAN_SCENES, sampler: this.all });
      case 'coco-train':
      case 'coco-val':
        return sceneFor(seed, id, this.concepts, { ...CLEAN_SCENES, sampler: this.cocoSampler(), objectCountWeights: this.cocoScenes.objectCountWeights });
      case 'nocaps-val':
      case 'nocaps-test': {
        const domain = nocapsDomain(this.seed, split, id);
        if (domain === 'in') return sceneFor(seed, id, this.concepts, { ...CLEAN_SCENES, sampler: this.common });
        if (domain === 'out') return sceneFor(seed, id, this.concepts, { ...CLEAN_SCENES, sampler: this.tail });
        // near: the first object common, the second from the tail, any more from either
        let draws = 0;
        const near: ConceptSampler = (random) => {
          const n = draws++;
          return n === 0 ? this.common(random) : n === 1 ? this.tail(random) : random() < 0.5 ? this.common(random) : this.tail(random);
        };
        return sceneFor(seed, id, this.concepts, { ...CLEAN_SCENES, sampler: near, objectCountWeights: [0, 0.5, 0.3, 0.2] });
      }
    }
  }

  private textRandom(split: WorldSplit, id: number): () => number {
    return seededRandom(mixSeed(this.seed, splitNumber(split), id, 0x7e47));
  }

  private truthOf(scene: Scene): ImageTruth {
    return {
      concepts: scene.objects.map((o) => this.concepts[o.concept].name),
      boxes: scene.objects.map((o) => o.box),
      width: scene.width,
      height: scene.height,
      format: scene.format,
    };
  }

  webPair(id: number): WebPair {
    const scene = this.scene('web', id);
    const random = this.textRandom('web', id);
    const plan = altTextPlan(random, this.altText);
    const shown = scene.objects.map((o) => this.concepts[o.concept]);
    const otherImage = () => this.scene('web', Math.floor(random() * 2 ** 31) + 2 ** 31).objects.map((o) => this.concepts[o.concept]);
    const text = altTextFor(random, plan, shown, otherImage, this.altText);
    const tags: Tags = tagsFor(random, shown, () => this.concepts[this.all(random)], this.tagger);
    return {
      id,
      url: worldUrl(this.ref('web', id), scene.format),
      caption: text.text,
      tags: tags.labels,
      truth: {
        ...this.truthOf(scene),
        style: text.style,
        describesImage: text.describesImage,
        mentions: text.mentions.map((c) => this.concepts[c].name),
        persons: text.persons,
        missedTags: tags.missed.map((c) => this.concepts[c].name),
        falsePositiveTags: tags.falsePositives,
      },
    };
  }

  captionedImage(split: Exclude<WorldSplit, 'web'>, id: number): CaptionedWorldImage {
    const scene = this.scene(split, id);
    const random = this.textRandom(split, id);
    const shown = scene.objects.map((o) => this.concepts[o.concept]);
    // people mention the larger objects first
    const salient = scene.objects
      .map((o, k) => ({ concept: this.concepts[o.concept]!, area: o.box.width * o.box.height, k }))
      .sort((a, b) => b.area - a.area || a.k - b.k)
      .map((o) => o.concept);
    const unfamiliar = (c: Concept) => !this.familiar.has(c.index);
    const references =
      split === 'narratives' ? [narrative(random, shown)] : referenceCaptions(random, salient, REFERENCES_PER_IMAGE[split] ?? 5, this.references, unfamiliar);
    const image: CaptionedWorldImage = { id, url: worldUrl(this.ref(split, id), scene.format), references, truth: this.truthOf(scene) };
    if (split === 'nocaps-val' || split === 'nocaps-test') image.domain = nocapsDomain(this.seed, split, id);
    return image;
  }

  /** The image's bytes (JPEG, PNG or GIF as its scene says). */
  render(split: WorldSplit, id: number): Promise<Buffer> {
    return renderScene(this.scene(split, id), this.concepts);
  }

  /** Renders a `world://SEED/SPLIT/ID.EXT` URL of this world. */
  renderUrl(url: string): Promise<Buffer> {
    const ref = parseWorldUrl(url);
    if (ref.seed !== this.seed) throw new Error(`world URL "${url}" has seed ${ref.seed}, this world has seed ${this.seed}`);
    if (ref.zipf !== this.zipf) throw new Error(`world URL "${url}" has Zipf exponent ${ref.zipf ?? 1}, this world has ${this.zipf ?? 1}`);
    return this.render(ref.split, ref.id);
  }

  /** What names one of this world's images in a URL. */
  ref(split: WorldSplit, id: number): WorldImageRef {
    return this.zipf === undefined ? { seed: this.seed, split, id } : { seed: this.seed, split, id, zipf: this.zipf };
  }
}
