/**
 * Beam search over a whole batch: every image's K live hypotheses go through one decoder call per
 * step (B×K rows), the top 2K next-token candidates of each image are chosen on the device (one
 * top-k over its K×V scores), and the host keeps the bookkeeping:
 *
 *  - candidates are taken in rank order; one ending with EOS is finished when its rank is below K
 *    (it competes with the beam for a place, as in fairseq and Hugging Face), otherwise it is
 *    dropped; the other candidates fill the K live places;
 *  - finished hypotheses go to the image's best-list ranked by the GNMT-normalised score
 *    logP / ((5 + len) / 6)^α, len counting EOS (see `lengthPenalty`);
 *  - an image stops as soon as no live hypothesis can beat its nBest-th finished one: a live
 *    hypothesis's log-probability only falls as it grows, so logP / lp(maxLen) bounds what it can
 *    still reach (for α ≥ 0; the bound takes the larger penalty either way);
 *  - after maxLen steps the hypotheses still open finish as they are (no EOS, len = maxLen);
 *  - images that stopped leave the batch (their rows are dropped), so the long late steps are paid
 *    only by the images still searching.
 *
 * The first step decodes one row per image (all K beams start from BOS alone); the rows are
 * repeated to K after it. With a step decoder (./incremental) each new hypothesis's row takes its
 * parent's decoding state; through `decode` on whole prefixes, rows only move when images leave.
 */
import type * as TF from '@tensorflow/tfjs';
import { loadTf } from '../tf/backend';
import { CaptionModel, EncoderInput } from '../models/types';
import { EOS_ID } from '../text/tokens';
import { BeamOptions, checkDecodeOptions, DEFAULT_BANNED, DecodeResult, Hypothesis, lengthPenalty, normalisedScore, tokenMask } from './common';
import { makeScorer } from './scorer';

export interface BeamSearchOptions extends Partial<BeamOptions> {
  maxLen: number;
  /**
   * When an image stops before maxLen (its nBest-th finished hypothesis against its best live one, of
   * log-probability s after t tokens):
   *  - true (default): exact — no live hypothesis can still beat it, s / lp(maxLen) ≤ finished
   *    (tensor2tensor's rule); the result is the one running to maxLen would give;
   *  - 'heuristic': s / lp(t + 1) ≤ finished, the best live hypothesis as if it ended now (Hugging
   *    Face's default); faster, may miss a longer caption the length penalty would have preferred;
   *  - false: run to maxLen.
   */
  earlyStopping?: boolean | 'heuristic';
}

interface Live {
  tokens: number[];
  logProb: number;
  /** The scorer row this hypothesis's prefix was scored in (its parent's row). */
  row: number;
}

/** An image's best finished hypotheses, best first, at most `capacity` of them. */
export class FinishedList {
  readonly items: Hypothesis[] = [];
  constructor(readonly capacity: number) {}

  /** The score a new hypothesis must beat to enter (−∞ while there is room). */
  get threshold(): number {
    return this.items.length < this.capacity ? -Infinity : this.items[this.items.length - 1].score;
  }

  add(h: Hypothesis): void {
    if (this.items.length >= this.capacity && !(h.score > this.threshold)) return;
    let i = this.items.length;
    while (i > 0 && this.items[i - 1].score < h.score) i--;
    this.items.splice(i, 0, h);
    if (this.items.length > this.capacity) this.items.pop();
  }
}

export function beamSearch(model: CaptionModel, input: EncoderInput, options: BeamSearchOptions): DecodeResult {
  const K = options.beamSize ?? 5;
  const alpha = options.alpha ?? 0.6;
  const nBest = options.nBest ?? 1;
  const earlyStopping = options.earlyStopping ?? true;
  checkDecodeOptions(options);
  if (!Number.isInteger(K) || K < 1) throw new Error(`beamSize must be a positive integer, got ${K}`);
  if (!Number.isInteger(nBest) || nBest < 1 || nBest > K) throw new Error(`nBest must be an integer in 1..beamSize, got ${nBest}`);
  if (!Number.isFinite(alpha)) throw new Error(`alpha must be a number, got ${alpha}`);
  const tf = loadTf();
  const { maxLen } = options;
  const minLen = options.minLen ?? 0;
  const banned = options.bannedTokens ?? DEFAULT_BANNED;
  const V = model.vocabSize;
  const batch = input.visual.shape[0];

  const finished = Array.from({ length: batch }, () => new FinishedList(nBest));
  /** Live hypotheses of each image still searching, best first (fewer than K only on tiny vocabularies). */
  const live = new Map<number, Live[]>();
  for (let b = 0; b < batch; b++) live.set(b, [{ tokens: [], logProb: 0, row: b }]);
  /**
   * Images the scorer's rows belong to, in row order (width rows each): the images still searching,
   * or every image when the scorer cannot drop rows (then finished images ride along as −∞ rows).
   */
  let rows = Array.from({ length: batch }, (_, b) => b);
  let width = 1;
  const scorer = makeScorer(model, input, options);
  const masks = [tokenMask(V, banned, false), tokenMask(V, banned, true)];
  let steps = 0;
  let rowsDecoded = 0;

  try {
    for (let t = 0; t < maxLen && live.size > 0; t++) {
      // width rows per image: its live hypotheses, then −∞ fillers (finished images: fillers only)
      const prefixes: number[][] = [];
      const rowLogProb = new Float32Array(rows.length * width);
      rows.forEach((b, i) => {
        const hyps = live.get(b) ?? [];
        for (let k = 0; k < width; k++) {
          const h = hyps[k];
          prefixes.push(h ? h.tokens : (hyps[0]?.tokens ?? []));
          rowLogProb[i * width + k] = h ? h.logProb : -Infinity;
        }
      });
      const mask = masks[t < minLen ? 1 : 0];
      const k2 = Math.min(2 * K, width * V);
      const [values, indices] = tf.tidy(() => {
        const lp = scorer.logProbs(prefixes, t, mask);
        const total = tf.add(lp, tf.tensor2d(rowLogProb, [prefixes.length, 1])) as TF.Tensor2D;
        const top = tf.topk(total.reshape([rows.length, width * V]), k2, true);
        return [top.values.dataSync() as Float32Array, top.indices.dataSync() as Int32Array];
      });
      steps++;
      rowsDecoded += prefixes.length;

      const stillActive: number[] = [];
      const keptImages: number[] = [];
      rows.forEach((b, i) => {
        const hyps = live.get(b);
        if (!hyps) return;
        const list = finished[b];
        const next: Live[] = [];
        for (let r = 0; r < k2; r++) {
          const value = values[i * k2 + r];
          if (value === -Infinity) break;
          const index = indices[i * k2 + r];
          const beam = Math.floor(index / V);
          const parent = hyps[beam];
          const token = index % V;
          if (token === EOS_ID) {
            if (r < K) list.add({ tokens: parent.tokens, logProb: value, score: normalisedScore(value, t + 1, alpha), ended: true });
          } else if (next.length < K) {
            next.push({ tokens: [...parent.tokens, token], logProb: value, row: i * width + beam });
          }
        }
        let done = next.length === 0;
        if (!done && t + 1 === maxLen) {
          for (const h of next) list.add({ tokens: h.tokens, logProb: h.logProb, score: normalisedScore(h.logProb, maxLen, alpha), ended: false });
          done = true;
        }
        if (!done && earlyStopping && list.items.length >= nBest) {
          // next[0] has the highest log-probability of the live hypotheses; it can only fall, and the
          // length it finishes at lies in t+2..maxLen, where the penalty is monotone
          const best = next[0].logProb;
          const bound =
            earlyStopping === 'heuristic'
              ? best / lengthPenalty(t + 2, alpha)
              : Math.max(best / lengthPenalty(t + 2, alpha), best / lengthPenalty(maxLen, alpha));
          if (list.threshold >= bound) done = true;
        }
        if (done) {
          live.delete(b);
        } else {
          live.set(b, next);
          stillActive.push(b);
          keptImages.push(i);
        }
      });
      if (live.size === 0) break;

      // next step's rows: K per image still searching, each continuing its parent's row
      if (!scorer.canSelect) {
        if (width === 1 && K > 1) scorer.tile(K);
        width = K;
        continue;
      }
      const parents: number[] = [];
      for (const b of stillActive) {
        const next = live.get(b)!;
        for (let k = 0; k < K; k++) parents.push((next[k] ?? next[0]).row);
      }
      scorer.select(parents, width !== K || stillActive.length < rows.length ? keptImages : null, K);
      rows = stillActive;
      width = K;
    }
  } finally {
    scorer.dispose();
    masks.forEach((m) => m.dispose());
  }

  const result: DecodeResult = { tokens: [], scores: [], logProbs: [], steps, rowsDecoded };
  if (nBest > 1) result.nBest = [];
  for (let b = 0; b < batch; b++) {
    const best = finished[b].items[0];
    result.tokens.push(best ? best.tokens : []);
    result.scores.push(best ? best.score : -Infinity);
    result.logProbs.push(best ? best.logProb : -Infinity);
    result.nBest?.push([...finished[b].items]);
  }
  return result;
}
