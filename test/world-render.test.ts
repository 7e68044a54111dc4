import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';

import { FAMILIES, buildConcepts, conceptByName } from '../src/world/concepts';
import { renderScene, sceneSvg, signatureVector, visualSignature } from '../src/world/render';
import { sceneFor } from '../src/world/scene';
import type { Scene } from '../src/world/types';

const MAGIC: Record<string, number[]> = {
  jpeg: [0xff, 0xd8, 0xff],
  png: [0x89, 0x50, 0x4e, 0x47],
  gif: [0x47, 0x49, 0x46, 0x38],
};

function firstSceneWith(pred: (s: Scene) => boolean): Scene {
  const concepts = buildConcepts();
  for (let id = 0; id < 10000; id++) {
    const s = sceneFor(11, id, concepts);
    if (pred(s)) return s;
  }
  throw new Error('no such scene');
}

test('visual signatures: deterministic, family-shaped, siblings differ', () => {
  const concepts = buildConcepts();
  const durian = conceptByName('durian')!;
  const a = visualSignature(durian);
  assert.deepEqual(visualSignature({ synset: durian.synset, family: durian.family }), a);
  assert.equal(a.family, durian.family);
  const mangosteen = visualSignature(conceptByName('mangosteen')!);
  assert.equal(mangosteen.family, a.family);
  assert.notDeepEqual([mangosteen.hue, mangosteen.texture, mangosteen.aspect, mangosteen.params], [a.hue, a.texture, a.aspect, a.params]);
  // Signatures are (almost) all distinct; every family is drawn.
  const keys = new Set(concepts.map((c) => JSON.stringify(visualSignature(c))));
  assert.equal(keys.size, concepts.length);
  const v = signatureVector(a);
  assert.equal(v.length, 32);
  assert.equal(v[a.family], 1);
  assert.ok(v.every((x) => Number.isFinite(x)));
});

test('SVG: every family renders; no fonts or text', () => {
  const concepts = buildConcepts();
  for (const fam of FAMILIES) {
    const c = concepts.find((x) => x.family === fam.id)!;
    const scene: Scene = {
      width: 300,
      height: 200,
      format: 'png',
      objects: [{ concept: c.index, box: { x: 50, y: 20, width: 200, height: 160 }, rotation: 10 }],
      background: { hue: 200, saturation: 0.3, lightness: 0.6, noise: 0, pattern: fam.id % 6 },
    };
    const svg = sceneSvg(scene, concepts);
    assert.ok(svg.startsWith('<svg') && svg.endsWith('</svg>'));
    assert.ok(!svg.includes('<text'));
    assert.ok(!svg.includes('NaN') && !svg.includes('undefined'), `${fam.name}: ${svg.slice(0, 200)}`);
  }
});

for (const format of ['jpeg', 'png', 'gif'] as const) {
  test(`render ${format}: byte-identical on repeat, right magic bytes and size`, async () => {
    const concepts = buildConcepts();
    const scene = firstSceneWith((s) => s.format === format && s.objects.length >= 2 && s.background.noise > 0.1);
    const a = await renderScene(scene, concepts);
    const b = await renderScene(structuredClone(scene), concepts);
    assert.ok(a.equals(b), 'same scene → same bytes');
    assert.deepEqual([...a.subarray(0, MAGIC[format]!.length)], MAGIC[format]);
    const meta = await sharp(a).metadata();
    assert.equal(meta.format, format);
    assert.equal(meta.width, scene.width);
    assert.equal(meta.height, scene.height);
  });
}

test('render: undersized and extreme-aspect images keep their dimensions; content varies with the scene', async () => {
  const concepts = buildConcepts();
  const small = firstSceneWith((s) => s.format === 'jpeg' && Math.min(s.width, s.height) < 200);
  const wide = firstSceneWith((s) => s.format === 'jpeg' && Math.max(s.width, s.height) / Math.min(s.width, s.height) > 2.5);
  for (const s of [small, wide]) {
    const meta = await sharp(await renderScene(s, concepts)).metadata();
    assert.equal(meta.width, s.width);
    assert.equal(meta.height, s.height);
  }
  // Moving an object changes the pixels.
  const base = firstSceneWith((s) => s.format === 'png' && s.objects.length === 1);
  const moved: Scene = structuredClone(base);
  const f = moved.objects[0]!.shape!;
  f.cx = Math.max(0, f.cx - 40);
  const [x, y] = await Promise.all([renderScene(base, concepts), renderScene(moved, concepts)]);
  assert.ok(!x.equals(y));
  const stats = await sharp(x).stats();
  assert.ok(
    stats.channels.some((ch) => ch.stdev > 5),
    'not a flat image',
  );
});

test('render: scenes without frames fall back to the box', async () => {
  const concepts = buildConcepts();
  const scene: Scene = {
    width: 420,
    height: 300,
    format: 'jpeg',
    objects: [{ concept: conceptByName('quiche')!.index, box: { x: 10, y: 10, width: 200, height: 150 }, rotation: 0 }],
    background: { hue: 30, saturation: 0.2, lightness: 0.8, noise: 0.3, pattern: 1 },
  };
  const out = await renderScene(scene, concepts);
  const meta = await sharp(out).metadata();
  assert.equal(meta.format, 'jpeg');
  assert.equal(meta.width, 420);
});
