/**
 * What every captioning model offers the training loop and the decoders: encode the visual (and
 * optional text) inputs once, then score next tokens for any prefix. Tensors are tfjs tensors.
 */
import type * as TF from '@tensorflow/tfjs';


/** Encoder inputs for a batch of B images (N visual positions, K tag tokens, L text tokens). */
export interface EncoderInput {
  /** Visual vectors [B, N, Dv]: the global vector, an 8×8 grid, or global + regions. */
  visual: TF.Tensor3D;
  /** 1 where a visual position holds a vector, 0 for padding [B, N]. */
  visualMask: TF.Tensor2D;
  /** Extra per-position numbers [B, N, G] (regions: 5 geometric numbers; grid: none). */
  geometry?: TF.Tensor3D;
  /** Tag token ids [B, K] (PAD_ID for padding), embedded with the word embeddings. */
  tags?: TF.Tensor2D;
  /** Text token ids given to the encoder [B, L] (masked captions for MLM), PAD_ID for padding. */
  text?: TF.Tensor2D;
}

/** The encoder's output: memory for cross-attention (or an initial state) and its mask. */
export interface Encoded {
  memory: TF.Tensor3D;
  /** [B, S], 1 = attend. */
  mask: TF.Tensor2D;
  /** Model-specific extras (e.g. the LSTM's final state), kept as tensors. */
  state?: TF.Tensor[];
}

export interface CaptionModel {
  readonly kind: 'transformer' | 'lstm';
  readonly vocabSize: number;
  /** Encodes a batch. `training` turns dropout on. */
  encode(input: EncoderInput, training?: boolean): Encoded;
  /**
   * Next-token logits for every prefix position: tokens [B, T] (BOS first) → logits [B, T, V],
   * position t predicting token t+1. Causal: position t sees tokens ≤ t only.
   */
  decode(encoded: Encoded, tokens: TF.Tensor2D, training?: boolean): TF.Tensor3D;
  /** Repeats each batch row `times` times (row b → rows b*times … b*times+times-1), for beam search. */
  tileEncoded(encoded: Encoded, times: number): Encoded;
  /** Trainable variables by stable name (checkpoints save and load these). */
  variables(): Map<string, TF.Variable>;
  dispose(): void;
}
