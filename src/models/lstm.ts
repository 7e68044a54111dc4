/**
 * The LSTM captioner of CC3M §4.1: "a 1-layer 512-d LSTM encoder over the visual sequence, a
 * separate LSTM decoder started from its final state, no cross-attention".
 *
 * Encoder: the visual vectors (plus a projection of region geometry when given) are projected to
 * the embedding width; optional tag and text tokens follow them, embedded with the word
 * embeddings. One LSTM runs over that sequence; at padded positions the state is carried through
 * unchanged, so padding never changes the result. Its final [h, c] is `Encoded.state`; its
 * per-step outputs are `memory` (unused by the decoder, kept so every model fills `Encoded`).
 * Decoder: a second LSTM started from that state, fed the embedded prefix (teacher forcing),
 * word logits from its outputs — tied to the word embeddings when `tieEmbeddings` (through a
 * hidden → embedding projection when the widths differ).
 *
 * The cell is written out: one matMul with fused gate weights [in + hidden, 4·hidden] (gate order
 * i, f, g, o), forget-gate bias 1 so early training keeps the state. The input half of that matrix
 * is applied to all steps at once (same arithmetic, far fewer kernel calls); only the recurrent
 * half runs per step. Dropout on the LSTM inputs and on the decoder outputs, not on the recurrence.
 *
 * `decode` recomputes the whole prefix on every call, and the LSTM declares no incremental
 * decoding (CaptionModel.startIncremental / step), so the searches decode it on whole prefixes; for
 * captions of ~20 tokens that costs little.
 *
 * Plain tf.Variables by stable names (as in transformer.ts), so checkpoints are a name → tensor map.
 */
import type * as TF from '@tensorflow/tfjs';

import { ParameterizedModel } from './params';
import { CaptionModel, Encoded, EncoderInput } from './types';
import { encoderSequence } from './visual-input';

export interface LstmConfig {
  vocabSize: number;
  /** LSTM state width (encoder and decoder). */
  hidden: number;
  /** Word-embedding width, also the width visual vectors are projected to (the LSTM input). */
  embedding: number;
  dropout: number;
  /** Width of the visual vectors given to the encoder. */
  visualDim: number;
  /** Numbers per visual position besides the vector (regions: 5), 0 for none. */
  geometryDim: number;
  /** Output projection = input word embeddings transposed. */
  tieEmbeddings: boolean;
  seed: number;
}

/** Model sizes. The paper size for reference; tiny/small train on this CPU. */
export const LSTM_SIZES = {
  /** CC3M §4.1: 1-layer 512-d LSTM encoder and decoder. */
  paper: { hidden: 512, embedding: 512, dropout: 0.1 },
  small: { hidden: 256, embedding: 256, dropout: 0.1 },
  tiny: { hidden: 128, embedding: 128, dropout: 0.1 },
} as const;
export type LstmSize = keyof typeof LSTM_SIZES;

export const DEFAULT_LSTM: Omit<LstmConfig, 'vocabSize' | 'visualDim'> = {
  ...LSTM_SIZES.tiny,
  geometryDim: 0,
  tieEmbeddings: false,
  seed: 1,
};

export class LstmCaptioner extends ParameterizedModel implements CaptionModel {
  readonly kind = 'lstm' as const;
  readonly config: LstmConfig;

  constructor(config: LstmConfig) {
    super('lstm', config.seed, { tag: 0x0d70, rate: config.dropout });
    this.config = config;
    const { hidden: h, embedding: e } = config;
    this.params.dense('visual_proj', config.visualDim, e);
    if (config.geometryDim > 0) this.params.dense('geometry_proj', config.geometryDim, e);
    this.params.weight('word_emb', [config.vocabSize, e], Math.sqrt(1 / e));
    this.cell('enc_lstm', e, h);
    this.cell('dec_lstm', e, h);
    if (config.tieEmbeddings) {
      if (h !== e) this.params.dense('out_proj', h, e);
    } else {
      this.params.dense('out', h, config.vocabSize);
    }
  }

  get vocabSize(): number {
    return this.config.vocabSize;
  }

  /** The encoder's per-step outputs are its LSTM states. */
  get memoryWidth(): number {
    return this.config.hidden;
  }

  // ------------------------------------------------------------------ encoder

  encode(input: EncoderInput, training = false): Encoded {
    const tf = this.tf;
    return tf.tidy(() => {
      const { x: sequence, mask } = encoderSequence(tf, this.params, input, {
        width: this.config.embedding,
        visualProjection: 'visual_proj',
        geometryProjection: this.config.geometryDim > 0 ? 'geometry_proj' : undefined,
        embedTokens: (tokens) => this.params.embed('word_emb', tokens),
      });
      const x = this.dropout.apply(sequence, training);
      const B = input.visual.shape[0];
      const zero = tf.zeros([B, this.config.hidden]) as TF.Tensor2D;
      const run = this.runLstm('enc_lstm', x, zero, zero, mask);
      return { memory: run.outputs, mask, state: [run.h, run.c] };
    });
  }

  // ------------------------------------------------------------------ decoder

  decode(encoded: Encoded, tokens: TF.Tensor2D, training = false): TF.Tensor3D {
    const tf = this.tf;
    const state = encoded.state;
    if (!state || state.length !== 2) throw new Error('lstm: Encoded.state must be [h, c] from LstmCaptioner.encode');
    return tf.tidy(() => {
      const [B, T] = tokens.shape;
      const { hidden: h, embedding: e, vocabSize } = this.config;
      const x = this.dropout.apply(this.params.embed('word_emb', tokens), training);
      const run = this.runLstm('dec_lstm', x, state[0] as TF.Tensor2D, state[1] as TF.Tensor2D);
      let out = this.dropout.apply(run.outputs, training).reshape([B * T, h]) as TF.Tensor2D;
      let logits: TF.Tensor2D;
      if (this.config.tieEmbeddings) {
        if (h !== e) out = this.params.linear('out_proj', out);
        logits = tf.matMul(out, this.params.need('word_emb'), false, true);
      } else {
        logits = this.params.linear('out', out);
      }
      return logits.reshape([B, T, vocabSize]);
    });
  }

  tileEncoded(encoded: Encoded, times: number): Encoded {
    return this.tf.tidy(() => {
      const [memory, mask, ...state] = this.repeatRows<TF.Tensor>([encoded.memory, encoded.mask, ...(encoded.state ?? [])], times);
      return { memory: memory as TF.Tensor3D, mask: mask as TF.Tensor2D, state };
    });
  }

  // ------------------------------------------------------------------ the cell

  /**
   * Runs one LSTM over x [B, T, in] from (h0, c0). With `mask` [B, T], steps where it is 0 carry
   * the previous state (and output) through unchanged. Returns every step's h and the final state.
   */
  private runLstm(
    name: string,
    x: TF.Tensor3D,
    h0: TF.Tensor2D,
    c0: TF.Tensor2D,
    mask?: TF.Tensor2D,
  ): { outputs: TF.Tensor3D; h: TF.Tensor2D; c: TF.Tensor2D } {
    const tf = this.tf;
    const [B, T, inDim] = x.shape;
    const H = this.config.hidden;
    const w = this.params.need(`${name}_w`);
    // [x, h] · W = x · W[:in] + h · W[in:]; the input half for all steps in one matMul
    const wx = w.slice([0, 0], [inDim, 4 * H]);
    const wh = w.slice([inDim, 0], [H, 4 * H]);
    const xg = tf.add(tf.matMul(x.reshape([B * T, inDim]), wx), this.params.need(`${name}_b`)).reshape([B, T, 4 * H]);
    // tfjs's Unpack gradient fails on a one-step unstack (it gets the lone gradient unwrapped, not as a list):
    // a 1×1 visual sequence is one step, so that case is a reshape
    const perStep = (t: TF.Tensor, width: number): TF.Tensor2D[] => (T === 1 ? [t.reshape([B, width])] : (tf.unstack(t, 1) as TF.Tensor2D[]));
    const steps = perStep(xg, 4 * H);
    const keep = mask ? perStep(mask.toFloat().reshape([B, T, 1]), 1) : null;
    let h = h0;
    let c = c0;
    const outputs: TF.Tensor2D[] = [];
    for (let t = 0; t < T; t++) {
      const gates = steps[t]!.add(tf.matMul(h, wh));
      const [i, f, g, o] = tf.split(gates, 4, 1) as TF.Tensor2D[];
      let cNew = tf
        .sigmoid(f!)
        .mul(c)
        .add(tf.sigmoid(i!).mul(tf.tanh(g!))) as TF.Tensor2D;
      let hNew = tf.sigmoid(o!).mul(tf.tanh(cNew)) as TF.Tensor2D;
      if (keep) {
        const m = keep[t]!;
        cNew = cNew.mul(m).add(c.mul(tf.sub(1, m)));
        hNew = hNew.mul(m).add(h.mul(tf.sub(1, m)));
      }
      h = hNew;
      c = cNew;
      outputs.push(h);
    }
    const stacked = T > 0 ? (tf.stack(outputs, 1) as TF.Tensor3D) : (tf.zeros([B, 0, H]) as TF.Tensor3D);
    return { outputs: stacked, h, c };
  }

  private cell(name: string, inDim: number, hidden: number): void {
    this.params.weight(`${name}_w`, [inDim + hidden, 4 * hidden], Math.sqrt(2 / (inDim + hidden + 4 * hidden)));
    // gate order i, f, g, o: forget-gate bias 1
    const bias = new Float32Array(4 * hidden);
    bias.fill(1, hidden, 2 * hidden);
    this.params.set(`${name}_b`, this.tf.variable(this.tf.tensor1d(bias), true));
  }
}
