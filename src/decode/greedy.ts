/**
 * Greedy decoding over a whole batch: one decoder call per step for every image still open; an
 * image leaves the batch when it emits EOS (its encoder rows are dropped, so late, long steps only
 * pay for the images still writing).
 */
import { loadTf } from '../train/backend';
import { CaptionModel, EOS_ID, Encoded, EncoderInput } from '../models/types';
import {
  canCompact,
  checkDecodeOptions,
  DEFAULT_BANNED,
  DecodeOptions,
  DecodeResult,
  disposeEncoded,
  encodeOwned,
  nextLogProbs,
  prefixTensor,
  selectRows,
  tokenMask,
} from './common';

export function greedyDecode(model: CaptionModel, input: EncoderInput, options: DecodeOptions): DecodeResult {
  checkDecodeOptions(options);
  const tf = loadTf();
  const { maxLen } = options;
  const minLen = options.minLen ?? 0;
  const banned = options.bannedTokens ?? DEFAULT_BANNED;
  const batch = input.visual.shape[0];

  const tokens: number[][] = Array.from({ length: batch }, () => []);
  const logProbs = new Array<number>(batch).fill(0);
  let encoded: Encoded = encodeOwned(model, input);
  const compactable = canCompact(encoded, batch);
  const masks = [tokenMask(model.vocabSize, banned, false), tokenMask(model.vocabSize, banned, true)];
  /** Image of each row of `encoded`. */
  let open = Array.from({ length: batch }, (_, b) => b);
  let steps = 0;
  let rowsDecoded = 0;
  try {
    for (let t = 0; t < maxLen && open.length > 0; t++) {
      const rows = compactable ? open : Array.from({ length: batch }, (_, b) => b);
      const mask = masks[t < minLen ? 1 : 0];
      const [ids, lps] = tf.tidy(() => {
        const prefix = prefixTensor(
          rows.map((b) => tokens[b]),
          t,
        );
        const lp = nextLogProbs(model, encoded, prefix, mask);
        const best = tf.argMax(lp, 1);
        const bestLp = tf.max(lp, 1);
        return [best.dataSync() as Int32Array, bestLp.dataSync() as Float32Array];
      });
      steps++;
      rowsDecoded += rows.length;
      const still: number[] = [];
      const keep: number[] = [];
      const openSet = new Set(open);
      rows.forEach((b, r) => {
        if (!openSet.has(b)) return;
        logProbs[b] += lps[r];
        if (ids[r] === EOS_ID) return;
        tokens[b].push(ids[r]);
        still.push(b);
        keep.push(r);
      });
      if (compactable && still.length < open.length && still.length > 0) encoded = selectRows(encoded, keep);
      open = still;
    }
  } finally {
    disposeEncoded(encoded);
    masks.forEach((m) => m.dispose());
  }
  return { tokens, scores: [...logProbs], logProbs, steps, rowsDecoded };
}
