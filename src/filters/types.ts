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
}

/** A stage's decision on one pair. */
export type Verdict = { keep: true; caption: string } | { keep: false; reason: string };

export const keep = (caption: string): Verdict => ({ keep: true, caption });
export const reject = (reason: string): Verdict => ({ keep: false, reason });
