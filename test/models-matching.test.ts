import { strict as assert } from 'node:assert';
import { before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { DEFAULT_MATCHING, MatchingModel, type MatchingConfig } from '../src/models/matching';
import { DEFAULT_TRANSFORMER, TransformerCaptioner } from '../src/models/transformer';
import { BOS_ID, EOS_ID, PAD_ID } from '../src/text/tokens';
import { initBackend } from '../src/tf/backend';

const V = 24;
const DV = 6;

function config(over: Partial<MatchingConfig> = {}): MatchingConfig {
  return { ...DEFAULT_MATCHING, dModel: 16, heads: 2, ffn: 32, embedDim: 8, maxPositions: 12, vocabSize: V, visualDim: DV, dropout: 0, ...over };
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

test('matching: embedding shapes, unit norm, and a loss of ln B for identical embeddings', () => {
  const model = new MatchingModel(config());
  tf.tidy(() => {
    const img = model.embedImages({ visual: visual(3, 4), visualMask: tf.ones([3, 4]) as tf.Tensor2D });
    const txt = model.embedTexts(
      tf.tensor2d(
        [
          [BOS_ID, 5, 6, EOS_ID],
          [BOS_ID, 7, EOS_ID, PAD_ID],
          [BOS_ID, 8, 9, 10],
        ],
        [3, 4],
        'int32',
      ),
    );
    assert.deepEqual(img.shape, [3, 8]);
    assert.deepEqual(txt.shape, [3, 8]);
    for (const e of [img, txt]) for (const n of e.norm('euclidean', 1).arraySync() as number[]) assert.ok(Math.abs(n - 1) < 1e-5);
    assert.deepEqual(model.similarity(img, txt).shape, [3, 3]);
    const loss = model.contrastiveLoss(img, txt);
    assert.deepEqual(loss.shape, []);
    assert.ok(Number.isFinite(loss.dataSync()[0]));
    // every image equal to every caption: all logits equal, so each softmax is uniform → ln B
    const same = tf.tensor2d([
      [1, 0],
      [1, 0],
      [1, 0],
    ]);
    assert.ok(Math.abs(model.contrastiveLoss(same, same).dataSync()[0]! - Math.log(3)) < 1e-5);
  });
  assert.ok(Math.abs(model.temperature() - 0.07) < 1e-6);
  assert.ok(model.variables().has('logit_scale'));
  assert.ok(!new MatchingModel(config({ learnTemperature: false })).variables().has('logit_scale'));
  model.dispose();
});

test('matching: the loss is symmetric InfoNCE with the temperature', () => {
  const model = new MatchingModel(config({ learnTemperature: false, temperature: 0.5 }));
  tf.tidy(() => {
    const img = tf.tensor2d([
      [1, 0],
      [0, 1],
    ]);
    const txt = tf.tensor2d([
      [0.6, 0.8],
      [0, 1],
    ]);
    // logits = img·txtᵀ / 0.5 = [[1.2, 0], [1.6, 2]]
    const lse = (a: number, b: number): number => Math.log(Math.exp(a) + Math.exp(b));
    const i2t = (lse(1.2, 0) - 1.2 + lse(1.6, 2) - 2) / 2;
    const t2i = (lse(1.2, 1.6) - 1.2 + lse(0, 2) - 2) / 2;
    assert.ok(Math.abs(model.contrastiveLoss(img, txt).dataSync()[0]! - (i2t + t2i) / 2) < 1e-5);
  });
  model.dispose();
});

test('matching: padding tokens and padded visual positions do not change the embeddings', () => {
  const model = new MatchingModel(config({ geometryDim: 5 }));
  tf.tidy(() => {
    const tokens = tf.tensor2d(
      [
        [BOS_ID, 5, 6, EOS_ID],
        [BOS_ID, 7, EOS_ID, PAD_ID],
      ],
      [2, 4],
      'int32',
    );
    const padded = tf.concat([tokens, tf.fill([2, 3], PAD_ID, 'int32')], 1) as tf.Tensor2D;
    const a = model.embedTexts(tokens);
    const b = model.embedTexts(padded);
    assert.ok(maxAbsDiff(a, b) < 1e-5, `text padding changed the embedding by ${maxAbsDiff(a, b)}`);
    // row 1 with its padding made real tokens differs
    assert.ok(
      maxAbsDiff(
        a,
        model.embedTexts(
          tf.tensor2d(
            [
              [BOS_ID, 5, 6, EOS_ID],
              [BOS_ID, 7, EOS_ID, 9],
            ],
            [2, 4],
            'int32',
          ),
        ),
      ) > 1e-4,
    );

    const vis = visual(2, 3);
    const geo = tf.tensor3d(values(2 * 3 * 5, 4), [2, 3, 5]);
    const imgA = model.embedImages({ visual: vis, visualMask: tf.ones([2, 3]) as tf.Tensor2D, geometry: geo });
    const imgB = model.embedImages({
      visual: tf.concat([vis, visual(2, 2, 99)], 1) as tf.Tensor3D,
      visualMask: tf.tensor2d([
        [1, 1, 1, 0, 0],
        [1, 1, 1, 0, 0],
      ]),
      geometry: tf.concat([geo, tf.ones([2, 2, 5])], 1) as tf.Tensor3D,
    });
    assert.ok(maxAbsDiff(imgA, imgB) < 1e-5, `visual padding changed the embedding by ${maxAbsDiff(imgA, imgB)}`);
  });
  model.dispose();
});

test('matching: without tagInputs the built-in image encoder refuses tags; an external one needs imageDim', () => {
  const model = new MatchingModel(config());
  tf.tidy(() => {
    const tags = tf.tensor2d([[5]], [1, 1], 'int32');
    assert.throws(() => model.embedImages({ visual: visual(1, 2), visualMask: tf.ones([1, 2]) as tf.Tensor2D, tags }), /without tag inputs/);
  });
  assert.throws(() => new MatchingModel(config(), { imageEncoder: () => model.embedImages as never }), /imageDim/);
  model.dispose();
});

test('matching with tagInputs (CC12M §3.3): tags change the image embedding, padded tags do not, other weights as without tags', () => {
  const plain = new MatchingModel(config());
  const tagged = new MatchingModel(config({ tagInputs: true }));
  assert.deepEqual(
    [...tagged.variables().keys()].filter((k) => !plain.variables().has(k)),
    ['img_tag_segment'],
    'one new vector: tags share the text side’s word embeddings',
  );
  tf.tidy(() => {
    for (const [name, v] of plain.variables()) assert.ok(maxAbsDiff(v, tagged.variables().get(name)!) === 0, `${name} drew other initial weights`);
    const vis = visual(2, 3);
    const mask = tf.ones([2, 3]) as tf.Tensor2D;
    const none = tagged.embedImages({ visual: vis, visualMask: mask });
    const tags = tf.tensor2d(
      [
        [5, 6],
        [7, PAD_ID],
      ],
      [2, 2],
      'int32',
    );
    const withTags = tagged.embedImages({ visual: vis, visualMask: mask, tags });
    assert.ok(maxAbsDiff(none, withTags) > 1e-4, 'the tags reach the image embedding');
    assert.ok(maxAbsDiff(none, plain.embedImages({ visual: vis, visualMask: mask })) < 1e-6, 'without tags, the same model as before');
    const padded = tagged.embedImages({ visual: vis, visualMask: mask, tags: tf.concat([tags, tf.fill([2, 2], PAD_ID, 'int32')], 1) as tf.Tensor2D });
    assert.ok(maxAbsDiff(withTags, padded) < 1e-5, 'padding tags change nothing');
  });
  plain.dispose();
  tagged.dispose();
});

test('matching: the same seed gives the same weights; another seed does not; dropout is seeded', () => {
  const a = new MatchingModel(config({ seed: 3 }));
  const b = new MatchingModel(config({ seed: 3 }));
  const c = new MatchingModel(config({ seed: 4 }));
  assert.deepEqual([...a.variables().keys()], [...b.variables().keys()]);
  for (const [name, v] of a.variables()) assert.equal(maxAbsDiff(v, b.variables().get(name)!), 0, name);
  assert.ok(maxAbsDiff(a.variables().get('txt_word_emb')!, c.variables().get('txt_word_emb')!) > 0);
  for (const m of [a, b, c]) m.dispose();

  const drop = new MatchingModel(config({ dropout: 0.3 }));
  tf.tidy(() => {
    const tokens = tf.tensor2d([[BOS_ID, 5, 6, EOS_ID]], [1, 4], 'int32');
    const run = (step: number): tf.Tensor => {
      drop.setDropoutStep(step);
      return drop.embedTexts(tokens, true);
    };
    assert.equal(maxAbsDiff(run(2), run(2)), 0);
    assert.ok(maxAbsDiff(run(2), run(3)) > 1e-5);
    assert.equal(maxAbsDiff(drop.embedTexts(tokens), drop.embedTexts(tokens)), 0);
  });
  drop.dispose();
});

/** B images (distinct random vectors) each paired with its own distinct caption. */
function pairs(B: number): { visual: tf.Tensor3D; visualMask: tf.Tensor2D; tokens: tf.Tensor2D } {
  const tokens = Array.from({ length: B }, (_, b) => [BOS_ID, 5 + b, 5 + B + b, EOS_ID]);
  return { visual: visual(B, 2, 21), visualMask: tf.ones([B, 2]) as tf.Tensor2D, tokens: tf.tensor2d(tokens, [B, 4], 'int32') };
}

function trainSteps(model: MatchingModel, vars: tf.Variable[], steps: number): number[] {
  const batch = pairs(6);
  const optimizer = tf.train.adam(0.01);
  const losses: number[] = [];
  for (let step = 0; step < steps; step++) {
    model.setDropoutStep(step);
    const loss = optimizer.minimize(() => model.contrastiveLoss(model.embedImages(batch, true), model.embedTexts(batch.tokens, true)), true, vars)!;
    losses.push(loss.dataSync()[0]!);
    loss.dispose();
  }
  optimizer.dispose();
  tf.dispose([batch.visual, batch.visualMask, batch.tokens]);
  return losses;
}

test('matching: a few Adam steps make matched pairs win the batch softmax', () => {
  const model = new MatchingModel(config({ seed: 5 }));
  const losses = trainSteps(model, [...model.variables().values()], 15);
  assert.ok(losses.at(-1)! < losses[0]! * 0.5, `loss ${losses[0]} → ${losses.at(-1)}`);
  // after training, each image's best caption is its own
  tf.tidy(() => {
    const batch = pairs(6);
    const sims = model.similarity(model.embedImages(batch), model.embedTexts(batch.tokens));
    assert.deepEqual(Array.from(sims.argMax(1).dataSync()), [0, 1, 2, 3, 4, 5]);
    assert.deepEqual(Array.from(sims.argMax(0).dataSync()), [0, 1, 2, 3, 4, 5]);
  });
  model.dispose();
});

test('matching: a shared captioner encoder (IC+VLM) is trained through the matching loss', () => {
  const captioner = new TransformerCaptioner({
    ...DEFAULT_TRANSFORMER,
    vocabSize: V,
    visualDim: DV,
    dModel: 16,
    heads: 2,
    ffn: 32,
    encoderLayers: 1,
    decoderLayers: 1,
    dropout: 0,
  });
  const model = new MatchingModel(config({ seed: 5 }), { imageEncoder: (input, training) => captioner.encode(input, training), imageDim: 16 });
  assert.ok(![...model.variables().keys()].some((k) => k.startsWith('img_enc') || k === 'img_visual_proj_w'));
  assert.ok(model.variables().has('img_head_w'));
  const projBefore = captioner.variables().get('visual_proj_w')!.clone();
  const losses = trainSteps(model, [...model.variables().values(), ...captioner.variables().values()], 15);
  assert.ok(losses.at(-1)! < losses[0]! * 0.5, `loss ${losses[0]} → ${losses.at(-1)}`);
  assert.ok(maxAbsDiff(projBefore, captioner.variables().get('visual_proj_w')!) > 0, 'the shared encoder was not updated');
  projBefore.dispose();
  model.dispose();
  captioner.dispose();
});

test('matching: no tensors leak across embed / loss calls', () => {
  const model = new MatchingModel(config({ dropout: 0.1 }));
  const batch = pairs(3);
  const once = (): void => {
    const img = model.embedImages(batch, true);
    const txt = model.embedTexts(batch.tokens, true);
    const loss = model.contrastiveLoss(img, txt);
    const sims = model.similarity(img, txt);
    tf.dispose([img, txt, loss, sims]);
  };
  once();
  const start = tf.memory().numTensors;
  for (let i = 0; i < 3; i++) once();
  assert.equal(tf.memory().numTensors, start);
  assert.equal(typeof model.temperature(), 'number');
  assert.equal(tf.memory().numTensors, start);
  model.dispose();
  tf.dispose([batch.visual, batch.visualMask, batch.tokens]);
});
