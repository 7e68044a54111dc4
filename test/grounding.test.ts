/**
 * The ground-truth caption judge (src/metrics/grounding.ts): its object vocabulary, per-caption
 * verdicts, aggregate figures with known answers, the nocaps breakdown, the world's `objects` in
 * its annotation files, and the `grounding` figures evaluateRun writes.
 */
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { buildWorld } from '../src/data/build-world';
import { readCocoCaptions, writeCocoCaptions } from '../src/data/coco';
import { evaluateRun } from '../src/decode/evaluate-run';
import { GroundingCase, groundingVocabulary, judge, judgeCaption, objectMentions } from '../src/metrics/grounding';
import { readPredictions, readScores } from '../src/runs/layout';
import { readEvalImages } from '../src/train/data';
import { buildConcepts, conceptByName, hypernymOf } from '../src/world/concepts';
import { World } from '../src/world/world';

const temporary = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-grounding-'));
after(() => fs.rmSync(temporary, { recursive: true, force: true }));

const vocabulary = groundingVocabulary();

test('vocabulary: names, plurals, WordNet synonyms, COCO names, basic-level hypernyms; generic words left out', () => {
  assert.deepEqual(vocabulary.words.get('durian')?.concepts, ['durian']);
  assert.deepEqual(vocabulary.words.get('durians')?.concepts, ['durian']);
  assert.equal(vocabulary.words.get('durians')?.singular, 'durian');
  assert.ok(vocabulary.words.get('automobile')?.concepts.includes('car'), 'WordNet synonym of car');
  assert.ok(vocabulary.words.get('automobiles')?.concepts.includes('car'), 'plural of a synonym');
  assert.deepEqual(vocabulary.words.get('sports ball')?.concepts, ['ball'], 'COCO name');
  assert.deepEqual(vocabulary.words.get('hot dog')?.tokens, ['hot', 'dog'], 'multi-word synonym of hotdog');
  assert.equal(hypernymOf(conceptByName('durian')!, 1), 'fruit');
  assert.deepEqual(vocabulary.words.get('fruit')?.concepts, [], 'a hypernym word names no concept itself');
  assert.equal(vocabulary.words.get('fruits')?.singular, 'fruit');
  for (const generic of ['entity', 'object', 'objects', 'thing', 'things', 'whole', 'artifact'])
    assert.equal(vocabulary.words.get(generic), undefined, generic);
  // "table" is the world's setting ("on a table"), only a hypernym here: not an object word
  assert.equal(vocabulary.words.get('table'), undefined);
  for (const person of ['<person>', 'man', 'men', 'people', 'woman', 'actor']) assert.deepEqual(vocabulary.words.get(person)?.concepts, ['person'], person);
  assert.equal(vocabulary.maxTokens >= 2, true);
  assert.equal(groundingVocabulary(), vocabulary, 'cached per catalog');
});

test('mentions: longest first, left to right, <PERSON> as one token', () => {
  assert.deepEqual(
    objectMentions('A <PERSON> eating a hot dog next to two dogs on a dining table.', vocabulary).map((m) => m.text),
    ['<person>', 'hot dog', 'dogs', 'dining table'],
  );
  assert.deepEqual(
    judgeCaption('a dog and a hot dog', ['dog'], vocabulary),
    { named: ['dog'], byKind: [], hallucinated: ['hot dog'], mentions: 2 },
    '"hot dog" is one mention, not a dog',
  );
  assert.deepEqual(judgeCaption('<PERSON> with an object and a thing', ['person'], vocabulary), {
    named: ['person'],
    byKind: [],
    hallucinated: [],
    mentions: 1,
  });
  assert.deepEqual(judgeCaption('a photo of the grass', ['dog'], vocabulary), { named: [], byKind: [], hallucinated: [], mentions: 0 });
  // frame words: "on top of", "a green dog" are no mentions (though "top" is a hypernym, "green" a synonym of greens)
  assert.deepEqual(judgeCaption('a green dog on top of a plate', ['dog'], vocabulary), { named: ['dog'], byKind: [], hallucinated: [], mentions: 1 });
  assert.deepEqual(judgeCaption('In this image I can see a dog', ['dog'], vocabulary), { named: ['dog'], byKind: [], hallucinated: [], mentions: 1 });
});

test('a hypernym is correct only when a present concept has it', () => {
  assert.deepEqual(judgeCaption('a fruit on a table', ['durian'], vocabulary), { named: [], byKind: ['durian'], hallucinated: [], mentions: 1 });
  assert.deepEqual(judgeCaption('a fruit on a table', ['dog'], vocabulary), { named: [], byKind: [], hallucinated: ['fruit'], mentions: 1 });
  // dog → canine → carnivore → placental → mammal → … → animal: both are its hypernyms
  assert.deepEqual(judgeCaption('an animal, a mammal', ['dog'], vocabulary), { named: [], byKind: ['dog'], hallucinated: [], mentions: 2 });
  assert.deepEqual(judgeCaption('a mammal', ['durian'], vocabulary), { named: [], byKind: [], hallucinated: ['mammal'], mentions: 1 });
});

const CASES: GroundingCase[] = [
  { imageId: '1', caption: 'A man holding durians next to a dog', objects: ['durian', 'person'], domain: 'in' },
  { imageId: '2', caption: 'a fruit on a table', objects: ['durian'], domain: 'near' },
  { imageId: '3', caption: 'an automobile parked by a hot dog', objects: ['car', 'hotdog', 'car'], domain: 'out' },
  { imageId: '4', caption: 'a fruit near a cat', objects: ['dog'], domain: 'in-domain' },
];

test('aggregate figures on hand-made cases', () => {
  const report = judge(CASES, vocabulary);
  assert.deepEqual(report.perCaption, [
    { named: ['durian', 'person'], byKind: [], hallucinated: ['dog'], mentions: 3 },
    { named: [], byKind: ['durian'], hallucinated: [], mentions: 1 },
    { named: ['car', 'hotdog'], byKind: [], hallucinated: [], mentions: 2 },
    { named: [], byKind: [], hallucinated: ['fruit', 'cat'], mentions: 2 },
  ]);
  // 3 of 4 captions name something (the second by its kind), 2 of 4 by name; 5 of 6 distinct present
  // objects named; 2 of 4 captions hallucinate; 3 of 8 mentions are hallucinated
  assert.deepEqual(report.scores.overall, { recall: 0.75, specificRecall: 0.5, objectRecall: 5 / 6, chairS: 0.5, chairI: 3 / 8, captions: 4 });
  assert.deepEqual(report.scores.in, { recall: 0.5, specificRecall: 0.5, objectRecall: 2 / 3, chairS: 1, chairI: 3 / 5, captions: 2 });
  assert.deepEqual(report.scores.near, { recall: 1, specificRecall: 0, objectRecall: 1, chairS: 0, chairI: 0, captions: 1 });
  assert.deepEqual(report.scores.out, { recall: 1, specificRecall: 1, objectRecall: 1, chairS: 0, chairI: 0, captions: 1 });
  // without domains: overall only
  const plain = judge(
    CASES.map(({ domain: _d, ...c }) => c),
    vocabulary,
  );
  assert.deepEqual(Object.keys(plain.scores), ['overall']);
  assert.deepEqual(plain.scores.overall, report.scores.overall);
  assert.deepEqual(judge([], vocabulary).scores.overall, { recall: 0, specificRecall: 0, objectRecall: 0, chairS: 0, chairI: 0, captions: 0 });
  assert.throws(() => judge([{ caption: 'x', objects: [], domain: 'far' }], vocabulary), /unknown nocaps domain/);
});

test('the world reference captions are judged free of hallucinations', () => {
  // The world's references name each object or its basic-level hypernym; settings are not objects.
  const world = new World({ seed: 3 });
  for (const split of ['coco-val', 'nocaps-val', 'narratives'] as const) {
    const cases: GroundingCase[] = [];
    for (let id = 0; id < 40; id++) {
      const image = world.captionedImage(split, id);
      for (const caption of image.references) cases.push({ caption, objects: image.truth.concepts, ...(image.domain ? { domain: image.domain } : {}) });
    }
    const { scores, perCaption } = judge(cases, vocabulary);
    assert.equal(scores.overall.chairS, 0, `${split}: ${perCaption.flatMap((p) => p.hallucinated).join(', ')}`);
    assert.ok(scores.overall.recall > 0.8, `${split}: recall ${scores.overall.recall}`);
    if (split === 'nocaps-val') assert.ok(scores.in && scores.near && scores.out);
  }
});

test('build-world writes images[].objects; readCocoCaptions and readEvalImages read them back', async () => {
  const out = path.join(temporary, 'world');
  const sizes = { web: 4, 'coco-train': 2, 'coco-val': 3, 'nocaps-val': 6, 'nocaps-test': 0, flickr: 0, narratives: 0 };
  await buildWorld({ seed: 7, out, sizes });
  const world = new World({ seed: 7 });
  const file = path.join(out, 'nocaps/nocaps_val.json');
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { images: { id: number; objects?: string[] }[] };
  assert.equal(data.images.length, 6);
  for (const image of data.images) assert.deepEqual(image.objects, world.captionedImage('nocaps-val', image.id).truth.concepts);
  const evalImages = readEvalImages({ path: file });
  assert.deepEqual(
    evalImages.map((i) => i.objects),
    data.images.map((i) => i.objects),
  );
  assert.ok(evalImages.every((i) => i.objects!.length > 0 && i.domain !== undefined));
  const coco = readCocoCaptions(path.join(out, 'coco/captions_val.json'));
  assert.deepEqual(
    coco.map((i) => i.objects),
    [0, 1, 2].map((id) => world.captionedImage('coco-val', id).truth.concepts),
  );
  // a file without the field (real COCO / nocaps): no objects, nothing guessed
  const real = path.join(temporary, 'real.json');
  writeCocoCaptions(real, [{ id: 1, fileName: '1.jpg', width: 10, height: 10, captions: ['a dog'] }]);
  assert.equal(readEvalImages({ path: real })[0]!.objects, undefined);
  assert.ok(!('objects' in (JSON.parse(fs.readFileSync(real, 'utf8')) as { images: object[] }).images[0]!));
  fs.writeFileSync(real, JSON.stringify({ images: [{ id: 1, file_name: '1.jpg', objects: 'dog' }], annotations: [{ id: 1, image_id: 1, caption: 'a dog' }] }));
  assert.throws(() => readEvalImages({ path: real }), /objects must be an array of concept names/);
});

test('evaluateRun writes grounding into scores and predictions when the cases carry objects, nothing otherwise', () => {
  const cases = CASES.map((c, i) => ({
    imageId: c.imageId!,
    candidate: c.caption,
    references: ['a durian and a dog on a table', 'an image of a car'],
    domain: ['in', 'near', 'out', 'in'][i]!,
    objects: c.objects,
  }));
  const runDir = path.join(temporary, 'run-ground');
  const result = evaluateRun(cases, { runDir, split: 'nocaps-val', metrics: ['cider'], vocabulary });
  const expected = judge(CASES, vocabulary);
  assert.deepEqual(result.grounding, expected.scores);
  const scores = readScores(runDir, 'nocaps-val')!;
  assert.equal(scores.version, 1);
  assert.deepEqual(scores.grounding, expected.scores);
  assert.deepEqual(scores.grounding!.overall, { recall: 0.75, specificRecall: 0.5, objectRecall: 5 / 6, chairS: 0.5, chairI: 3 / 8, captions: 4 });
  assert.equal(scores.grounding!.out!.objectRecall, 1);
  const items = readPredictions(runDir, 'nocaps-val').items;
  assert.deepEqual(items[0]!.grounding, { named: ['durian', 'person'], byKind: [], hallucinated: ['dog'], mentions: 3 });
  assert.deepEqual(items[3]!.grounding, { named: [], byKind: [], hallucinated: ['fruit', 'cat'], mentions: 2 });

  const plainDir = path.join(temporary, 'run-plain');
  const plain = evaluateRun(
    cases.map(({ objects: _o, ...c }) => c),
    { runDir: plainDir, split: 'coco-val', metrics: ['cider'] },
  );
  assert.equal(plain.grounding, undefined);
  const plainScores = readScores(plainDir, 'coco-val')!;
  assert.ok(!('grounding' in plainScores));
  assert.ok(readPredictions(plainDir, 'coco-val').items.every((item) => !('grounding' in item)));

  const mixed = cases.map((c, i) => (i === 2 ? { ...c, objects: undefined } : c));
  assert.throws(() => evaluateRun(mixed, { runDir, split: 'x', metrics: ['cider'] }), /1 of 4 images have no ground-truth objects/);
});

test('every concept of the catalog is named by its own name', () => {
  for (const c of buildConcepts()) {
    const verdict = judgeCaption(`a photo of ${c.name}`, [c.name], vocabulary);
    assert.deepEqual(verdict.named, [c.name], c.name);
    assert.deepEqual(verdict.hallucinated, [], c.name);
  }
});

test('a colour or verb that is also an object name counts only where a noun phrase can end', () => {
  assert.deepEqual(judgeCaption('an orange cat on a table', ['cat'], vocabulary).hallucinated, []);
  assert.deepEqual(judgeCaption('a dog can be seen near a cat', ['dog', 'cat'], vocabulary), {
    named: ['dog', 'cat'],
    byKind: [],
    hallucinated: [],
    mentions: 2,
  });
  assert.deepEqual(judgeCaption('an orange on a table', ['orange'], vocabulary).named, ['orange']);
  assert.deepEqual(judgeCaption('a pale orange', ['dog'], vocabulary).hallucinated, ['orange']);
});
