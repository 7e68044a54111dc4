/**
 * Incremental decoding. `CaptionModel.decode` scores every prefix position from scratch, so step t
 * of a search costs O(t) positions per row (plus, for the Transformer, the cross-attention keys and
 * values of the whole visual memory, and logits at every position). A model that can also score
 * just the newest token, reusing what it computed for the earlier ones (a self-attention key/value
 * cache, cross-attention keys/values projected once), declares it on its interface
 * (`CaptionModel.startIncremental` and `step`: the Transformer captioner does); greedy and beam
 * search use it then, and give the same captions either way. A model without it (the LSTM, test
 * doubles) is decoded through `decode` on whole prefixes, by design. `DecodeOptions.stepDecoder`
 * overrides the choice: a StepDecoder of the caller's, or false for whole prefixes.
 */
import type * as TF from '@tensorflow/tfjs';
import { CaptionModel, Encoded, hasIncremental, StepOutput, StepState } from '../models/types';

export type { StepOutput, StepState } from '../models/types';

/** Incremental decoding as a pair of functions (what the decoders call; see CaptionModel.startIncremental / step). */
export interface StepDecoder {
  /** A state for the encoder rows (no token fed yet). May keep references to `encoded`'s tensors. */
  start(encoded: Encoded): StepState;
  /**
   * Feeds one token per row (`tokens` [N] int32; BOS first) at position `state.position`, `width`
   * rows per image; returns the next-token logits [N, V] (equal to `decode`'s last position for the
   * same prefix) and the state with that token added. The decoders own both: they dispose the old
   * state's tensors that the new one does not hold.
   */
  step(state: StepState, tokens: TF.Tensor1D, width: number): StepOutput;
}

/** The model's own incremental decoding as a StepDecoder; an error for a model without it. */
export function incrementalDecoder(model: CaptionModel): StepDecoder {
  if (!hasIncremental(model))
    throw new Error(`the ${model.kind} model has no incremental decoding (CaptionModel.startIncremental / step); decode it with stepDecoder: false`);
  return {
    start: (encoded) => model.startIncremental(encoded),
    step: (state, tokens, width) => model.step(state, tokens, width),
  };
}
