/**
 * A frozen visual backbone: square RGB images in, a small feature map out. Both backbones (the
 * world CNN pre-trained on the world's concept labels, and NSFWJS's bundled ImageNet-derived
 * MobileNetV2) offer this one interface, so which one a run uses is a config string
 * (`BackboneName`), and features are cached under the backbone's `id`.
 */
import type * as TF from '@tensorflow/tfjs';

export type BackboneName = 'world-cnn' | 'mobilenet';
export const BACKBONE_NAMES: readonly BackboneName[] = ['world-cnn', 'mobilenet'];

export interface Backbone {
  readonly name: BackboneName;
  /** Names the weights and every setting that changes the features (cache key). */
  readonly id: string;
  /** Square input side in pixels. */
  readonly inputSize: number;
  /** Channels D of the feature map (the size of every visual vector). */
  readonly featureDim: number;
  /** Side of the feature map `featureMap` returns (8: an 8×8 grid). */
  readonly gridSize: number;
  /**
   * images [B, S, S, 3] (RGB bytes as float32 0–255, S = inputSize) → feature map
   * [B, gridSize, gridSize, D]. Scaled so a global vector has root-mean-square ≈ 1 per dimension.
   */
  featureMap(images: TF.Tensor4D): TF.Tensor4D;
  dispose(): void;
}

export function isBackboneName(name: string): name is BackboneName {
  return (BACKBONE_NAMES as readonly string[]).includes(name);
}
