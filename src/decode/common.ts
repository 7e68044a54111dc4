/**
 * What greedy and beam search share: options and results, the GNMT length penalty, the encoder
 * call (its tensors cloned so the decoders own them), the per-step token tensor and next-token
 * log-probabilities, and row compaction (dropping finished images from the decode batch).
 */
import type * as TF from '@tensorflow/tfjs';
import { loadTf } from '../tf/backend';
import { CaptionModel, Encoded, EncoderInput } from '../models/types';
import { BOS_ID, EOS_ID, MASK_ID, PAD_ID } from '../text/tokens';
import type { StepDecoder } from './incremental';

export interface DecodeOptions {
  /** Most caption tokens (EOS not counted); a hypothesis still open after maxLen steps ends there. */
  maxLen: number;
  /** Fewest caption tokens before EOS may be chosen (default 0). */
  minLen?: number;
  /**
   * Token ids never generated (default PAD, BOS, MASK: they are never caption words). EOS may not
   * be banned. UNK stays allowed, as in coco-caption-era captioners.
   */
  bannedTokens?: readonly number[];
  /**
   * Incremental decoding (see ./incremental): a StepDecoder to use, or false for the full-prefix
   * `decode` path. Default: the model's own incremental decoding (`CaptionModel.startIncremental` /
   * `step`) when it declares one, else the full-prefix path.
   */
  stepDecoder?: StepDecoder | false;
}

export interface BeamOptions extends DecodeOptions {
  /** Hypotheses kept per image (default 5). */
  beamSize: number;
  /** GNMT length-penalty exponent α (default 0.6; 0 ranks by raw log-probability). */
  alpha: number;
  /** Finished hypotheses returned per image, best first (default 1: only the best in `tokens`). */
  nBest?: number;
}

export interface Hypothesis {
  /** Caption token ids, without BOS and EOS. */
  tokens: number[];
  /** Sum of the tokens' log-probabilities (EOS's included when the caption ended with it). */
  logProb: number;
  /** The ranking score: logProb / lengthPenalty(length) for beam search, logProb for greedy. */
  score: number;
  /** Whether the caption ended with EOS (false: cut at maxLen). */
  ended: boolean;
}

export interface DecodeResult {
  /** Per image: the best caption's token ids (no BOS, EOS or PAD). */
  tokens: number[][];
  /** Per image: the best caption's score (see Hypothesis.score). */
  scores: number[];
  /** Per image: the best caption's log-probability. */
  logProbs: number[];
  /** Per image, with nBest > 1: the nBest best finished hypotheses, best first. */
  nBest?: Hypothesis[][];
  /** Decoder calls made, and the rows they decoded in all (for the cost figures in bench/decode.ts). */
  steps: number;
  rowsDecoded: number;
}

export const DEFAULT_BANNED: readonly number[] = [PAD_ID, BOS_ID, MASK_ID];

/**
 * GNMT's length penalty (Wu et al. 2016, eq. 14): lp(len) = ((5 + len) / 6)^α. The length is the
 * number of decoded steps: caption tokens plus one when the caption ended with EOS (as in
 * tensor2tensor's beam search, the GNMT authors' code).
 */
export function lengthPenalty(length: number, alpha: number): number {
  return Math.pow((5 + length) / 6, alpha);
}

/** The normalised score beam search ranks finished hypotheses by. */
export function normalisedScore(logProb: number, length: number, alpha: number): number {
  return logProb / lengthPenalty(length, alpha);
}

export function checkDecodeOptions(options: DecodeOptions): void {
  if (!Number.isInteger(options.maxLen) || options.maxLen < 1) throw new Error(`maxLen must be a positive integer, got ${options.maxLen}`);
  const minLen = options.minLen ?? 0;
  if (!Number.isInteger(minLen) || minLen < 0 || minLen > options.maxLen) throw new Error(`minLen must be an integer in 0..maxLen, got ${options.minLen}`);
  if ((options.bannedTokens ?? DEFAULT_BANNED).includes(EOS_ID)) throw new Error('EOS cannot be banned');
}

/** tf.tidy for a function returning an Encoded (kept; every other tensor made inside is disposed). */
export function tidyEncoded(fn: () => Encoded): Encoded {
  const tf = loadTf();
  return tf.tidy(() => fn() as unknown as TF.TensorContainer) as unknown as Encoded;
}

/** Encodes once; every tensor of the result is a clone the decoder may dispose (never the caller's input). */
export function encodeOwned(model: CaptionModel, input: EncoderInput): Encoded {
  return tidyEncoded(() => cloneEncoded(model.encode(input, false)));
}

export function cloneEncoded(e: Encoded): Encoded {
  const tf = loadTf();
  const out: Encoded = { memory: tf.clone(e.memory), mask: tf.clone(e.mask) };
  if (e.state) out.state = e.state.map((s) => tf.clone(s));
  return out;
}

export function encodedTensors(e: Encoded): TF.Tensor[] {
  return [e.memory, e.mask, ...(e.state ?? [])];
}

export function disposeEncoded(e: Encoded): void {
  for (const t of encodedTensors(e)) t.dispose();
}

/** Whether every tensor of `e` has `rows` rows first (then rows can be selected with gather). */
export function canCompact(e: Encoded, rows: number): boolean {
  return encodedTensors(e).every((t) => t.shape.length > 0 && t.shape[0] === rows);
}

/** Keeps the given rows of every tensor; disposes the old tensors. */
export function selectRows(e: Encoded, rows: readonly number[]): Encoded {
  const tf = loadTf();
  const out = tidyEncoded(() => {
    const index = tf.tensor1d(Int32Array.from(rows), 'int32');
    const pick = <T extends TF.Tensor>(t: T): T => tf.gather(t, index, 0) as T;
    const next: Encoded = { memory: pick(e.memory), mask: pick(e.mask) };
    if (e.state) next.state = e.state.map(pick);
    return next;
  });
  disposeEncoded(e);
  return out;
}

/** [N, 1 + t] int32: BOS then each row's tokens so far (PAD where a filler row is shorter). */
export function prefixTensor(prefixes: readonly (readonly number[])[], t: number): TF.Tensor2D {
  const tf = loadTf();
  const data = new Int32Array(prefixes.length * (t + 1));
  for (let r = 0; r < prefixes.length; r++) {
    const base = r * (t + 1);
    data[base] = BOS_ID;
    const p = prefixes[r];
    for (let i = 0; i < t; i++) data[base + 1 + i] = i < p.length ? p[i] : PAD_ID;
  }
  return tf.tensor2d(data, [prefixes.length, t + 1], 'int32');
}

/**
 * Additive mask [V] for the next token: -∞ on banned tokens, and on EOS while the caption is
 * shorter than minLen. Made once per decode for each of the two EOS states.
 */
export function tokenMask(vocabSize: number, banned: readonly number[], banEos: boolean): TF.Tensor1D {
  const tf = loadTf();
  const data = new Float32Array(vocabSize);
  for (const id of banned) if (id >= 0 && id < vocabSize) data[id] = -Infinity;
  if (banEos) data[EOS_ID] = -Infinity;
  return tf.tensor1d(data, 'float32');
}

/**
 * Log-probabilities [N, V] of the token after each row's prefix, the mask added (banned tokens get
 * -∞ after normalisation, so the allowed tokens' probabilities are the model's, not renormalised).
 */
export function nextLogProbs(model: CaptionModel, encoded: Encoded, tokens: TF.Tensor2D, mask: TF.Tensor1D): TF.Tensor2D {
  const tf = loadTf();
  const logits = model.decode(encoded, tokens, false);
  const [n, t, v] = logits.shape;
  const last = t === 1 ? logits.reshape([n, v]) : logits.slice([0, t - 1, 0], [n, 1, v]).reshape([n, v]);
  return tf.add(tf.logSoftmax(last as TF.Tensor2D), mask) as TF.Tensor2D;
}
