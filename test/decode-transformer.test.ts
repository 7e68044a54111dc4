import { strict as assert } from 'node:assert';
import { before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '../src/tf/backend';
import { Encoded, EncoderInput, hasIncremental } from '../src/models/types';
import { BOS_ID } from '../src/text/tokens';
import { DEFAULT_LSTM, LstmCaptioner } from '../src/models/lstm';
import { DEFAULT_TRANSFORMER, TransformerCaptioner } from '../src/models/transformer';
import { beamSearch, greedyDecode, incrementalDecoder } from '../src/decode';
import { reorderWithinImages } from '../src/decode/scorer';
import { lcgValues, NgramCaptionModel } from './fixtures/ngram-model';

before(async () => {
  await initBackend({ logger: () => undefined });
});

const V = 60;

function transformer(tieEmbeddings: boolean): TransformerCaptioner {
  return new TransformerCaptioner({ ...DEFAULT_TRANSFORMER, vocabSize: V, visualDim: 12, dropout: 0, tieEmbeddings, seed: tieEmbeddings ? 3 : 4 });
}

/** 4 images, 5 visual positions, the last ones padded on some images. */
function input(): EncoderInput {
  const mask = [
    [1, 1, 1, 1, 1],
    [1, 1, 1, 0, 0],
    [1, 0, 0, 0, 0],
    [1, 1, 1, 1, 0],
  ];
  return {
    visual: tf.tensor3d(
      lcgValues(4 * 5 * 12, 8).map((x) => x * 2),
      [4, 5, 12],
    ),
    visualMask: tf.tensor2d(mask),
  };
}

function disposeInput(x: EncoderInput): void {
  x.visual.dispose();
  x.visualMask.dispose();
}

/** Index of the largest value of each row. */
function argmaxRows(rows: number[][]): number[] {
  return rows.map((r) => r.reduce((best, x, i) => (x > r[best] ? i : best), 0));
}

test('the Transformer’s incremental step gives decode’s last-position logits (within 1e-4) and the same argmax', () => {
  for (const tie of [false, true]) {
    const model = transformer(tie);
    const x = input();
    assert.ok(hasIncremental(model));
    const tokens = [BOS_ID, 7, 33, 5, 59, 12, 40];
    const rows = [tokens, tokens.map((_, i) => tokens[(i + 1) % tokens.length]), tokens.map(() => 9), tokens];
    tf.tidy(() => {
      const encoded = model.encode(x);
      let state = model.startIncremental(encoded);
      for (let t = 0; t < tokens.length; t++) {
        const out = model.step(
          state,
          tf.tensor1d(
            rows.map((r) => r[t]),
            'int32',
          ),
          1,
        );
        state = out.state;
        const prefix = tf.tensor2d(
          rows.map((r) => r.slice(0, t + 1)),
          [4, t + 1],
          'int32',
        );
        const full = model.decode(encoded, prefix).slice([0, t, 0], [4, 1, V]).reshape([4, V]);
        const a = out.logits.arraySync() as number[][];
        const b = full.arraySync() as number[][];
        for (let r = 0; r < 4; r++)
          for (let v = 0; v < V; v++) assert.ok(Math.abs(a[r][v] - b[r][v]) < 1e-4, `tie ${tie}, step ${t}, row ${r}, token ${v}: ${a[r][v]} vs ${b[r][v]}`);
        assert.deepEqual(argmaxRows(a), argmaxRows(b), `tie ${tie}, step ${t}`);
      }
    });
    disposeInput(x);
    model.dispose();
  }
});

test('incremental and full-prefix decoding give the same captions (greedy and beam)', () => {
  const model = transformer(false);
  const x = input();
  const greedyFast = greedyDecode(model, x, { maxLen: 9 });
  const greedySlow = greedyDecode(model, x, { maxLen: 9, stepDecoder: false });
  assert.deepEqual(greedyFast.tokens, greedySlow.tokens);
  greedyFast.logProbs.forEach((lp, b) => assert.ok(Math.abs(lp - greedySlow.logProbs[b]) < 1e-3));
  for (const options of [
    { beamSize: 5, alpha: 0.6, maxLen: 9 },
    { beamSize: 3, alpha: 0, maxLen: 7, minLen: 2, nBest: 3 },
  ]) {
    const fast = beamSearch(model, x, options);
    const slow = beamSearch(model, x, { ...options, stepDecoder: false });
    assert.deepEqual(fast.tokens, slow.tokens);
    fast.scores.forEach((s, b) => assert.ok(Math.abs(s - slow.scores[b]) < 1e-3));
    assert.deepEqual(
      fast.nBest?.map((l) => l.map((h) => h.tokens)),
      slow.nBest?.map((l) => l.map((h) => h.tokens)),
    );
  }
  disposeInput(x);
  model.dispose();
});

test('incremental decoding leaks no tensor', () => {
  const model = transformer(true);
  const x = input();
  greedyDecode(model, x, { maxLen: 4 });
  beamSearch(model, x, { maxLen: 4 });
  const before = tf.memory().numTensors;
  greedyDecode(model, x, { maxLen: 12 });
  beamSearch(model, x, { beamSize: 5, alpha: 0.6, maxLen: 12, nBest: 2 });
  beamSearch(model, x, { beamSize: 4, alpha: 0.6, maxLen: 12, earlyStopping: false });
  assert.equal(tf.memory().numTensors, before);
  disposeInput(x);
  model.dispose();
});

test('models without incremental decoding are decoded on whole prefixes; asking them for it is an error', () => {
  const ngram = new NgramCaptionModel({ vocabSize: 10 });
  assert.equal(hasIncremental(ngram), false);
  assert.throws(() => incrementalDecoder(ngram), /has no incremental decoding/);
  ngram.dispose();
  const lstm = new LstmCaptioner({ ...DEFAULT_LSTM, vocabSize: V, visualDim: 12, dropout: 0 });
  const x = input();
  assert.equal(hasIncremental(lstm), false);
  assert.throws(() => incrementalDecoder(lstm), /lstm model has no incremental decoding/);
  const auto = beamSearch(lstm, x, { beamSize: 3, alpha: 0.6, maxLen: 6 });
  const slow = beamSearch(lstm, x, { beamSize: 3, alpha: 0.6, maxLen: 6, stepDecoder: false });
  assert.deepEqual(auto, slow);
  disposeInput(x);
  lstm.dispose();
});

/** A Transformer whose decode no longer matches its incremental step. */
class ShiftedTransformer extends TransformerCaptioner {
  override decode(encoded: Encoded, tokens: tf.Tensor2D, training = false): tf.Tensor3D {
    return tf.tidy(() => tf.mul(super.decode(encoded, tokens, training), 1.5) as tf.Tensor3D);
  }
}

test('incremental decoding that disagrees with decode() is an error, not a silent fallback', () => {
  const model = new ShiftedTransformer({ ...DEFAULT_TRANSFORMER, vocabSize: V, visualDim: 12, dropout: 0, tieEmbeddings: false, seed: 4 });
  const x = input();
  const before = tf.memory().numTensors;
  for (let i = 0; i < 2; i++) {
    assert.throws(() => beamSearch(model, x, { beamSize: 3, alpha: 0.6, maxLen: 6 }), /transformer model's incremental decoding disagrees with its decode\(\)/);
    assert.throws(() => greedyDecode(model, x, { maxLen: 6 }), /disagrees/);
  }
  assert.equal(tf.memory().numTensors, before);
  // full-prefix decoding, asked for, still works
  const slow = beamSearch(model, x, { beamSize: 3, alpha: 0.6, maxLen: 6, stepDecoder: false });
  assert.equal(slow.tokens.length, 4);
  disposeInput(x);
  model.dispose();
});

test('a model declaring half of incremental decoding is an error', () => {
  const ngram = new NgramCaptionModel({ vocabSize: 10 });
  const half = Object.assign(Object.create(ngram) as NgramCaptionModel, { startIncremental: () => ({ tensors: [], position: 0 }) });
  assert.throws(() => hasIncremental(half), /needs both startIncremental and step \(it has only startIncremental\)/);
  const x = ngram.randomInput(2, 3);
  assert.throws(() => greedyDecode(half, x, { maxLen: 4 }), /needs both/);
  disposeInput(x);
  ngram.dispose();
});

test('reordering rows within images by one-hot matMul copies exactly', () => {
  const x = tf.tensor4d(lcgValues(6 * 2 * 3 * 4, 5), [6, 2, 3, 4]);
  const rows = [2, 2, 0, 4, 3, 3];
  const [moved] = reorderWithinImages([x], rows, 3);
  const want = tf.gather(x, tf.tensor1d(rows, 'int32'));
  assert.deepEqual(moved.arraySync(), want.arraySync());
  assert.throws(() => reorderWithinImages([x], [3, 0, 1, 3, 4, 5], 3), /another image/);
  tf.dispose([x, moved, want]);
});

test('incremental beam search: a batch decodes as its images one at a time', () => {
  const model = transformer(false);
  const x = input();
  for (const options of [
    { beamSize: 5, alpha: 0.6, maxLen: 8 },
    { beamSize: 4, alpha: 0.6, maxLen: 8, earlyStopping: 'heuristic' as const },
  ]) {
    const batched = beamSearch(model, x, options);
    for (let b = 0; b < 4; b++) {
      const one = { visual: x.visual.slice([b, 0, 0], [1, -1, -1]), visualMask: x.visualMask.slice([b, 0], [1, -1]) };
      const alone = beamSearch(model, one, options);
      disposeInput(one);
      assert.deepEqual(alone.tokens[0], batched.tokens[b], `image ${b}`);
      assert.ok(Math.abs(alone.scores[0] - batched.scores[b]) < 1e-4);
    }
  }
  disposeInput(x);
  model.dispose();
});
