/**
 * Greedy decoding over a whole batch: one decoder call per step for every image still open; an
 * image leaves the batch when it emits EOS (its rows are dropped, so late, long steps only pay for
 * the images still writing). Incremental when the model offers a step decoder (./incremental).
 */
import { loadTf } from '../tf/backend';
import { CaptionModel, EncoderInput } from '../models/types';
import { EOS_ID } from '../text/tokens';
import { checkDecodeOptions, DEFAULT_BANNED, DecodeOptions, DecodeResult, tokenMask } from './common';
import { makeScorer } from './scorer';

export function greedyDecode(model: CaptionModel, input: EncoderInput, options: DecodeOptions): DecodeResult {
  checkDecodeOptions(options);
  const tf = loadTf();
  const { maxLen } = options;
  const minLen = options.minLen ?? 0;
  const banned = options.bannedTokens ?? DEFAULT_BANNED;
  const batch = input.visual.shape[0];

  const tokens: number[][] = Array.from({ length: batch }, () => []);
  const logProbs = new Array<number>(batch).fill(0);
  const scorer = makeScorer(model, input, options);
  const masks = [tokenMask(model.vocabSize, banned, false), tokenMask(model.vocabSize, banned, true)];
  /** Image of each scorer row: the open images, or every image when rows cannot be dropped. */
  let rows = Array.from({ length: batch }, (_, b) => b);
  const open = new Set(rows);
  let steps = 0;
  let rowsDecoded = 0;
  try {
    for (let t = 0; t < maxLen && open.size > 0; t++) {
      const mask = masks[t < minLen ? 1 : 0];
      const [ids, lps] = tf.tidy(() => {
        const lp = scorer.logProbs(
          rows.map((b) => tokens[b]),
          t,
          mask,
        );
        return [tf.argMax(lp, 1).dataSync() as Int32Array, tf.max(lp, 1).dataSync() as Float32Array];
      });
      steps++;
      rowsDecoded += rows.length;
      const keep: number[] = [];
      rows.forEach((b, r) => {
        if (!open.has(b)) return;
        logProbs[b] += lps[r];
        if (ids[r] === EOS_ID) {
          open.delete(b);
        } else {
          tokens[b].push(ids[r]);
          keep.push(r);
        }
      });
      if (!scorer.canSelect) continue;
      if (keep.length > 0) scorer.select(keep, keep.length < rows.length ? keep : null, 1);
      rows = keep.map((r) => rows[r]);
    }
  } finally {
    scorer.dispose();
    masks.forEach((m) => m.dispose());
  }
  return { tokens, scores: [...logProbs], logProbs, steps, rowsDecoded };
}
