/** What the trainer and the decoders need from the visual side: encoder inputs for image keys. */
import type { EncoderInput } from '../models/types';

export interface VisualBatchOptions {
  /** Tag words → vocabulary ids (tags are text inputs of the CC12M model). */
  wordId: (word: string) => number;
  training: boolean;
  /** Seeded randomness for augmentation (region permutation) in training. */
  random?: () => number;
}

export interface VisualProvider {
  /** Identifies backbone, feature mode and options (part of run ids). */
  readonly id: string;
  /** Plain JSON that rebuilds this provider (written to run.json, so `cckit caption` can rebuild it). */
  readonly spec?: unknown;
  readonly visualDim: number;
  readonly geometryDim: number;
  /** Object classes of region labels (MOC), 0 when there are none. */
  readonly mocClasses: number;
  /** Makes sure features of these image keys exist (computes and caches the missing ones). */
  prepare(keys: readonly string[]): Promise<void>;
  encoderInput(keys: readonly string[], options: VisualBatchOptions): EncoderInput;
  /** Per key, the object class of each visual position (-1: not a labelled region). */
  regionLabels?(keys: readonly string[]): number[][];
}
