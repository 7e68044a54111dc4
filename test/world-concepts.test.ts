import { test } from 'node:test';
import assert from 'node:assert/strict';

import { wordnet } from '../src/wordnet';
import { COCO_CATEGORIES, cocoCategoryByName } from '../src/world/coco-categories';
import {
  FAMILIES,
  basicHypernyms,
  buildConcepts,
  cocoConceptIndices,
  conceptByName,
  familyOfSynset,
  headWord,
  hypernymOf,
  longTailConceptIndices,
} from '../src/world/concepts';
import { conceptSampler, sceneFor, sceneSeed, scenesFor, sizeClass } from '../src/world/scene';
import type { Concept } from '../src/world/types';

test('COCO: 80 categories in COCO order, each a valid noun synset holding its lemma', () => {
  assert.equal(COCO_CATEGORIES.length, 80);
  assert.equal(COCO_CATEGORIES[0]!.name, 'person');
  assert.equal(COCO_CATEGORIES[79]!.name, 'toothbrush');
  const ids = COCO_CATEGORIES.map((c) => c.id);
  assert.deepEqual(
    ids,
    [...ids].sort((a, b) => a - b),
    'COCO ids increase',
  );
  assert.equal(new Set(COCO_CATEGORIES.map((c) => c.synset)).size, 80, 'distinct synsets');
  const wn = wordnet();
  for (const cat of COCO_CATEGORIES) {
    const rec = wn.synset(cat.synset);
    assert.equal(rec.pos, 'n', cat.name);
    assert.ok(rec.lemmas.includes(cat.lemma), `${cat.name}: ${cat.synset} has lemmas ${rec.lemmas.join(',')}`);
  }
});

test('COCO: the tricky senses', () => {
  const wn = wordnet();
  const lemmas = (name: string): string[] => wn.synset(cocoCategoryByName(name)!.synset).lemmas;
  assert.ok(lemmas('mouse').includes('computer_mouse'));
  assert.ok(lemmas('tv').includes('television_receiver'));
  assert.ok(lemmas('sports ball').includes('ball'));
  assert.ok(wn.synset(cocoCategoryByName('sports ball')!.synset).gloss.includes('games'));
  assert.ok(lemmas('dining table').includes('dining_table'));
  assert.ok(lemmas('potted plant').includes('pot_plant'));
  assert.ok(lemmas('hair drier').includes('hair_dryer'));
  assert.ok(lemmas('cell phone').includes('cellular_telephone'));
  assert.ok(lemmas('toilet').includes('commode'), 'the fixture, not the room');
  assert.ok(lemmas('orange').length === 1, 'orange the fruit');
  // Food senses live in noun.food (13), animals in noun.animal (5).
  for (const n of ['banana', 'apple', 'orange', 'broccoli', 'carrot', 'hot dog', 'pizza', 'donut', 'cake', 'sandwich']) {
    assert.equal(wn.synset(cocoCategoryByName(n)!.synset).lexFileNum, 13, n);
  }
  for (const n of ['bird', 'cat', 'dog', 'horse', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe']) {
    assert.equal(wn.synset(cocoCategoryByName(n)!.synset).lexFileNum, 5, n);
  }
});

test('catalog: size, uniqueness, determinism, cache', () => {
  const a = buildConcepts();
  assert.equal(a.length, 600);
  assert.strictEqual(buildConcepts(), a, 'cached');
  a.forEach((c, i) => assert.equal(c.index, i));
  assert.equal(new Set(a.map((c) => c.synset)).size, 600, 'distinct synsets');
  assert.equal(new Set(a.map((c) => c.name)).size, 600, 'distinct names');
  assert.equal(a.filter((c) => c.coco).length, 80);
  const b = buildConcepts({ count: 600, zipfExponent: 1.0000001 });
  assert.notStrictEqual(a, b);
  assert.deepEqual(
    b.map((c) => c.synset),
    a.map((c) => c.synset),
    'same concepts and order whatever the exponent',
  );
  const small = buildConcepts({ count: 200 });
  assert.equal(small.length, 200);
  assert.equal(small.filter((c) => c.coco).length, 80);
  for (const c of a) {
    assert.match(c.synset, /^n\d{8}$/);
    assert.ok(c.name.length > 0 && !c.name.includes('_'), c.name);
    assert.equal(c.hypernyms.length, c.hypernymSynsets.length);
    assert.equal(c.hypernyms[c.hypernyms.length - 1], 'entity', `${c.name} chain ends at entity`);
    assert.ok(c.family >= 0 && c.family < FAMILIES.length);
    if (c.coco) assert.ok(c.cocoName && cocoCategoryByName(c.cocoName));
    else assert.equal(c.cocoName, undefined);
  }
});

test('catalog: chains follow WordNet first hypernyms', () => {
  const wn = wordnet();
  for (const c of buildConcepts()
    .slice(0, 600)
    .filter((_, i) => i % 7 === 0)) {
    let cur = c.synset;
    for (let k = 0; k < c.hypernymSynsets.length; k++) {
      assert.equal(wn.hypernyms(cur)[0], c.hypernymSynsets[k], `${c.name} step ${k}`);
      cur = c.hypernymSynsets[k]!;
      assert.equal(c.hypernyms[k], wn.synset(cur).lemmas[0]!.replace(/_/g, ' '));
    }
  }
});

test('long tail: durian, mangosteen, quiche with plausible chains', () => {
  const durian = conceptByName('durian')!;
  assert.ok(durian && !durian.coco);
  assert.equal(durian.hypernyms[0], 'edible fruit');
  assert.ok(durian.hypernyms.includes('food'));
  assert.equal(hypernymOf(durian, 1), 'fruit');
  assert.equal(hypernymOf(durian, 0), 'durian');
  const mangosteen = conceptByName('mangosteen')!;
  assert.equal(mangosteen.hypernyms[0], 'edible fruit');
  assert.equal(mangosteen.family, durian.family, 'edible fruits share a family');
  const quiche = conceptByName('quiche')!;
  assert.deepEqual(quiche.hypernyms.slice(0, 4), ['tart', 'pie', 'pastry', 'baked goods']);
  assert.equal(FAMILIES[quiche.family]!.name, 'prepared food');
  assert.equal(FAMILIES[durian.family]!.name, 'fruit & vegetable');
  // Long-tail concepts sit in the tail of the popularity order.
  assert.ok(durian.index > 300 && mangosteen.index > 300 && quiche.index > 300);
});

test('long tail: spread over many kinds of things', () => {
  const concepts = buildConcepts();
  const tail = concepts.filter((c) => !c.coco);
  assert.equal(tail.length, 520);
  const perFamily = new Map<number, number>();
  for (const c of tail) perFamily.set(c.family, (perFamily.get(c.family) ?? 0) + 1);
  // Every family but "person" gets long-tail members.
  for (const f of FAMILIES) if (f.name !== 'person') assert.ok((perFamily.get(f.id) ?? 0) >= 10, `${f.name}: ${perFamily.get(f.id)}`);
  for (const n of ['toucan', 'pangolin', 'sitar', 'kimono', 'pagoda', 'rambutan']) assert.ok(conceptByName(n), n);
});

test('families: siblings share a family, distant concepts do not', () => {
  const fam = (n: string): number => conceptByName(n)!.family;
  assert.equal(fam('dog'), fam('cat'));
  assert.equal(fam('dog'), fam('pangolin'));
  assert.equal(fam('banana'), fam('durian'));
  assert.equal(fam('car'), fam('bicycle'));
  assert.equal(fam('bus'), fam('airplane'));
  assert.equal(fam('bird'), fam('toucan'));
  assert.notEqual(fam('dog'), fam('bird'));
  assert.notEqual(fam('banana'), fam('pizza'));
  assert.notEqual(fam('car'), fam('chair'));
  assert.equal(FAMILIES[fam('person')]!.name, 'person');
  assert.equal(familyOfSynset('n02086723'), fam('dog'));
  // Most concepts whose nearest hypernym is the same synset share a family.
  const byParent = new Map<string, Concept[]>();
  for (const c of buildConcepts()) {
    const p = c.hypernymSynsets[0]!;
    if (!byParent.has(p)) byParent.set(p, []);
    byParent.get(p)!.push(c);
  }
  for (const [p, kids] of byParent) {
    assert.equal(new Set(kids.map((k) => k.family)).size, 1, `children of ${p}: ${kids.map((k) => k.name).join(',')}`);
  }
  const used = new Set(buildConcepts().map((c) => c.family));
  assert.equal(used.size, FAMILIES.length);
  assert.ok(FAMILIES.length >= 10 && FAMILIES.length <= 16);
});

test('web shares: Zipf over the rank, sum to 1, decreasing, exponent honoured', () => {
  const concepts = buildConcepts();
  const sum = concepts.reduce((s, c) => s + c.webShare, 0);
  assert.ok(Math.abs(sum - 1) < 1e-9);
  for (let i = 1; i < concepts.length; i++) assert.ok(concepts[i]!.webShare < concepts[i - 1]!.webShare);
  assert.ok(Math.abs(concepts[0]!.webShare / concepts[9]!.webShare - 10) < 1e-9, 'exponent 1: share ∝ 1/(i+1)');
  const steep = buildConcepts({ zipfExponent: 1.5 });
  assert.ok(Math.abs(steep[0]!.webShare / steep[3]!.webShare - 8) < 1e-9);
  const flat = buildConcepts({ zipfExponent: 0 });
  assert.ok(Math.abs(flat[599]!.webShare - 1 / 600) < 1e-12);
  // COCO concepts are mostly the head.
  const coco = cocoConceptIndices(concepts);
  const tail = longTailConceptIndices(concepts);
  assert.equal(coco.length + tail.length, 600);
  assert.ok(coco.filter((i) => i < 120).length >= 75, 'most COCO concepts rank in the top 120');
  assert.equal(concepts[0]!.name, 'person');
  const cocoShare = coco.reduce((s, i) => s + concepts[i]!.webShare, 0);
  assert.ok(cocoShare > 0.6 && cocoShare < 0.8, `COCO share ${cocoShare}`);
});

test('lookups and hypernymisation', () => {
  assert.equal(conceptByName('sports ball')!.name, 'ball');
  assert.equal(conceptByName('tv')!.cocoName, 'tv');
  assert.equal(conceptByName('hot_dog')?.cocoName ?? conceptByName('hot dog')?.cocoName, 'hot dog');
  assert.equal(conceptByName('Dining Table')!.cocoName, 'dining table');
  assert.equal(conceptByName('no such thing'), undefined);
  assert.equal(headWord('edible fruit'), 'fruit');
  assert.equal(headWord('bird of prey'), 'bird');
  assert.equal(hypernymOf(conceptByName('dog')!), 'mammal');
  assert.equal(hypernymOf(conceptByName('bicycle')!), 'vehicle');
  assert.equal(hypernymOf(conceptByName('toucan')!), 'bird');
  assert.equal(hypernymOf(conceptByName('sitar')!), 'instrument');
  const durian = conceptByName('durian')!;
  const levels = basicHypernyms(durian);
  assert.equal(hypernymOf(durian, 99), levels[levels.length - 1]);
  assert.equal(hypernymOf(conceptByName('person')!, 1), 'person', 'no basic-level hypernym: keeps its name');
  for (const c of buildConcepts()) {
    const h = hypernymOf(c);
    assert.ok(h.length > 0);
    assert.ok(!['entity', 'object', 'whole', 'artifact', 'physical entity'].includes(h), `${c.name} → ${h}`);
  }
});

// ------------------------------------------------------------------ scenes

test('scenes: deterministic per (seed, id), independent of call order', () => {
  const concepts = buildConcepts();
  const a = sceneFor(42, 17, concepts);
  const b = sceneFor(42, 17, concepts);
  assert.deepEqual(a, b);
  scenesFor(42, 0, 50, concepts);
  assert.deepEqual(sceneFor(42, 17, concepts), a);
  assert.notDeepEqual(sceneFor(43, 17, concepts), a);
  assert.notDeepEqual(sceneFor(42, 18, concepts), a);
  assert.notEqual(sceneSeed(1, 2), sceneSeed(2, 1));
  assert.notEqual(sceneSeed(0, 2 ** 32), sceneSeed(0, 0), 'large ids mix the high half');
});

test('scenes: objects, boxes inside the image, frames consistent with boxes', () => {
  const concepts = buildConcepts();
  const counts = [0, 0, 0, 0, 0];
  for (const s of scenesFor(5, 0, 2000, concepts)) {
    assert.ok(Number.isInteger(s.width) && Number.isInteger(s.height));
    assert.ok(s.objects.length >= 1 && s.objects.length <= 4);
    counts[s.objects.length]!++;
    for (const o of s.objects) {
      assert.ok(o.concept >= 0 && o.concept < concepts.length);
      const { x, y, width, height } = o.box;
      assert.ok(x >= 0 && y >= 0 && width >= 1 && height >= 1);
      assert.ok(x + width <= s.width && y + height <= s.height, JSON.stringify(o));
      assert.ok(o.rotation >= -60 && o.rotation <= 60);
      const f = o.shape!;
      assert.ok(f.cx >= 0 && f.cx <= s.width && f.cy >= 0 && f.cy <= s.height, 'centre inside');
      assert.ok(x <= f.cx + 1 && f.cx <= x + width + 1 && y <= f.cy + 1 && f.cy <= y + height + 1, 'box contains the centre');
    }
    const b = s.background;
    assert.ok(b.hue >= 0 && b.hue < 360 && b.noise >= 0 && b.noise <= 1 && Number.isInteger(b.pattern));
  }
  assert.ok(counts[1]! > counts[2]! && counts[2]! > counts[3]! && counts[3]! > counts[4]! && counts[4]! > 0);
});

test('scenes: format and size shares within tolerance over 2,000 scenes', () => {
  const concepts = buildConcepts();
  const scenes = scenesFor(9, 0, 2000, concepts);
  const share = (f: (s: (typeof scenes)[number]) => boolean): number => scenes.filter(f).length / scenes.length;
  const near = (x: number, want: number, tol: number, what: string): void => assert.ok(Math.abs(x - want) <= tol, `${what}: ${x.toFixed(3)} vs ${want}`);
  near(
    share((s) => s.format === 'png'),
    0.08,
    0.02,
    'png',
  );
  near(
    share((s) => s.format === 'gif'),
    0.04,
    0.015,
    'gif',
  );
  near(
    share((s) => s.format === 'jpeg'),
    0.88,
    0.025,
    'jpeg',
  );
  near(
    share((s) => sizeClass(s) === 'undersized'),
    0.1,
    0.02,
    'undersized',
  );
  near(
    share((s) => sizeClass(s) === 'extreme'),
    0.06,
    0.015,
    'extreme aspect',
  );
  near(
    share((s) => sizeClass(s) === 'wide'),
    0.05,
    0.015,
    'wide aspect (between CC3M and CC12M limits)',
  );
  for (const s of scenes) {
    const long = Math.max(s.width, s.height);
    const short = Math.min(s.width, s.height);
    if (sizeClass(s) === 'normal') {
      assert.ok(short > 400 && long <= 1024 && long / short <= 2, `${s.width}x${s.height}`);
    }
    assert.ok(short >= 96 && long <= 1700);
  }
  // What CC-style filters keep: JPEG, both sides > 400, aspect ≤ 2.
  const kept = share((s) => s.format === 'jpeg' && Math.min(s.width, s.height) > 400 && Math.max(s.width, s.height) / Math.min(s.width, s.height) <= 2);
  near(kept, 0.88 * 0.79, 0.03, 'kept by CC3M-style filters');
  const keptRelaxed = share(
    (s) => s.format === 'jpeg' && Math.min(s.width, s.height) > 400 && Math.max(s.width, s.height) / Math.min(s.width, s.height) <= 2.5,
  );
  near(keptRelaxed, 0.88 * 0.84, 0.03, 'kept by CC12M-style filters');
  // Options change the shares.
  const custom = scenesFor(9, 0, 1000, concepts, { pngShare: 0, gifShare: 0, undersizedShare: 0.5, extremeAspectShare: 0, wideAspectShare: 0 });
  assert.ok(custom.every((s) => s.format === 'jpeg' && sizeClass(s) !== 'extreme'));
  near(custom.filter((s) => sizeClass(s) === 'undersized').length / 1000, 0.5, 0.05, 'custom undersized');
});

test('scenes: concept draws follow web shares; pools and samplers restrict them', () => {
  const concepts = buildConcepts();
  const freq = new Map<number, number>();
  for (const s of scenesFor(3, 0, 3000, concepts)) for (const o of s.objects) freq.set(o.concept, (freq.get(o.concept) ?? 0) + 1);
  assert.ok((freq.get(0) ?? 0) > (freq.get(50) ?? 0));
  const cocoDraws = [...freq].filter(([i]) => concepts[i]!.coco).reduce((s, [, n]) => s + n, 0);
  const all = [...freq.values()].reduce((s, n) => s + n, 0);
  assert.ok(cocoDraws / all > 0.55, 'COCO concepts dominate web images');
  const tailPool = longTailConceptIndices(concepts);
  const sampler = conceptSampler(concepts, tailPool);
  for (const s of scenesFor(3, 0, 300, concepts, { sampler })) for (const o of s.objects) assert.ok(!concepts[o.concept]!.coco);
  const cocoPool = cocoConceptIndices(concepts);
  for (const s of scenesFor(3, 0, 300, concepts, { pool: cocoPool })) for (const o of s.objects) assert.ok(concepts[o.concept]!.coco);
  // Same seed/id with a different pool: the same image geometry, other concepts.
  const x = sceneFor(3, 5, concepts, { pool: cocoPool });
  const y = sceneFor(3, 5, concepts, { sampler });
  assert.equal(x.width, y.width);
  assert.equal(x.format, y.format);
});
