/**
 * The optional incremental decoding API. `CaptionModel.decode` scores every prefix position from
 * scratch, so step t of a search costs O(t) positions per row (plus, for the Transformer, the
 * cross-attention keys and values of the whole visual memory, and logits at every position). A model
 * that can also score just the newest token, reusing what it computed for the earlier ones (a
 * self-attention key/value cache, cross-attention keys/values projected once), offers a
 * `StepDecoder`; greedy and beam search use it when there is one (`DecodeOptions.stepDecoder`, or
 * the model's `stepDecoder()`), and give the same captions either way.
 */
import type * as TF from '@tensorflow/tfjs';
import type { CaptionModel, Encoded } from '../models/types';

/**
 * A decoding state for N = A·width rows (A images, `width` hypotheses each, image-major): every
 * tensor has rows first, so the decoders can keep, drop, repeat or reorder rows (beam search: each
 * new hypothesis takes its parent's state) with one gather each. The first `perImage` tensors hold
 * one row per image (A rows: what every hypothesis of an image shares, e.g. the visual memory's
 * projected keys and values), so they are neither repeated for the beams nor moved when hypotheses
 * are reordered; the others hold one row per hypothesis. `position` is the number of tokens fed so far.
 */
export interface StepState {
  tensors: TF.Tensor[];
  position: number;
  /** How many leading tensors hold one row per image (default 0). */
  perImage?: number;
}

export interface StepDecoder {
  /** A state for the encoder rows (no token fed yet). May keep references to `encoded`'s tensors. */
  start(encoded: Encoded): StepState;
  /**
   * Feeds one token per row (`tokens` [N] int32; BOS first) at position `state.position`, `width`
   * rows per image; returns the next-token logits [N, V] (equal to `decode`'s last position for the
   * same prefix) and the state with that token added. The decoders own both: they dispose the old
   * state's tensors that the new one does not hold.
   */
  step(state: StepState, tokens: TF.Tensor1D, width: number): { logits: TF.Tensor2D; state: StepState };
}

/** A CaptionModel that offers incremental decoding itself. */
export interface StepwiseCaptionModel extends CaptionModel {
  stepDecoder(): StepDecoder;
}

export function hasStepDecoder(model: CaptionModel): model is StepwiseCaptionModel {
  return typeof (model as Partial<StepwiseCaptionModel>).stepDecoder === 'function';
}
