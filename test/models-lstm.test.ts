import { strict as assert } from 'node:assert';
import { before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { DEFAULT_LSTM, LSTM_SIZES, LstmCaptioner, type LstmConfig } from '../src/models/lstm';
import { BOS_ID, EOS_ID, PAD_ID } from '../src/text/tokens';
import { initBackend } from '../src/tf/backend';

const V = 20;
const DV = 6;

function config(over: Partial<LstmConfig> = {}): LstmConfig {
  return { ...DEFAULT_LSTM, hidden: 16, embedding: 12, vocabSize: V, visualDim: DV, dropout: 0, ...over };
}

/** Deterministic values in [-1, 1). */
function values(n: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

function visual(B: number, N: number, seed = 7): tf.Tensor3D {
  return tf.tensor3d(values(B * N * DV, seed), [B, N, DV]);
}

function maxAbsDiff(a: tf.Tensor, b: tf.Tensor): number {
  return tf.tidy(() => a.sub(b).abs().max().dataSync()[0]!);
}

before(async () => {
  await initBackend({ order: ['cpu'], logger: () => undefined });
});

test('lstm: shapes of encode, decode and tileEncoded; presets carry the paper size', () => {
  assert.equal(LSTM_SIZES.paper.hidden, 512);
  assert.equal(LSTM_SIZES.paper.embedding, 512);
  const model = new LstmCaptioner(config());
  assert.equal(model.kind, 'lstm');
  tf.tidy(() => {
    const tags = tf.tensor2d(
      [
        [5, 6, PAD_ID],
        [7, PAD_ID, PAD_ID],
      ],
      [2, 3],
      'int32',
    );
    const enc = model.encode({ visual: visual(2, 4), visualMask: tf.ones([2, 4]) as tf.Tensor2D, tags });
    assert.deepEqual(enc.memory.shape, [2, 7, 16]);
    assert.deepEqual(enc.mask.shape, [2, 7]);
    assert.deepEqual(enc.mask.arraySync(), [
      [1, 1, 1, 1, 1, 1, 0],
      [1, 1, 1, 1, 1, 0, 0],
    ]);
    assert.equal(enc.state?.length, 2);
    assert.deepEqual(enc.state![0]!.shape, [2, 16]);
    assert.deepEqual(enc.state![1]!.shape, [2, 16]);
    const tokens = tf.tensor2d(
      [
        [BOS_ID, 8, 9],
        [BOS_ID, 10, EOS_ID],
      ],
      [2, 3],
      'int32',
    );
    const logits = model.decode(enc, tokens);
    assert.deepEqual(logits.shape, [2, 3, V]);
    const tiled = model.tileEncoded(enc, 3);
    assert.deepEqual(tiled.memory.shape, [6, 7, 16]);
    assert.deepEqual(tiled.mask.shape, [6, 7]);
    assert.deepEqual(tiled.state![0]!.shape, [6, 16]);
    // tiled row b*3+k decodes exactly as row b
    const tiledLogits = model.decode(tiled, tf.gather(tokens, [0, 0, 0, 1, 1, 1]));
    assert.ok(maxAbsDiff(tiledLogits, tf.gather(logits, [0, 0, 0, 1, 1, 1])) < 1e-6);
  });
  model.dispose();
});

test('lstm: tied embeddings, with and without a hidden → embedding projection', () => {
  for (const [hidden, embedding] of [
    [16, 12],
    [12, 12],
  ] as const) {
    const model = new LstmCaptioner(config({ hidden, embedding, tieEmbeddings: true }));
    assert.ok(!model.variables().has('out_w'));
    assert.equal(model.variables().has('out_proj_w'), hidden !== embedding);
    tf.tidy(() => {
      const enc = model.encode({ visual: visual(1, 3), visualMask: tf.ones([1, 3]) as tf.Tensor2D });
      assert.deepEqual(model.decode(enc, tf.tensor2d([[BOS_ID, 5]], [1, 2], 'int32')).shape, [1, 2, V]);
    });
    model.dispose();
  }
});

test('lstm: padded visual positions (and padded tags) do not change the logits', () => {
  const model = new LstmCaptioner(config({ geometryDim: 5 }));
  tf.tidy(() => {
    const tokens = tf.tensor2d(
      [
        [BOS_ID, 8, 9, 11],
        [BOS_ID, 10, 12, EOS_ID],
      ],
      [2, 4],
      'int32',
    );
    const vis = visual(2, 3);
    const geo = tf.tensor3d(values(2 * 3 * 5, 3), [2, 3, 5]);
    const tags = tf.tensor2d(
      [
        [5, 6],
        [7, PAD_ID],
      ],
      [2, 2],
      'int32',
    );
    const base = model.decode(model.encode({ visual: vis, visualMask: tf.ones([2, 3]) as tf.Tensor2D, geometry: geo, tags }), tokens);
    // two padding positions with arbitrary (non-zero) vectors appended, and a padded tag
    const visPadded = tf.concat([vis, visual(2, 2, 99)], 1) as tf.Tensor3D;
    const geoPadded = tf.concat([geo, tf.ones([2, 2, 5])], 1) as tf.Tensor3D;
    const maskPadded = tf.tensor2d([
      [1, 1, 1, 0, 0],
      [1, 1, 1, 0, 0],
    ]);
    const tagsPadded = tf.concat([tags, tf.fill([2, 1], PAD_ID, 'int32')], 1) as tf.Tensor2D;
    const padded = model.decode(model.encode({ visual: visPadded, visualMask: maskPadded, geometry: geoPadded, tags: tagsPadded }), tokens);
    assert.ok(maxAbsDiff(base, padded) < 1e-6, `padding changed logits by ${maxAbsDiff(base, padded)}`);
    // and the padded vectors would matter if they were not masked
    const unmasked = model.decode(model.encode({ visual: visPadded, visualMask: tf.ones([2, 5]) as tf.Tensor2D, geometry: geoPadded, tags }), tokens);
    assert.ok(maxAbsDiff(base, unmasked) > 1e-4);
  });
  model.dispose();
});

test('lstm: decode is causal (changing token t+1 leaves logits ≤ t unchanged)', () => {
  const model = new LstmCaptioner(config());
  tf.tidy(() => {
    const enc = model.encode({ visual: visual(1, 4), visualMask: tf.ones([1, 4]) as tf.Tensor2D });
    const a = model.decode(enc, tf.tensor2d([[BOS_ID, 5, 6, 7, 8]], [1, 5], 'int32'));
    const b = model.decode(enc, tf.tensor2d([[BOS_ID, 5, 6, 15, 16]], [1, 5], 'int32'));
    assert.ok(maxAbsDiff(a.slice([0, 0, 0], [1, 3, V]), b.slice([0, 0, 0], [1, 3, V])) < 1e-6);
    assert.ok(maxAbsDiff(a.slice([0, 3, 0], [1, 2, V]), b.slice([0, 3, 0], [1, 2, V])) > 1e-5);
  });
  model.dispose();
});

test('lstm: the same seed gives the same weights; another seed does not; forget bias is 1', () => {
  const a = new LstmCaptioner(config({ seed: 5 }));
  const b = new LstmCaptioner(config({ seed: 5 }));
  const c = new LstmCaptioner(config({ seed: 6 }));
  assert.deepEqual([...a.variables().keys()], [...b.variables().keys()]);
  for (const [name, v] of a.variables()) assert.equal(maxAbsDiff(v, b.variables().get(name)!), 0, name);
  assert.ok(maxAbsDiff(a.variables().get('enc_lstm_w')!, c.variables().get('enc_lstm_w')!) > 0);
  assert.deepEqual(a.variables().get('enc_lstm_w')!.shape, [12 + 16, 4 * 16]);
  const bias = Array.from(a.variables().get('dec_lstm_b')!.dataSync());
  assert.deepEqual(
    bias,
    Array.from({ length: 64 }, (_, i) => (i >= 16 && i < 32 ? 1 : 0)),
  );
  for (const m of [a, b, c]) m.dispose();
});

test('lstm: dropout is seeded by setDropoutStep and off at inference', () => {
  const model = new LstmCaptioner(config({ dropout: 0.3 }));
  tf.tidy(() => {
    const input = { visual: visual(2, 3), visualMask: tf.ones([2, 3]) as tf.Tensor2D };
    const tokens = tf.tensor2d(
      [
        [BOS_ID, 5, 6],
        [BOS_ID, 7, 8],
      ],
      [2, 3],
      'int32',
    );
    const run = (step: number): tf.Tensor => {
      model.setDropoutStep(step);
      return model.decode(model.encode(input, true), tokens, true);
    };
    assert.equal(maxAbsDiff(run(3), run(3)), 0);
    assert.ok(maxAbsDiff(run(3), run(4)) > 1e-5);
    const eval1 = model.decode(model.encode(input), tokens);
    const eval2 = model.decode(model.encode(input), tokens);
    assert.equal(maxAbsDiff(eval1, eval2), 0);
  });
  model.dispose();
});

test('lstm: a few Adam steps reduce the captioning loss on a tiny batch', () => {
  const model = new LstmCaptioner(config({ seed: 2 }));
  const B = 4;
  const vis = visual(B, 2, 11);
  const mask = tf.ones([B, 2]) as tf.Tensor2D;
  // each image has its own caption: BOS w1 w2 EOS (PAD)
  const captions = [
    [BOS_ID, 5, 6, EOS_ID, PAD_ID],
    [BOS_ID, 7, 8, 9, EOS_ID],
    [BOS_ID, 10, 11, EOS_ID, PAD_ID],
    [BOS_ID, 12, 13, 14, EOS_ID],
  ];
  const input = tf.tensor2d(
    captions.map((c) => c.slice(0, -1)),
    [B, 4],
    'int32',
  );
  const target = tf.tensor2d(
    captions.map((c) => c.slice(1)),
    [B, 4],
    'int32',
  );
  const weight = target.notEqual(PAD_ID).toFloat();
  const lossFn = (): tf.Scalar => {
    const logits = model.decode(model.encode({ visual: vis, visualMask: mask }, true), input, true);
    const ce = tf.losses.softmaxCrossEntropy(tf.oneHot(target, V), logits, undefined, 0, tf.Reduction.NONE);
    return ce.mul(weight).sum().div(weight.sum()) as tf.Scalar;
  };
  const optimizer = tf.train.adam(0.02);
  const vars = [...model.variables().values()];
  const losses: number[] = [];
  for (let step = 0; step < 12; step++) {
    model.setDropoutStep(step);
    const loss = optimizer.minimize(lossFn, true, vars)!;
    losses.push(loss.dataSync()[0]!);
    loss.dispose();
  }
  assert.ok(losses[0]! > Math.log(V) * 0.7, `initial loss ${losses[0]} should be near ln V`);
  assert.ok(losses.at(-1)! < losses[0]! * 0.5, `loss ${losses[0]} → ${losses.at(-1)}`);
  optimizer.dispose();
  tf.dispose([vis, mask, input, target, weight]);
  model.dispose();
});

test('lstm: no tensors leak across encode / decode / tileEncoded', () => {
  const model = new LstmCaptioner(config());
  const input = {
    visual: visual(2, 3),
    visualMask: tf.ones([2, 3]) as tf.Tensor2D,
    text: tf.tensor2d(
      [
        [5, PAD_ID],
        [6, 7],
      ],
      [2, 2],
      'int32',
    ),
  };
  const tokens = tf.tensor2d(
    [
      [BOS_ID, 5],
      [BOS_ID, 6],
    ],
    [2, 2],
    'int32',
  );
  const once = (): void => {
    const enc = model.encode(input, true);
    const tiled = model.tileEncoded(enc, 2);
    const tiledTokens = tf.gather(tokens, [0, 0, 1, 1]) as tf.Tensor2D;
    const logits = model.decode(tiled, tiledTokens, true);
    tf.dispose([enc.memory, enc.mask, ...enc.state!, tiled.memory, tiled.mask, ...tiled.state!, tiledTokens, logits]);
  };
  once();
  const before = tf.memory().numTensors;
  for (let i = 0; i < 3; i++) once();
  assert.equal(tf.memory().numTensors, before);
  model.dispose();
  tf.dispose([input.visual, input.visualMask, input.text, tokens]);
});
