/**
 * Shapes shared by the embedded long-tail world (src/world) and the data formats (src/data).
 * The world is deterministic: everything about pair `id` follows from (seed, id).
 */

/** One visual concept, named by a WordNet noun synset. */
export interface Concept {
  /** Position in the catalog (0-based); also the concept's popularity rank on the web (0 = most common). */
  index: number;
  /** Display name: the synset's first lemma, underscores as spaces ("hot dog"). */
  name: string;
  /** WordNet 3.1 synset id, part of speech + offset ("n07697537"). */
  synset: string;
  /** Hypernym names, nearest first, up to "entity" (first path through `@`/`@i` pointers). */
  hypernyms: string[];
  /** Synset ids aligned with `hypernyms`. */
  hypernymSynsets: string[];
  /** One of the 80 COCO categories (the "common" concepts); the rest are the long tail. */
  coco: boolean;
  /** The COCO category name when `coco` ("sports ball", "dining table", …). */
  cocoName?: string;
  /** Shape family: concepts sharing a hypernym share a family, so hypernyms are visible. */
  family: number;
  /** Share of web images showing this concept (Zipf-like over `index`; all concepts sum to 1). */
  webShare: number;
}

/** An axis-aligned box in pixels of the rendered image. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type ImageFormat = 'jpeg' | 'png' | 'gif';

/** One object placed in a scene. */
export interface SceneObject {
  concept: number;
  box: Box;
  /** Degrees, clockwise. */
  rotation: number;
  /**
   * The object's own drawing frame before rotation: centre and size in pixels.
   * `box` is this frame rotated by `rotation`, bounded and clipped to the image.
   * Optional: a renderer without it fits the concept into `box`.
   */
  shape?: { cx: number; cy: number; width: number; height: number };
}

/** Everything needed to render one image, decided from (seed, id). */
export interface Scene {
  width: number;
  height: number;
  format: ImageFormat;
  objects: SceneObject[];
  /** Background parameters (the renderer's own encoding). */
  background: { hue: number; saturation: number; lightness: number; noise: number; pattern: number };
}
