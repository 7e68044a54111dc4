/**
 * Shapes shared by the CC3M / CC12M filtering pipeline's stages (src/filters). Each stage
 * either keeps a pair (possibly with a transformed caption) or rejects it with a reason; the
 * pipeline counts both, so rows in = kept + rejected at every stage.
 */

/** One candidate image–text pair as it flows through the pipeline. */
export interface CandidatePair {
  /** Stable id: the input's line number or shard key. */
  id: string;
  url: string;
  caption: string;
  /** Vision labels of the image (world: simulated tagger; real data: a tags column or detector). */
  tags?: string[];
  /** Image bytes, when the stage needs them (image filter). */
  image?: Buffer;
  /**
   * The size of the image on the web, when the input records it (a shard's `KEY.json`
   * `original_width` / `original_height`): the image stage judges this size rather than that of
   * `image`, which may be a resized copy (`cckit download --resize-mode border --image-size 256`).
   */
  originalSize?: { width: number; height: number };
}

/**
 * A stage's decision on one pair. A rejection may say what the rule measured (`detail`: the rare
 * words, the value against its threshold, the tags compared), for rejects.jsonl; the reason alone
 * is the verdict.
 */
export type Verdict = { keep: true; caption: string } | { keep: false; reason: string; detail?: string };

export const keep = (caption: string): Verdict => ({ keep: true, caption });
export const reject = (reason: string, detail?: string): Verdict => (detail === undefined ? { keep: false, reason } : { keep: false, reason, detail });
