import { strict as assert } from 'node:assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '../src/tf/backend';
import { BOS_ID, EOS_ID, PAD_ID, PERSON_TOKEN } from '../src/text/tokens';
import { evaluate, evaluateByDomain } from '../src/metrics/evaluate';
import { loadCocoResults } from '../src/metrics/inputs';
import { readPredictions, readScores } from '../src/runs/layout';
import { toCocoResults, toNocapsSubmission, writeCocoResults, writeNocapsSubmission } from '../src/data/coco';
import { captionFromIds } from '../src/text/vocab';
import { captionImages, CaptionedImage, casesFromPredictions, DECODE_PRESETS, decodeBatch, evaluateRun, scoreCases } from '../src/decode';
import { NgramCaptionModel } from './fixtures/ngram-model';
import { formatEvalTable, runEval } from '../src/cli/eval';
import { PACKAGE_ROOT } from '../src/paths';
import { Vocabulary } from '../src/text/vocab';
import { tempFile } from './helpers';

const NOCAPS = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'nocaps-example');

before(async () => {
  await initBackend({ logger: () => undefined });
});

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-decode-'));
}

const words = ['<pad>', '<bos>', '<eos>', '<unk>', '<mask>', PERSON_TOKEN, 'a', 'dog', 'on', 'grass'];
const vocab = { idToWord: (id: number) => words[id] ?? `w${id}` };

test('token ids → caption: PAD/BOS/MASK dropped, <PERSON> kept, EOS ends it; as Vocabulary.decode', () => {
  assert.equal(captionFromIds([BOS_ID, 5, 8, 6, 9, EOS_ID, PAD_ID], vocab), '<PERSON> on a grass');
  assert.equal(captionFromIds([6, 7, EOS_ID, 8, 9], vocab), 'a dog');
  assert.equal(captionFromIds([6, PAD_ID, 7], vocab), 'a dog');
  assert.equal(captionFromIds([], vocab), '');
  assert.equal(captionFromIds([3, 7, 4], vocab), '<unk> dog');
  const real = new Vocabulary([...words.slice(0, 5), '<PERSON>', 'a', 'dog', 'on', 'grass'], 1);
  for (const ids of [
    [BOS_ID, 5, 8, 6, 9, EOS_ID, PAD_ID],
    [6, 4, 7, EOS_ID, 8],
    [3, 9],
  ])
    assert.equal(captionFromIds(ids, real), real.decode(ids));
});

test('COCO results and nocaps submission writers', () => {
  const preds = [
    { image_id: '17', caption: 'a dog' },
    { image_id: 3, caption: 'grass' },
    { image_id: 'world-5', caption: 'x' },
  ];
  assert.deepEqual(toCocoResults(preds), [
    { image_id: 17, caption: 'a dog' },
    { image_id: 3, caption: 'grass' },
    { image_id: 'world-5', caption: 'x' },
  ]);
  assert.throws(() => toCocoResults([...preds, { image_id: 17, caption: 'again' }]), /\(image_id 17\): a second caption for the same image/);
  assert.throws(() => toNocapsSubmission(preds), /non-negative integers.*world-5/);
  const nocaps = preds.slice(0, 2);
  assert.deepEqual(toNocapsSubmission(nocaps, { expectedIds: [3, 17] }), [
    { image_id: 17, caption: 'a dog' },
    { image_id: 3, caption: 'grass' },
  ]);
  assert.throws(() => toNocapsSubmission(nocaps, { expectedIds: [3, 17, 20] }), /1 nocaps image\(s\) have no caption \(first: 20\)/);
  assert.throws(() => toNocapsSubmission(nocaps, { expectedIds: [3] }), /outside the split \(first: 17\)/);

  const dir = tempDir();
  writeCocoResults(path.join(dir, 'coco.json'), preds);
  writeNocapsSubmission(path.join(dir, 'sub', 'nocaps.json'), nocaps);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, 'coco.json'), 'utf8')), toCocoResults(preds));
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, 'sub', 'nocaps.json'), 'utf8')), toNocapsSubmission(nocaps));
  assert.deepEqual(fs.readdirSync(path.join(dir, 'sub')), ['nocaps.json']); // no temporary left
});

test('evaluateRun writes the run layout with evaluate’s numbers and per-image scores', () => {
  const { cases } = loadCocoResults(path.join(NOCAPS, 'results.json'), path.join(NOCAPS, 'annotations.json'));
  const plain = cases.slice(0, 40).map(({ domain: _domain, ...c }) => c);
  const runDir = path.join(tempDir(), 'run-abc');
  const result = evaluateRun(plain, {
    runDir,
    split: 'coco-val',
    metrics: ['bleu', 'rouge', 'cider'],
    decoder: 'beam5 α0.6 max36',
    extras: { [plain[0].imageId]: { thumb: 'thumbs/0.jpg', url: 'world://0/coco-val/0' } },
    now: new Date('2024-01-02T03:04:05Z'),
  });
  const direct = evaluate(plain, { metrics: ['bleu', 'rouge', 'cider'] });
  assert.deepEqual(result.corpus, direct.corpus);
  assert.equal(result.domains, undefined);

  const predictions = readPredictions(runDir, 'coco-val');
  assert.equal(predictions.run, 'run-abc');
  assert.equal(predictions.decoder, 'beam5 α0.6 max36');
  assert.equal(predictions.created, '2024-01-02T03:04:05.000Z');
  assert.equal(predictions.items.length, 40);
  const first = predictions.items[0];
  assert.equal(first.image_id, Number(plain[0].imageId));
  assert.equal(first.caption, plain[0].candidate);
  assert.deepEqual(first.references, plain[0].references);
  assert.equal(first.thumb, 'thumbs/0.jpg');
  for (const item of predictions.items) {
    assert.deepEqual(Object.keys(item.scores!).sort(), ['Bleu_1', 'Bleu_2', 'Bleu_3', 'Bleu_4', 'CIDEr', 'ROUGE_L']);
    assert.equal(item.scores!.CIDEr, direct.per_image.CIDEr[String(item.image_id)]);
  }
  const scores = readScores(runDir, 'coco-val')!;
  assert.deepEqual(scores.corpus, direct.corpus);
  assert.equal(scores.domains, undefined);
  assert.throws(() => evaluateRun(plain, { runDir, split: '../x' }), /split name/);
});

test('nocaps breakdown: in / near / out / overall are evaluateByDomain’s', () => {
  const { cases } = loadCocoResults(path.join(NOCAPS, 'results.json'), path.join(NOCAPS, 'annotations.json'));
  const runDir = path.join(tempDir(), 'nocaps-run');
  const result = evaluateRun(cases, { runDir, split: 'nocaps-val', metrics: ['cider', 'bleu'] });
  const direct = evaluateByDomain(cases, { metrics: ['cider', 'bleu'] });
  assert.deepEqual(Object.keys(result.domains!).sort(), ['in', 'near', 'out', 'overall']);
  assert.deepEqual(result.domains!.overall, direct.entire.corpus);
  for (const d of ['in', 'near', 'out'] as const) assert.deepEqual(result.domains![d], direct[d].corpus);
  assert.deepEqual(result.corpus, direct.entire.corpus);
  const scores = readScores(runDir, 'nocaps-val')!;
  assert.deepEqual(scores.domains, result.domains);
  const items = readPredictions(runDir, 'nocaps-val').items;
  assert.deepEqual(new Set(items.map((i) => i.domain)), new Set(['in', 'near', 'out']));

  const mixed = cases.map((c, i) => (i === 5 ? { ...c, domain: undefined } : c));
  assert.throws(() => scoreCases(mixed), /1 of 300 images have no domain/);
});

test('cckit eval gives evaluate’s numbers (COCO-shaped and nocaps-shaped fixtures)', () => {
  // COCO-shaped: annotations without domains
  const annotations = JSON.parse(fs.readFileSync(path.join(NOCAPS, 'annotations.json'), 'utf8')) as { images: { id: number }[] };
  const cocoAnn = tempFile('captions_val.json', JSON.stringify({ ...annotations, images: annotations.images.map((i) => ({ id: i.id })) }));
  const results = path.join(NOCAPS, 'results.json');
  let printed = '';
  const coco = runEval({ preds: results, refs: cocoAnn, metrics: 'bleu,rouge,cider', json: true }, (t) => (printed += t));
  const direct = evaluate(loadCocoResults(results, cocoAnn).cases, { metrics: ['bleu', 'rouge', 'cider'] });
  assert.deepEqual(JSON.parse(printed), { images: 300, corpus: direct.corpus });
  assert.deepEqual(coco.corpus, direct.corpus);

  printed = '';
  const nocaps = runEval({ preds: results, refs: path.join(NOCAPS, 'annotations.json'), metrics: 'cider', json: false }, (t) => (printed += t));
  const byDomain = evaluateByDomain(loadCocoResults(results, path.join(NOCAPS, 'annotations.json')).cases, { metrics: ['cider'] });
  assert.equal(nocaps.domains!.overall!.CIDEr, byDomain.entire.corpus.CIDEr);
  assert.equal(nocaps.domains!.out!.CIDEr, byDomain.out.corpus.CIDEr);
  const lines = printed.trim().split('\n');
  assert.match(lines[0], /300 images \(nocaps domains\)/);
  assert.match(lines[1], /^metric\s+in\s+near\s+out\s+overall$/);
  const cider = lines[3].split(/\s+/);
  assert.equal(cider[0], 'CIDEr');
  assert.deepEqual(
    cider.slice(1).map(Number),
    ['in', 'near', 'out', 'entire'].map((d) => Number(byDomain[d].corpus.CIDEr.toFixed(3))),
  );
  assert.match(formatEvalTable({ images: 1, corpus: { CIDEr: 1.23456 } }).split('\n')[2], /^CIDEr\s+1\.235$/);

  // --run writes the layout
  const runDir = path.join(tempDir(), 'r1');
  runEval({ preds: results, refs: path.join(NOCAPS, 'annotations.json'), metrics: 'cider', json: true, run: runDir, split: 'nocaps-val' }, () => undefined);
  assert.equal(readScores(runDir, 'nocaps-val')!.domains!.overall!.CIDEr, byDomain.entire.corpus.CIDEr);
});

test('captionImages: batches → predictions in order, progress, inputs disposed, no leaks', async () => {
  const model = new NgramCaptionModel({ vocabSize: 10, seed: 7, eosSlope: 1 });
  const settings = DECODE_PRESETS.cc12m;
  // expected captions, decoded directly
  const ref = model.randomInput(5, 1);
  const expected = decodeBatch(model, ref, settings).tokens.map((t) => captionFromIds(t, vocab));
  ref.visual.dispose();
  ref.visualMask.dispose();
  const before = tf.memory().numTensors;
  const batches = function* () {
    const all = model.randomInput(5, 1);
    const slice = (from: number, n: number) => ({
      ids: Array.from({ length: n }, (_, i) => 100 + from + i),
      input: { visual: all.visual.slice([from, 0, 0], [n, -1, -1]), visualMask: all.visualMask.slice([from, 0], [n, -1]) },
    });
    yield slice(0, 2);
    yield slice(2, 3);
    all.visual.dispose();
    all.visualMask.dispose();
  };
  const progress: number[] = [];
  const out: CaptionedImage[] = [];
  for await (const p of captionImages(model, batches(), vocab, settings, { onProgress: (p) => progress.push(p.images) })) out.push(p);
  assert.deepEqual(
    out.map((p) => p.image_id),
    [100, 101, 102, 103, 104],
  );
  assert.deepEqual(
    out.map((p) => p.caption),
    expected,
  );
  assert.deepEqual(progress, [2, 5]);
  assert.equal(tf.memory().numTensors, before);
  const cases = casesFromPredictions(out, Object.fromEntries(out.map((p) => [String(p.image_id), ['a dog on grass']])));
  assert.equal(cases.length, 5);
  assert.throws(() => casesFromPredictions(out, {}), /image 100: no reference captions/);
  model.dispose();
});
