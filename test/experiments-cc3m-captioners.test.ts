/**
 * CC3M Tables 4–7 (src/experiments/cc3m/tables4-7.ts) on tiny inputs: the 8-run grid and its recipe (CC3M's
 * training settings), the URL-hash split of the pool, the paper cells (n/a where paper-numbers.json has none), the
 * tables over seeds, the claims (pairs compared within model / features / training, sign flipped for rates where
 * lower is better), reading a run's stored test scores back with the judge's GOOD share, and the LSTM on a one-step
 * visual sequence (the 1×1 setting). The notebook (notebooks/05-cc3m-captioners.ipynb, test/notebooks.test.ts)
 * runs the grid on the world.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';

import { DECODE_PRESETS, describeDecoder, evaluateRun } from '../src/decode';
import { devCheckpoint } from '../src/experiments/plan';
import {
  captionerFeatureSpec,
  captionerTrainConfig,
  isGoodVerdict,
  storedTest,
  type CaptionerResult,
  type CaptionerRow,
  type TestScores,
} from '../src/experiments/cc3m/tables4-7';
import {
  cocoCaptionsOf,
  captionerVariants,
  conceptualTestImages,
  splitCocoFile,
  splitPool,
  type CaptionerInputs,
  type CaptionerTest,
} from '../src/experiments/cc3m/tables4-7-grid';
import {
  CAPTIONER_CLAIMS,
  captionerClaimList,
  captionerClaims,
  captionerJudgeRows,
  captionerPaper,
  captionerPaperGood,
  captionerTableRows,
  claimDifferences,
  NO_PAPER_NUMBER,
} from '../src/experiments/cc3m/tables4-7-report';
import { splitOf } from '../src/experiments/cc3m-dataset';
import { RECIPES } from '../src/experiments/recipe';
import { readEvalImages } from '../src/train/data';
import { DEFAULT_LSTM, LstmCaptioner } from '../src/models/lstm';
import { initBackend } from '../src/tf/backend';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-cc3m-captioners-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
before(async () => {
  await initBackend({ order: ['cpu'], logger: () => undefined });
});

const recipe = RECIPES.tiny;
const inputs: CaptionerInputs = {
  cocoTrain: '/data/coco/captions_train.json',
  conceptualTrain: '/data/cc3m/conceptual-train.tsv',
  cocoTest: '/data/coco/captions_val.json',
  flickrTest: '/data/flickr/captions.json',
  conceptualTest: '/data/cc3m/conceptual-test.json',
};

test('the grid: 8 runs named as paper-numbers.json names the rows, in the paper order', () => {
  const labels = captionerVariants().map((v) => v.label);
  assert.deepEqual(labels, [
    'RNN1x1_coco',
    'RNN8x8_coco',
    'T2T1x1_coco',
    'T2T8x8_coco',
    'RNN1x1_conceptual',
    'RNN8x8_conceptual',
    'T2T1x1_conceptual',
    'T2T8x8_conceptual',
  ]);
  // every label has its paper row in Tables 5–7
  for (const label of labels)
    for (const t of ['table5', 'table6', 'table7'] as const) assert.equal(typeof captionerPaper(t, label, 'CIDEr'), 'number', `${t} ${label}`);
});

test("the recipe is CC3M's training: Adagrad 0.01, batch 25, 15 tokens, min count 4, tied embeddings, beam 4", () => {
  for (const v of captionerVariants()) {
    const c = captionerTrainConfig(recipe, v, inputs);
    assert.deepEqual(c.optimizer, { name: 'adagrad', lr: 0.01, decay: 'none' });
    assert.equal(c.batchSize, 25);
    assert.equal(c.data.maxCaptionLen, 15);
    assert.equal(c.vocab.minCount, 4);
    assert.equal(c.model.overrides?.tieEmbeddings, true);
    assert.equal(c.model.kind, v.model === 'RNN' ? 'lstm' : 'transformer');
    assert.deepEqual(c.objectives, { ic: 1 });
    assert.equal(c.steps, recipe.captioners.stage.steps);
    // the training data decides the source; nothing else differs between the two trainings of one model
    assert.deepEqual(c.data.train, v.training === 'coco' ? [{ kind: 'coco', path: inputs.cocoTrain }] : [{ kind: 'tsv', path: inputs.conceptualTrain }]);
    assert.equal(captionerFeatureSpec(recipe, v.features).mode, v.features === '1x1' ? 'global' : 'grid');
    assert.equal(captionerFeatureSpec(recipe, v.features).tags, false);
  }
  assert.equal(describeDecoder(recipe.captioners.decode), 'beam4 α0.6 max15 heuristic-stop');
  // run names differ per variant, so no two runs share an id
  assert.equal(new Set(captionerVariants().map((v) => captionerTrainConfig(recipe, v, inputs).name)).size, 8);
});

test('splitPool: train, dev and test by URL hash, as splitOf assigns them', () => {
  const rows = Array.from({ length: 400 }, (_, i) => ({ caption: `a dog number ${i}`, url: `world://0/web/${i}.jpg` }));
  const { train, dev, test: held } = splitPool(rows, { validation: 0.1, test: 0.1 });
  assert.ok(held.length > 20 && held.length < 70, `about 10% test, got ${held.length}`);
  assert.ok(dev.length > 20 && dev.length < 70, `about 10% dev, got ${dev.length}`);
  assert.ok(train.length > 260 && train.length < 350, `about 80% train, got ${train.length}`);
  for (const r of train) assert.equal(splitOf(r.url), 'train');
  for (const r of dev) assert.equal(splitOf(r.url), 'validation');
  for (const r of held) assert.equal(splitOf(r.url), 'test');
  assert.equal(train.length + held.length + dev.length, rows.length);
  // a pair keeps its split whatever else is in the pool
  const again = splitPool(rows.slice(0, 50), { validation: 0.1, test: 0.1 });
  assert.deepEqual(
    again.test.map((r) => r.url),
    held.filter((r) => rows.slice(0, 50).includes(r)).map((r) => r.url),
  );
});

test('the dev choice (CC3M §5.2): a dev set adds dev scoring and keeps every checkpoint; without one, the last checkpoint', () => {
  const withDev = { ...inputs, cocoDev: '/data/coco/dev.json', conceptualDev: '/data/cc3m/dev.json' };
  const { every } = recipe.captioners.stage.select!;
  for (const v of captionerVariants()) {
    const c = captionerTrainConfig(recipe, v, withDev);
    assert.equal(c.val?.path, v.training === 'coco' ? withDev.cocoDev : withDev.conceptualDev);
    assert.equal(c.val?.every, every);
    assert.equal(c.val?.maxLen, 15);
    assert.equal(c.checkpointEvery, every);
    assert.ok((c.keepCheckpoints ?? 0) * every > recipe.captioners.stage.steps, 'every checkpoint is kept for the choice');
    const none = captionerTrainConfig(recipe, v, inputs);
    assert.equal(none.val, undefined);
    assert.equal(none.checkpointEvery, recipe.captioners.stage.steps);
  }
});

test('devCheckpoint: the kept checkpoint of the best logged dev CIDEr, ties to the earlier, the last line of a step', async () => {
  const run = path.join(tmp, 'dev-run');
  const keep = (step: number) => {
    fs.mkdirSync(path.join(run, 'checkpoints', `step-${String(step).padStart(7, '0')}`), { recursive: true });
    fs.writeFileSync(path.join(run, 'checkpoints', `step-${String(step).padStart(7, '0')}`, 'model.json'), '{}');
  };
  for (const step of [50, 100, 150]) keep(step);
  const line = (step: number, cider?: number) =>
    JSON.stringify({ step, time: 't', ...(cider === undefined ? { loss: { total: 1 } } : { val: { CIDEr: cider } }) });
  // step 100 is logged twice (a resumed run): its last line counts; step 200 has no kept checkpoint
  fs.writeFileSync(
    path.join(run, 'log.jsonl'),
    [line(50, 0.1), line(100, 0.5), line(100, 0.2), line(150, 0.2), line(150), line(200, 0.9), '{"torn'].join('\n'),
  );
  const best = await devCheckpoint(run);
  assert.equal(best.step, 100, 'ties (0.2 at 100 and 150) go to the earlier');
  assert.equal(best.cider, 0.2);
  assert.equal(path.basename(best.dir), 'step-0000100');
  assert.deepEqual(
    best.curve.map((p) => [p.step, p.cider]),
    [
      [50, 0.1],
      [100, 0.2],
      [150, 0.2],
      [200, 0.9],
    ],
  );
  // a kept checkpoint the log has no dev CIDEr for is an error naming it, and so is a run with no checkpoints
  keep(250);
  await assert.rejects(devCheckpoint(run), /no dev CIDEr logged at the kept checkpoint of step 250/);
  await assert.rejects(devCheckpoint(path.join(tmp, 'no-such-run')), /no checkpoints to choose from/);
});

test("splitCocoFile: a COCO-format file's images by URL hash into dev and test, each with all its references and the source's info", () => {
  const file = path.join(tmp, 'captions_val.json');
  const images = Array.from({ length: 200 }, (_, id) => ({ id, coco_url: `world://7/coco-val/${id}.jpeg` }));
  const annotations = images.flatMap((img) => [0, 1].map((k) => ({ id: 2 * img.id + k, image_id: img.id, caption: `caption ${k} of ${img.id}` })));
  fs.writeFileSync(file, JSON.stringify({ info: { description: 'x' }, images, annotations }));
  const out = { dev: path.join(tmp, 'coco-dev.json'), test: path.join(tmp, 'coco-test.json') };
  splitCocoFile(file, 0.5, out);
  const dev = JSON.parse(fs.readFileSync(out.dev, 'utf8'));
  const held = JSON.parse(fs.readFileSync(out.test, 'utf8'));
  assert.equal(dev.images.length + held.images.length, 200);
  assert.ok(dev.images.length > 70 && dev.images.length < 130, `about half dev, got ${dev.images.length}`);
  assert.deepEqual(dev.info, { description: 'x' });
  assert.equal(dev.annotations.length, 2 * dev.images.length);
  const devIds = new Set(dev.images.map((i: { id: number }) => i.id));
  assert.ok(held.images.every((i: { id: number }) => !devIds.has(i.id)));
  assert.ok(dev.annotations.every((a: { image_id: number }) => devIds.has(a.image_id)));
  // rows as a dev file: one reference each, read back as evaluation images
  const rows = [
    { caption: 'a dog', url: 'world://0/web/1.jpeg' },
    { caption: 'a cat', url: 'world://0/web/2.jpeg' },
  ];
  fs.writeFileSync(path.join(tmp, 'rows-dev.json'), JSON.stringify(cocoCaptionsOf(rows)));
  assert.deepEqual(
    readEvalImages({ path: path.join(tmp, 'rows-dev.json') }).map((i) => [i.key, i.references]),
    rows.map((r) => [r.url, [r.caption]]),
  );
});

test('conceptualTestImages: one reference each, the truth as objects when given', () => {
  const rows = [
    { caption: 'a dog on the grass', url: 'u0' },
    { caption: 'person at a concert', url: 'u1' },
  ];
  const images = conceptualTestImages(rows, new Map([['u0', ['dog']]]));
  assert.deepEqual(images[0], { key: 'u0', imageId: 0, references: ['a dog on the grass'], objects: ['dog'] });
  assert.deepEqual(images[1], { key: 'u1', imageId: 1, references: ['person at a concert'] });
});

test('paper cells: the values of paper-numbers.json, n/a where it has none', () => {
  assert.equal(captionerPaper('table5', 'RNN8x8_coco', 'CIDEr'), 1.044);
  assert.equal(captionerPaper('table5', 'RNN8x8_coco', 'ROUGE_L'), 0.698);
  assert.equal(captionerPaper('table5', 'RNN8x8_coco', 'METEOR'), 0.354);
  assert.equal(captionerPaper('table6', 'T2T8x8_conceptual', 'SPICE'), 0.257);
  assert.equal(captionerPaper('table7', 'T2T1x1_conceptual', 'ROUGE_L'), 0.28);
  assert.equal(captionerPaper('table5', 'RNN8x8_coco', 'SPICE'), undefined, 'Table 5 has no SPICE column');
  assert.equal(captionerPaperGood('T2T8x8_conceptual', '3+'), 0.355);
  assert.equal(captionerPaperGood('RNN8x8_coco', '1+'), 0.39);
  assert.equal(captionerPaperGood('RNN1x1_coco', '1+'), undefined, 'the paper rated only the 8×8 models');
});

/** A row with every metric = `base` (+ per-test offsets) and the judge's figures. */
function row(
  label: string,
  scores: Partial<Record<CaptionerTest, number>>,
  judge: { good: number; chairS: number } = { good: 0.5, chairS: 0.3 },
  distinct = 10,
): CaptionerRow {
  const v = captionerVariants().find((x) => x.label === label)!;
  const tests = {} as Record<CaptionerTest, TestScores>;
  for (const t of ['coco', 'conceptual', 'flickr'] as const) {
    const x = scores[t] ?? 0.1;
    tests[t] = {
      metrics: { CIDEr: x, ROUGE_L: x / 2, METEOR: x / 4, SPICE: x / 8 },
      judged: { recall: 0.6, specificRecall: 0.5, objectRecall: 0.4, chairS: judge.chairS, chairI: judge.chairS / 2, captions: 10, good: judge.good },
      images: 10,
      distinct,
    };
  }
  return { ...v, run: `run-${label}`, vocabSize: 100, tests, trained: true, captioned: 3 };
}

function result(seed: number, cocoAhead: number, distinct: (label: string) => number = () => 10): CaptionerResult {
  const rows = captionerVariants().map((v) =>
    row(
      v.label,
      // COCO-trained ahead on the COCO-like test by `cocoAhead`, Conceptual-trained ahead on its own test
      v.training === 'coco' ? { coco: 0.5 + cocoAhead, conceptual: 0.1 } : { coco: 0.5, conceptual: 0.3 + (v.model === 'T2T' ? 0.05 : 0) },
      // Conceptual-trained: fewer hallucinations, more GOOD
      v.training === 'coco' ? { good: 0.3, chairS: 0.6 } : { good: 0.4, chairS: 0.2 },
      distinct(v.label),
    ),
  );
  return { seed, recipe, rows, sizes: { cocoTrain: 10, conceptualTrain: 5, coco: 10, conceptual: 10, flickr: 10 }, seconds: 1 };
}

test('tables: measured ×100 (mean ± std over seeds) beside the paper ×100, n/a where the file has none', () => {
  const one = captionerTableRows([result(0, 0.2)], 'table5');
  assert.equal(one.length, 8);
  assert.deepEqual(one[1], {
    model: 'RNN 8×8',
    'trained on': 'COCO-like',
    CIDEr: '70.0',
    'ROUGE-L': '35.0',
    METEOR: '17.5',
    'paper CIDEr': '104.4',
    'paper ROUGE-L': '69.8',
    'paper METEOR': '35.4',
  });
  const two = captionerTableRows([result(0, 0.2), result(1, 0.4)], 'table5');
  assert.equal(two[0]!.CIDEr, '80.0 ± 14.1');
  const t6 = captionerTableRows([result(0, 0.2)], 'table6');
  assert.ok('SPICE' in t6[0]! && !('METEOR' in t6[0]!));
  const judge = captionerJudgeRows([result(0, 0.2)]);
  assert.equal(judge[0]!['GOOD %'], '30.0');
  assert.equal(judge[0]!['paper 1+ GOOD %'], NO_PAPER_NUMBER);
  assert.equal(judge[1]!['paper 1+ GOOD %'], '39.0');
  assert.equal(judge[7]!['CHAIR_s %'], '20.0');
});

test('claims: compared pair by pair within the other two dimensions; lower-is-better rates flip the sign', () => {
  const results = [result(0, 0.2), result(1, 0.1)];
  const coco = claimDifferences(results, CAPTIONER_CLAIMS[0]!);
  assert.equal(coco.length, 8, '4 model/feature pairs × 2 seeds');
  assert.deepEqual(
    coco.map((d) => d.pair),
    ['RNN 1x1', 'RNN 8x8', 'T2T 1x1', 'T2T 8x8', 'RNN 1x1', 'RNN 8x8', 'T2T 1x1', 'T2T 8x8'],
  );
  for (const d of coco) assert.ok(Math.abs(d.difference - (d.seed === 0 ? 0.2 : 0.1)) < 1e-12);
  const hallucination = CAPTIONER_CLAIMS.find((c) => c.measure === 'judge:chairS')!;
  for (const d of claimDifferences(results, hallucination)) assert.ok(Math.abs(d.difference - 0.4) < 1e-12, 'CHAIR_s 0.6 − 0.2, the claim’s way');
  const good8x8 = CAPTIONER_CLAIMS.find((c) => c.measure === 'judge:good' && c.compare.dimension === 'training')!;
  assert.equal(claimDifferences(results, good8x8).length, 4, 'only the 8×8 pairs');
  const t2t = CAPTIONER_CLAIMS.find((c) => c.compare.dimension === 'model' && c.test === 'conceptual')!;
  for (const d of claimDifferences(results, t2t)) assert.ok(Math.abs(d.difference - 0.05) < 1e-12);
  const table = captionerClaims(results);
  assert.equal(table.length, CAPTIONER_CLAIMS.length);
  assert.equal(table[0]!.verdict, 'undecided', 'two seeds, +20 and +10: t(1) is too wide');
  assert.equal(table[0]!['the claim’s way'], '8 of 8 testable (8 pairs)');
  assert.match(table[0]!.here, /^RNN 1x1: \+20\.0 \/ \+10\.0; RNN 8x8/);
  // each seed's estimate is the mean of its pairs; three seeds of +20, +10, +15 decide it
  const three = captionerClaims([...results, result(2, 0.15)]);
  assert.equal(three[0]!.verdict, 'holds');
  assert.equal(three[0]!['mean over seeds [95% interval]'], '+15.0 [+2.6, +27.4]');
  // COCO-trained behind on the COCO-like test on one seed: undecided, and the count says how far
  const mixed = captionerClaims([result(0, 0.2), result(1, -0.1)]);
  assert.equal(mixed[0]!.verdict, 'undecided');
  assert.equal(mixed[0]!['the claim’s way'], '4 of 8 testable (8 pairs)');
  // equal T2T/RNN on the Flickr-like GOOD share: inside the GOOD % margin, no difference (not a win)
  assert.equal(table.find((c) => c.claim.startsWith('T2T is judged GOOD'))!.verdict, 'no difference');
});

test('claims over collapsed captioners: a pair is testable only when both runs write a quarter of distinct captions', () => {
  assert.equal(recipe.captioners.minDistinctShare, 0.25);
  // the RNN runs repeat two captions over 10 images (below 2.5 distinct); the T2T runs write 3 or more
  const collapsedRnn = (label: string) => (label.startsWith('RNN') ? 2 : 3);
  const results = [result(0, 0.2, collapsedRnn), result(1, -0.1, collapsedRnn)];
  const diffs = claimDifferences(results, CAPTIONER_CLAIMS[0]!);
  assert.deepEqual(
    diffs.map((d) => [d.pair, d.testable]),
    [
      ['RNN 1x1', false],
      ['RNN 8x8', false],
      ['T2T 1x1', true],
      ['T2T 8x8', true],
      ['RNN 1x1', false],
      ['RNN 8x8', false],
      ['T2T 1x1', true],
      ['T2T 8x8', true],
    ],
  );
  const table = captionerClaims(results);
  assert.equal(table[0]!['the claim’s way'], '2 of 4 testable (8 pairs)');
  assert.equal(table[0]!.verdict, 'undecided');
  assert.match(table[0]!.here, /RNN 1x1: \+20\.0 \(not testable\)/);
  assert.deepEqual(
    captionerClaimList(results)[0]!.differences.map((d) => Math.round(d)),
    [20, -10],
    'each seed’s mean over its testable pairs only',
  );
  // T2T vs RNN: every pair has a collapsed RNN run
  const modelClaim = captionerClaims(results).find((c) => c.claim.startsWith('T2T beats RNN'))!;
  assert.equal(modelClaim.verdict, 'not testable');
  const everyoneCollapsed = captionerClaims([result(0, 0.2, () => 1)]);
  assert.ok(everyoneCollapsed.every((c) => c.verdict === 'not testable'));
});

test('isGoodVerdict: a present object named (by name or kind) and no absent one', () => {
  assert.equal(isGoodVerdict({ named: ['dog'], byKind: [], hallucinated: [] }), true);
  assert.equal(isGoodVerdict({ named: [], byKind: ['animal'], hallucinated: [] }), true);
  assert.equal(isGoodVerdict({ named: ['dog'], byKind: [], hallucinated: ['cat'] }), false);
  assert.equal(isGoodVerdict({ named: [], hallucinated: [] }), false);
});

test("storedTest: a run's stored test split read back with every metric and the judge's GOOD share", () => {
  const runDir = path.join(tmp, 'run-a');
  const decode = recipe.captioners.decode;
  const decoder = describeDecoder(decode);
  const cases = [
    { imageId: '0', references: ['a dog on the grass', 'a brown dog lying on grass'], candidate: 'a dog on the grass', objects: ['dog'] },
    { imageId: '1', references: ['a cat on a sofa', 'a cat sleeping'], candidate: 'a dog on a sofa', objects: ['cat'] },
    { imageId: '2', references: ['a red car', 'a car on a street'], candidate: 'a car on a street', objects: ['car'] },
  ];
  assert.equal(storedTest(runDir, 'flickr', decode), undefined, 'nothing stored yet');
  evaluateRun(cases, { runDir, split: 'cc3m-flickr-test', decoder, metrics: ['rouge', 'cider'] });
  assert.equal(storedTest(runDir, 'flickr', decode), undefined, 'stored without METEOR and SPICE: scored again');
  evaluateRun(cases, { runDir, split: 'cc3m-flickr-test', decoder, metrics: ['rouge', 'cider', 'meteor', 'spice'] });
  const stored = storedTest(runDir, 'flickr', decode)!;
  assert.ok(stored, 'read back');
  assert.equal(stored.images, 3);
  for (const m of ['CIDEr', 'ROUGE_L', 'METEOR', 'SPICE'] as const) assert.ok(stored.metrics[m] > 0 && Number.isFinite(stored.metrics[m]), m);
  // the second caption names a dog on a cat's image: 2 of 3 GOOD, 1 of 3 hallucinating
  assert.ok(Math.abs(stored.judged!.good - 2 / 3) < 1e-12);
  assert.ok(Math.abs(stored.judged!.chairS - 1 / 3) < 1e-12);
  assert.equal(storedTest(runDir, 'flickr', { ...DECODE_PRESETS.greedy, maxLen: 15 }), undefined, 'another decoder: decoded again');
});

test('lstm: trains on a one-step visual sequence (the 1×1 setting): finite gradients for every variable', () => {
  const model = new LstmCaptioner({ ...DEFAULT_LSTM, hidden: 8, embedding: 8, vocabSize: 12, visualDim: 5, dropout: 0, tieEmbeddings: true });
  const tokens = tf.tensor2d(
    [
      [1, 4, 5, 2],
      [1, 6, 2, 0],
    ],
    [2, 4],
    'int32',
  );
  const visual = tf.tensor3d(
    Array.from({ length: 10 }, (_, i) => Math.sin(i)),
    [2, 1, 5],
  );
  const { value, grads } = tf.variableGrads(() =>
    tf.tidy(() => {
      const enc = model.encode({ visual, visualMask: tf.ones([2, 1]) as tf.Tensor2D }, true);
      const logits = model.decode(enc, tokens, true);
      return tf.losses.softmaxCrossEntropy(tf.oneHot(tokens.reshape([8]), 12), logits.reshape([8, 12])) as tf.Scalar;
    }),
  );
  assert.ok(Number.isFinite(value.dataSync()[0]!));
  // every variable gets a finite gradient, the visual projection included: the image reaches the loss through the
  // one encoder step (before the fix, tfjs's Unpack gradient threw here)
  assert.equal(Object.keys(grads).length, model.variables().size);
  for (const [name, g] of Object.entries(grads)) assert.ok(g.dataSync().every(Number.isFinite), name);
  const nonzero = Object.values(grads).filter((g) => g.abs().sum().dataSync()[0]! > 0).length;
  assert.equal(nonzero, model.variables().size);
  model.dispose();
});
