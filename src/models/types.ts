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

/**
 * An incremental decoding state for N = A·width rows (A images, `width` hypotheses each,
 * image-major): every tensor has rows first, so the decoders can keep, drop, repeat or reorder rows
 * (beam search: each new hypothesis takes its parent's state) with one gather each. The first
 * `perImage` tensors hold one row per image (A rows: what every hypothesis of an image shares, e.g.
 * the visual memory's projected keys and values), so they are neither repeated for the beams nor
 * moved when hypotheses are reordered; the others hold one row per hypothesis. `position` is the
 * number of tokens fed so far.
 */
export interface StepState {
  tensors: TF.Tensor[];
  position: number;
  /** How many leading tensors hold one row per image (default 0). */
  perImage?: number;
}

/** What one incremental step returns: next-token logits [N, V] and the state with the token added. */
export interface StepOutput {
  logits: TF.Tensor2D;
  state: StepState;
}

/**
 * The model contract. Required members every model has; optional ones are abilities some models
 * have, and callers test for the member itself (never for a class, a config field or a parameter
 * name):
 *  - `memoryWidth`: the width of the encoder's memory (sharing the encoder with a matching model);
 *  - `config`: the plain-JSON config that rebuilds the model (checkpoints store it);
 *  - `setDropoutStep`: deterministic, resumable dropout (the trainer sets the step before each batch);
 *  - `mocLogits`: a masked-object-classification head (the `moc` objective);
 *  - `startIncremental` + `step`: incremental decoding (both or neither); models without it are
 *    decoded through `decode` on whole prefixes, by design.
 */
export interface CaptionModel {
  readonly kind: 'transformer' | 'lstm';
  readonly vocabSize: number;
  /** Width of `encode`'s memory vectors (the last axis of `Encoded.memory`): needed to share the encoder (IC+VLM). */
  readonly memoryWidth?: number;
  /** The plain-JSON config that rebuilds the model (checkpoints store it as `resolved`). */
  readonly config?: object;
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
  /** Makes dropout masks a function of (seed, step, call order), so resumed runs repeat them. */
  setDropoutStep?(step: number): void;
  /** Masked-object-classification logits [B, S, classes] from the encoder memory (throws when built without the head). */
  mocLogits?(encoded: Encoded): TF.Tensor3D;
  /**
   * Incremental decoding, part 1: a state for the encoder rows (one row per image, no token fed
   * yet). May keep references to `encoded`'s tensors.
   */
  startIncremental?(encoded: Encoded): StepState;
  /**
   * Incremental decoding, part 2: feeds one token per row (`tokens` [N] int32; BOS first) at
   * position `state.position`, `width` rows per image; returns the next-token logits [N, V] (those
   * of `decode`'s last position for the same prefix) and the state with that token added. The
   * caller owns both and disposes the old state's tensors that the new one does not hold.
   */
  step?(state: StepState, tokens: TF.Tensor1D, width: number): StepOutput;
}

/** A CaptionModel with incremental decoding. */
export type IncrementalCaptionModel = CaptionModel & Required<Pick<CaptionModel, 'startIncremental' | 'step'>>;

/**
 * Whether the model decodes incrementally. A model declaring only one of `startIncremental` and
 * `step` is a broken model: an error, not a silent fallback to full-prefix decoding.
 */
export function hasIncremental(model: CaptionModel): model is IncrementalCaptionModel {
  const start = typeof model.startIncremental === 'function';
  const step = typeof model.step === 'function';
  if (start !== step)
    throw new Error(`${model.kind} model: incremental decoding needs both startIncremental and step (it has only ${start ? 'startIncremental' : 'step'})`);
  return start;
}
