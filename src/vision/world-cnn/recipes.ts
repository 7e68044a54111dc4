/**
 * Pre-training recipes and what a run reports.
 *
 * Loss (default recipe): multi-label sigmoid cross-entropy over the 600 concepts (summed over
 * labels, mean over the batch) on the global mean of the map through a linear head, plus an
 * attribute loss: every cell an object covers regresses that object's visual signature (shape
 * family, colours, texture, proportions; 32 numbers) through a second linear head. Options: hypernym
 * labels, a dense per-cell concept loss.
 *
 * Measured (docs/vision.md): at ~120 steps concept labels alone are learnt too little to help (the
 * region probe is no better than the untrained network's); the attribute loss over 600 steps is.
 */

export interface PretrainOptions {
  /** World seed (the pre-training scenes are drawn from this world's concepts and seed). */
  worldSeed: number;
  /** Seed of the initial weights, batch order and flips. */
  seed: number;
  /** Pre-training images (rendered once, held in memory: inputSize² · 3 bytes each). */
  images: number;
  steps: number;
  batchSize: number;
  learningRate: number;
  /** How pre-training scenes draw concepts: uniform over all concepts, or by web share (Zipf). */
  sampler: 'uniform' | 'web';
  /** Held-out images for the reported metrics (0: none). */
  heldOut: number;
  /**
   * Weight of the dense loss: every cell of the 8×8 map is classified too, its labels the objects
   * whose box covers ≥ 30% of the cell (0: image-level labels only).
   */
  denseWeight: number;
  /** Also predict each concept's WordNet hypernyms (as the tagger reports them): denser labels. */
  hypernyms: boolean;
  /**
   * Weight of the attribute loss: every cell an object covers regresses that object's visual
   * signature (shape family, colours, texture, proportions: render.ts signatureVector, 32
   * numbers), like attribute labels beside object labels (0: none).
   */
  attributeWeight: number;
}

/**
 * Pre-training recipes (their cost and region-probe accuracy are measured in docs/vision.md):
 * - `quick` (the default): 120 steps of 32 over 3,000 images, once, then cached. Its region probe
 *   is about the untrained network's: too few steps to learn 600 concepts.
 * - `standard`: 600 steps over 6,000 images; clearly better region features.
 */
export const PRETRAIN_RECIPES = {
  quick: {
    worldSeed: 0,
    seed: 1,
    images: 3000,
    steps: 120,
    batchSize: 32,
    learningRate: 2e-3,
    sampler: 'uniform',
    heldOut: 300,
    denseWeight: 0,
    hypernyms: false,
    attributeWeight: 1,
  },
  standard: {
    worldSeed: 0,
    seed: 1,
    images: 6000,
    steps: 600,
    batchSize: 32,
    learningRate: 2e-3,
    sampler: 'uniform',
    heldOut: 300,
    denseWeight: 0,
    hypernyms: false,
    attributeWeight: 1,
  },
} as const satisfies Record<string, PretrainOptions>;

export type PretrainRecipe = keyof typeof PRETRAIN_RECIPES;

export const DEFAULT_PRETRAIN: PretrainOptions = PRETRAIN_RECIPES.quick;

export interface PretrainMetrics {
  /** Mean loss of the first and the last tenth of the steps. */
  lossStart: number;
  lossEnd: number;
  losses: number[];
  /** Held-out: mean average precision over concepts present, precision of the top-1 label, recall at k = objects shown. */
  heldOutImages: number;
  mAP: number;
  top1: number;
  recallAtK: number;
  renderMs: number;
  trainMs: number;
  backend: string;
}
