import { strict as assert } from 'node:assert';
import { before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '../src/tf/backend';
import { CaptionModel, Encoded, EncoderInput } from '../src/models/types';
import { BOS_ID, EOS_ID } from '../src/text/tokens';
import {
  beamSearch,
  DECODE_PRESETS,
  DEFAULT_BANNED,
  decodeBatch,
  describeDecoder,
  FinishedList,
  greedyDecode,
  lengthPenalty,
  normalisedScore,
} from '../src/decode';
import { NgramCaptionModel } from './fixtures/ngram-model';

before(async () => {
  await initBackend({ logger: () => undefined });
});

/** Row `b` of an encoder input, as its own batch of one. */
function row(input: EncoderInput, b: number): EncoderInput {
  return {
    visual: input.visual.slice([b, 0, 0], [1, -1, -1]),
    visualMask: input.visualMask.slice([b, 0], [1, -1]),
  };
}

function disposeInput(input: EncoderInput): void {
  input.visual.dispose();
  input.visualMask.dispose();
}

/** log p(· | prefix) of one image under the model, masked like the decoders (banned → -∞). */
function logProbsAfter(model: CaptionModel, input: EncoderInput, prefix: number[], minLen = 0): number[] {
  return tf.tidy(() => {
    const encoded = model.encode(input);
    const tokens = tf.tensor2d([[BOS_ID, ...prefix]], [1, prefix.length + 1], 'int32');
    const logits = model.decode(encoded, tokens);
    const last = logits.slice([0, prefix.length, 0], [1, 1, -1]).reshape([-1]);
    const lp = Array.from(tf.logSoftmax(last).dataSync());
    for (const id of DEFAULT_BANNED) lp[id] = -Infinity;
    if (prefix.length < minLen) lp[EOS_ID] = -Infinity;
    return lp;
  }) as unknown as number[];
}

function argmax(xs: number[]): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i] > xs[best]) best = i;
  return best;
}

test('length penalty is GNMT’s ((5 + len) / 6)^α', () => {
  assert.equal(lengthPenalty(1, 0.6), 1);
  assert.ok(Math.abs(lengthPenalty(7, 0.6) - 2 ** 0.6) < 1e-12);
  assert.ok(Math.abs(lengthPenalty(10, 0.6) - (15 / 6) ** 0.6) < 1e-12);
  assert.equal(lengthPenalty(30, 0), 1);
  assert.ok(Math.abs(normalisedScore(-3, 7, 0.6) - -3 / 2 ** 0.6) < 1e-12);
});

test('presets: CC12M beam 5 α 0.6 max 36, narratives max 180, CC3M beam 4', () => {
  assert.deepEqual(DECODE_PRESETS.cc12m, { method: 'beam', beamSize: 5, alpha: 0.6, maxLen: 36, earlyStopping: 'heuristic' });
  assert.equal(DECODE_PRESETS.narratives.maxLen, 180);
  assert.equal(DECODE_PRESETS.cc3m.beamSize, 4);
  assert.equal(describeDecoder(DECODE_PRESETS.cc12m), 'beam5 α0.6 max36 heuristic-stop');
  assert.equal(describeDecoder({ ...DECODE_PRESETS.cc12m, earlyStopping: true }), 'beam5 α0.6 max36');
  assert.equal(describeDecoder(DECODE_PRESETS.greedy), 'greedy max36');
});

test('finished list keeps the best, best first', () => {
  const list = new FinishedList(2);
  for (const score of [-3, -1, -2, -5]) list.add({ tokens: [score], logProb: score, score, ended: true });
  assert.deepEqual(
    list.items.map((h) => h.score),
    [-1, -2],
  );
  assert.equal(list.threshold, -2);
});

test('greedy equals step-by-step argmax', () => {
  const model = new NgramCaptionModel({ vocabSize: 24, seed: 3 });
  const input = model.randomInput(5, 11);
  for (const minLen of [0, 4]) {
    const result = greedyDecode(model, input, { maxLen: 20, minLen });
    for (let b = 0; b < 5; b++) {
      const one = row(input, b);
      const tokens: number[] = [];
      let logProb = 0;
      for (let t = 0; t < 20; t++) {
        const lp = logProbsAfter(model, one, tokens, minLen);
        const next = argmax(lp);
        logProb += lp[next];
        if (next === EOS_ID) break;
        tokens.push(next);
      }
      disposeInput(one);
      assert.deepEqual(result.tokens[b], tokens, `image ${b}, minLen ${minLen}`);
      assert.ok(Math.abs(result.logProbs[b] - logProb) < 1e-4, `image ${b}: ${result.logProbs[b]} vs ${logProb}`);
      assert.ok(tokens.length >= minLen);
    }
  }
  const lengths = greedyDecode(model, input, { maxLen: 20 }).tokens.map((t) => t.length);
  assert.ok(new Set(lengths).size > 1, `captions of several lengths expected, got ${lengths}`);
  disposeInput(input);
  model.dispose();
});

test('beam of width 1 without length penalty is greedy', () => {
  const model = new NgramCaptionModel({ vocabSize: 30, seed: 5 });
  const input = model.randomInput(8, 2);
  const greedy = greedyDecode(model, input, { maxLen: 25 });
  const beam = beamSearch(model, input, { beamSize: 1, alpha: 0, maxLen: 25 });
  assert.deepEqual(beam.tokens, greedy.tokens);
  beam.logProbs.forEach((lp, b) => assert.ok(Math.abs(lp - greedy.logProbs[b]) < 1e-4));
  disposeInput(input);
  model.dispose();
});

/** Every caption of a tiny vocabulary up to maxLen tokens, scored as beam search scores them. */
function exhaustiveBest(model: CaptionModel, input: EncoderInput, maxLen: number, alpha: number, minLen = 0): { tokens: number[]; score: number } {
  let best = { tokens: [] as number[], score: -Infinity };
  const visit = (prefix: number[], logProb: number) => {
    const lp = logProbsAfter(model, input, prefix, minLen);
    for (let id = 0; id < lp.length; id++) {
      if (lp[id] === -Infinity) continue;
      const total = logProb + lp[id];
      if (id === EOS_ID) {
        const score = normalisedScore(total, prefix.length + 1, alpha);
        if (score > best.score) best = { tokens: prefix, score };
      } else if (prefix.length + 1 === maxLen) {
        const score = normalisedScore(total, maxLen, alpha);
        if (score > best.score) best = { tokens: [...prefix, id], score };
      } else {
        visit([...prefix, id], total);
      }
    }
  };
  visit([], 0);
  return best;
}

test('a wide enough beam finds the best length-normalised caption (exhaustive enumeration)', () => {
  // V = 8: EOS, UNK and 5..7 may be generated (PAD, BOS, MASK are banned): 4 words + EOS per step
  const model = new NgramCaptionModel({ vocabSize: 8, seed: 9, scale: 1, eosSlope: 0.2, eosOffset: -1 });
  const input = model.randomInput(4, 4);
  for (const [alpha, minLen] of [
    [0.6, 0],
    [0, 0],
    [2, 0],
    [0.6, 2],
  ]) {
    const maxLen = 4;
    const beam = beamSearch(model, input, { beamSize: 64, alpha, maxLen, minLen });
    for (let b = 0; b < 4; b++) {
      const one = row(input, b);
      const best = exhaustiveBest(model, one, maxLen, alpha, minLen);
      disposeInput(one);
      assert.deepEqual(beam.tokens[b], best.tokens, `image ${b}, α ${alpha}, minLen ${minLen}`);
      assert.ok(Math.abs(beam.scores[b] - best.score) < 1e-4, `image ${b}: ${beam.scores[b]} vs ${best.score}`);
    }
  }
  disposeInput(input);
  model.dispose();
});

test('beam 5: early stopping changes nothing; n-best lists are ranked by the normalised score', () => {
  const model = new NgramCaptionModel({ vocabSize: 40, seed: 12, scale: 1.5 });
  const input = model.randomInput(12, 6);
  for (const alpha of [0, 0.6]) {
    const beam = beamSearch(model, input, { beamSize: 5, alpha, maxLen: 30, nBest: 3 });
    const full = beamSearch(model, input, { beamSize: 5, alpha, maxLen: 30, nBest: 3, earlyStopping: false });
    assert.deepEqual(beam.tokens, full.tokens);
    assert.deepEqual(beam.nBest, full.nBest);
    assert.ok(beam.rowsDecoded <= full.rowsDecoded);
    const heuristic = beamSearch(model, input, { beamSize: 5, alpha, maxLen: 30, nBest: 3, earlyStopping: 'heuristic' });
    assert.ok(heuristic.rowsDecoded <= beam.rowsDecoded);
    if (alpha === 0) assert.deepEqual(heuristic.tokens, beam.tokens); // without a length penalty the heuristic bound is exact
    for (const list of beam.nBest!) {
      assert.equal(list.length, 3);
      for (let i = 1; i < list.length; i++) assert.ok(list[i - 1].score >= list[i].score);
      for (const h of list) assert.ok(Math.abs(h.score - normalisedScore(h.logProb, h.tokens.length + (h.ended ? 1 : 0), alpha)) < 1e-9);
    }
  }
  disposeInput(input);
  model.dispose();
});

/** A model whose Encoded carries a state tensor that is not batch-first (rows cannot be cut). */
class UncuttableModel extends NgramCaptionModel {
  override encode(input: EncoderInput): Encoded {
    const e = super.encode(input);
    return { ...e, state: [tf.scalar(1)] };
  }
}

test('a batch decodes exactly as its images one at a time (with and without row compaction)', () => {
  const model = new NgramCaptionModel({ vocabSize: 30, seed: 21 });
  const uncuttable = new UncuttableModel({ vocabSize: 30, seed: 21 });
  const input = model.randomInput(7, 8, 3);
  for (const settings of [DECODE_PRESETS.greedy, DECODE_PRESETS.cc12m, DECODE_PRESETS.cc3m]) {
    const batched = decodeBatch(model, input, settings);
    const plain = decodeBatch(uncuttable, input, settings);
    assert.deepEqual(plain.tokens, batched.tokens);
    for (let b = 0; b < 7; b++) {
      const one = row(input, b);
      const alone = decodeBatch(model, one, settings);
      disposeInput(one);
      assert.deepEqual(alone.tokens[0], batched.tokens[b], `${describeDecoder(settings)}, image ${b}`);
      assert.ok(Math.abs(alone.scores[0] - batched.scores[b]) < 1e-4);
    }
  }
  disposeInput(input);
  model.dispose();
  uncuttable.dispose();
});

test('maxLen and minLen are respected', () => {
  const endless = new NgramCaptionModel({ vocabSize: 20, seed: 2, eosSlope: 0, eosOffset: -100 });
  const input = endless.randomInput(3, 1);
  for (const result of [greedyDecode(endless, input, { maxLen: 7 }), beamSearch(endless, input, { beamSize: 5, alpha: 0.6, maxLen: 7, nBest: 2 })]) {
    for (const tokens of result.tokens) assert.equal(tokens.length, 7);
    for (const tokens of result.tokens) for (const id of tokens) assert.ok(!DEFAULT_BANNED.includes(id) && id !== EOS_ID);
    result.nBest?.forEach((list) => list.forEach((h) => assert.equal(h.ended, false)));
  }
  endless.dispose();

  const eager = new NgramCaptionModel({ vocabSize: 20, seed: 2, eosSlope: 0, eosOffset: 100 });
  for (const result of [greedyDecode(eager, input, { maxLen: 7, minLen: 3 }), beamSearch(eager, input, { beamSize: 5, alpha: 0.6, maxLen: 7, minLen: 3 })]) {
    for (const tokens of result.tokens) assert.equal(tokens.length, 3);
  }
  assert.deepEqual(greedyDecode(eager, input, { maxLen: 7 }).tokens, [[], [], []]);
  assert.throws(() => greedyDecode(eager, input, { maxLen: 0 }), /maxLen/);
  assert.throws(() => beamSearch(eager, input, { maxLen: 5, minLen: 6 }), /minLen/);
  assert.throws(() => beamSearch(eager, input, { maxLen: 5, bannedTokens: [EOS_ID] }), /EOS/);
  disposeInput(input);
  eager.dispose();
});

test('no tensor leaks, and the caller’s inputs survive', () => {
  const model = new NgramCaptionModel({ vocabSize: 30, seed: 4 });
  const uncuttable = new UncuttableModel({ vocabSize: 30, seed: 4 });
  const input = model.randomInput(6, 3, 2);
  // warm-up: tfjs caches a few scalars on first use
  greedyDecode(model, input, { maxLen: 10 });
  beamSearch(model, input, { maxLen: 10 });
  const before = tf.memory().numTensors;
  for (const m of [model, uncuttable]) {
    greedyDecode(m, input, { maxLen: 30, minLen: 2 });
    beamSearch(m, input, { beamSize: 5, alpha: 0.6, maxLen: 30, nBest: 2 });
    beamSearch(m, input, { beamSize: 1, alpha: 0, maxLen: 30 });
    beamSearch(m, input, { beamSize: 4, alpha: 0.6, maxLen: 30, earlyStopping: false });
  }
  assert.throws(() => beamSearch(model, input, { beamSize: 0, maxLen: 5 }));
  assert.equal(tf.memory().numTensors, before);
  assert.equal(input.visual.isDisposed, false);
  assert.equal(input.visualMask.isDisposed, false);
  disposeInput(input);
  model.dispose();
  uncuttable.dispose();
});

test('rows decoded: finished images leave the batch', () => {
  const model = new NgramCaptionModel({ vocabSize: 30, seed: 21 });
  const input = model.randomInput(16, 8);
  const greedy = greedyDecode(model, input, { maxLen: 36 });
  const longest = Math.max(...greedy.tokens.map((t) => t.length)) + 1;
  assert.ok(greedy.steps <= longest);
  // each image pays for its own steps only (its caption plus EOS, or maxLen)
  assert.equal(
    greedy.rowsDecoded,
    greedy.tokens.reduce((n, t) => n + Math.min(t.length + 1, 36), 0),
  );
  const beam = beamSearch(model, input, { beamSize: 5, alpha: 0.6, maxLen: 36 });
  assert.ok(beam.rowsDecoded < 16 * 5 * beam.steps, `${beam.rowsDecoded} rows in ${beam.steps} steps`);
  disposeInput(input);
  model.dispose();
});
