/**
 * The embedded long-tail world: every image, caption, tag and ground truth of every split is a
 * pure function of (seed, split, id). Nothing is stored; `build.ts` writes it out in the
 * ecosystem's file formats, and `render` produces any image's bytes on demand.
 */
import { AltText, AltTextOptions, DEFAULT_ALT_TEXT, altTextFor, narrative, referenceCaptions } from './alttext';
import { buildConcepts, cocoConceptIndices, longTailConceptIndices } from './concepts';
import { renderScene } from './render';
import { ConceptSampler, SceneOptions, conceptSampler, sceneFor } from './scene';
import { NocapsDomain, REFERENCES_PER_IMAGE, WorldSplit, nocapsDomain, splitNumber } from './splits';
import { DEFAULT_TAGGER, TaggerOptions, Tags, tagsFor } from './tags';
import { Box, Concept, Scene } from './types';
import { parseWorldUrl, worldUrl } from './url';
import { mixSeed, seededRandom } from '../util/random';

/**
 * Generation of the world's generator: bumped whenever the same (seed, split, id) would give a
 * different image or text, so caches keyed by world URLs (built worlds, filtered pools, the world
 * CNN and its features) are rebuilt instead of reused. 2: calibrated alt-text, web-frequency
 * out-of-domain concepts, varied references (docs/world.md, *Calibration*). 3: the papers' proportions
 * (issue #26): split sizes, the CC12M-like pool disjoint from the CC3M-like one, entity-only hypernymisation.
 */
export const WORLD_GENERATION = 3;

export interface WorldOptions {
  seed: number;
  /** Zipf exponent of concept popularity on the web (default 1.0). */
  zipfExponent?: number;
  altText?: Partial<AltTextOptions>;
  tagger?: Partial<TaggerOptions>;
  /** Scene options of the web pool (formats, sizes; defaults: scene.ts). */
  webScenes?: SceneOptions;
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
  readonly concepts: Concept[];
  private readonly altText: AltTextOptions;
  private readonly tagger: TaggerOptions;
  private readonly webScenes: SceneOptions;
  private readonly all: ConceptSampler;
  private readonly common: ConceptSampler;
  private readonly tail: ConceptSampler;

  constructor(options: WorldOptions) {
    this.seed = options.seed;
    this.concepts = buildConcepts({ zipfExponent: options.zipfExponent });
    this.altText = { ...DEFAULT_ALT_TEXT, ...options.altText };
    this.tagger = { ...DEFAULT_TAGGER, ...options.tagger };
    this.webScenes = options.webScenes ?? {};
    this.all = conceptSampler(this.concepts);
    this.common = conceptSampler(this.concepts, cocoConceptIndices(this.concepts));
    // nocaps's novel objects are Open Images classes COCO lacks: everyday web objects, so they are
    // drawn by web frequency over the tail (CC12M Table 9: the web covers them), not uniformly
    this.tail = conceptSampler(this.concepts, longTailConceptIndices(this.concepts));
  }

  /** The scene of image `id` of `split` (for nocaps, its domain decides the concepts). */
  scene(split: WorldSplit, id: number): Scene {
    const seed = mixSeed(this.seed, splitNumber(split));
    switch (split) {
      case 'web':
      case 'flickr':
      case 'narratives':
        return sceneFor(seed, id, this.concepts, split === 'web' ? { ...this.webScenes, sampler: this.all } : { ...CLEAN_SCENES, sampler: this.all });
      case 'coco-train':
      case 'coco-val':
        return sceneFor(seed, id, this.concepts, { ...CLEAN_SCENES, sampler: this.common });
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
    const shown = scene.objects.map((o) => this.concepts[o.concept]);
    const otherImage = () => this.scene('web', Math.floor(random() * 2 ** 31) + 2 ** 31).objects.map((o) => this.concepts[o.concept]);
    const text = altTextFor(random, shown, otherImage, this.altText);
    const tags: Tags = tagsFor(random, shown, () => this.concepts[this.all(random)], this.tagger);
    return {
      id,
      url: worldUrl({ seed: this.seed, split: 'web', id }, scene.format),
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
    const references = split === 'narratives' ? [narrative(random, shown)] : referenceCaptions(random, shown, REFERENCES_PER_IMAGE[split] ?? 5);
    const image: CaptionedWorldImage = { id, url: worldUrl({ seed: this.seed, split, id }, scene.format), references, truth: this.truthOf(scene) };
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
    return this.render(ref.split, ref.id);
  }
}
