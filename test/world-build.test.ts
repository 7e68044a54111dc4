import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { tsvStats } from '../src/data/stats';
import { readSamples } from '../src/data/webdataset';
import { loadCocoResults } from '../src/metrics/inputs';
import { buildWorld } from '../src/data/build-world';
import { serveWorld } from '../src/world/server';
import { NOCAPS_DOMAIN_COUNTS, nocapsDomain, WORLD_PRESETS } from '../src/world/splits';
import { staleWorld } from '../src/experiments/inputs';
import { parseWorldUrl, worldUrl } from '../src/world/url';
import { resolveWorldImage, WORLD_CACHE_LIMIT } from '../src/data/images';
import { readEvalImages } from '../src/train/data';
import { DEFAULT_COCO_SCENES, World, WORLD_GENERATION } from '../src/world/world';
import { runCli } from './helpers';

const temporary = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-world-'));
after(() => fs.rmSync(temporary, { recursive: true, force: true }));

const SMALL = { web: 400, 'coco-train': 40, 'coco-val': 10, 'nocaps-val': 30, 'nocaps-test': 10, flickr: 10, narratives: 5 };

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name)))
    .sort();
}

test('same seed → byte-identical files; another seed → different data', async () => {
  const [a, b, c] = ['a', 'b', 'c'].map((name) => path.join(temporary, name));
  await buildWorld({ seed: 5, out: a, sizes: SMALL });
  await buildWorld({ seed: 5, out: b, sizes: SMALL });
  await buildWorld({ seed: 6, out: c, sizes: SMALL });
  const files = filesUnder(a);
  assert.deepEqual(files, filesUnder(b));
  assert.ok(files.includes('web/cc12m.tsv') && files.includes('nocaps/nocaps_val.json') && files.includes('world.json'));
  for (const file of files) assert.ok(fs.readFileSync(path.join(a, file)).equals(fs.readFileSync(path.join(b, file))), `${file} differs between two builds`);
  assert.notEqual(fs.readFileSync(path.join(a, 'web/cc12m.tsv'), 'utf8'), fs.readFileSync(path.join(c, 'web/cc12m.tsv'), 'utf8'));
  assert.equal(filesUnder(a).filter((f) => f.includes('.tmp')).length, 0, 'no temporary files left');
});

test('built files read back through the real-data loaders', async () => {
  const dir = path.join(temporary, 'a');
  const cc12m = await tsvStats(path.join(dir, 'web/cc12m.tsv'));
  const cc3m = await tsvStats(path.join(dir, 'web/cc3m.tsv'));
  assert.equal(cc12m.pairs, SMALL.web);
  assert.deepEqual(cc3m, cc12m, 'both column orders hold the same pairs');
  const truth = fs.readFileSync(path.join(dir, 'web/truth.jsonl'), 'utf8').trim().split('\n');
  assert.equal(truth.length, SMALL.web);
  // nocaps annotations feed the metrics loader, with their domains
  const annotations = path.join(dir, 'nocaps/nocaps_val.json');
  const data = JSON.parse(fs.readFileSync(annotations, 'utf8'));
  const results = path.join(temporary, 'results.json');
  fs.writeFileSync(results, JSON.stringify(data.images.map((image: { id: number }) => ({ image_id: image.id, caption: 'a photo' }))));
  const { cases } = loadCocoResults(results, annotations);
  assert.equal(cases.length, SMALL['nocaps-val']);
  assert.ok(cases.every((c) => c.references.length === 10 && c.domain !== undefined));
});

const world = new World({ seed: 11 });

test('web pool: mismatch share, person spans, tags within their documented rates', () => {
  const n = 3000;
  let mismatched = 0;
  let persons = 0;
  let shownObjects = 0;
  let missed = 0;
  let cocoObjects = 0;
  const seen = new Set<string>();
  for (let id = 0; id < n; id++) {
    const pair = world.webPair(id);
    if (!pair.truth.describesImage) mismatched++;
    for (const person of pair.truth.persons) {
      persons++;
      assert.equal(pair.caption.slice(person.start, person.end).toLowerCase(), person.name.toLowerCase(), `pair ${id}: person span`);
    }
    assert.ok(pair.tags.length >= 5 && pair.tags.length <= 20, `pair ${id}: ${pair.tags.length} tags`);
    assert.equal(new Set(pair.tags).size, pair.tags.length);
    shownObjects += pair.truth.concepts.length;
    missed += pair.truth.missedTags.length;
    for (const name of pair.truth.concepts) {
      seen.add(name);
      if (world.concepts.find((c) => c.name === name)?.coco) cocoObjects++;
    }
    assert.ok(pair.truth.boxes.every((b) => b.x >= 0 && b.y >= 0 && b.x + b.width <= pair.truth.width && b.y + b.height <= pair.truth.height));
  }
  // DEFAULT_ALT_TEXT: 7% of sentences and news captions, 40% of the other styles (about half the pool)
  assert.ok(mismatched / n > 0.2 && mismatched / n < 0.32, `mismatch share ${mismatched / n}`);
  assert.ok(persons / n > 0.1 && persons / n < 0.3, `person share ${persons / n}`);
  assert.ok(Math.abs(missed / shownObjects - 0.1) < 0.03, `tag miss rate ${missed / shownObjects}`);
  // Zipf long tail: the common concepts dominate, yet hundreds of tail concepts appear
  assert.ok(cocoObjects / shownObjects > 0.5 && cocoObjects / shownObjects < 0.85, `COCO share ${cocoObjects / shownObjects}`);
  assert.ok(seen.size > 300, `${seen.size} distinct concepts seen`);
});

test('nocaps-like splits: domains in nocaps proportions, each with the right concepts', () => {
  const counts = { in: 0, near: 0, out: 0 };
  const n = 2000;
  for (let id = 0; id < n; id++) {
    const image = world.captionedImage('nocaps-val', id);
    assert.equal(image.domain, nocapsDomain(11, 'nocaps-val', id));
    counts[image.domain!]++;
    const coco = image.truth.concepts.map((name) => world.concepts.find((c) => c.name === name)!.coco);
    if (image.domain === 'in') assert.ok(coco.every(Boolean));
    if (image.domain === 'out') assert.ok(coco.every((x) => !x));
    if (image.domain === 'near') assert.ok(coco.some(Boolean) && coco.some((x) => !x));
    assert.equal(image.references.length, 10);
  }
  const expected = NOCAPS_DOMAIN_COUNTS['nocaps-val'];
  for (const domain of ['in', 'near', 'out'] as const) {
    assert.ok(Math.abs(counts[domain] / n - expected[domain] / 4500) < 0.03, `${domain}: ${counts[domain] / n}`);
  }
});

test('COCO-like scenes: COCO objects first, their context and the common non-COCO objects COCO captions name', () => {
  const coco = new Set(world.concepts.filter((c) => c.coco).map((c) => c.name));
  let categories = 0;
  const tail = world.concepts.filter((c) => !c.coco);
  const familiar = new Set([...world.concepts.filter((c) => c.coco), ...tail.slice(0, DEFAULT_COCO_SCENES.beyondCategories)].map((c) => c.name));
  let objects = 0;
  let beyond = 0;
  let namedBeyond = 0;
  const n = 300;
  for (let id = 0; id < n; id++) {
    const image = world.captionedImage('coco-train', id);
    assert.equal(image.references.length, 5);
    assert.ok(world.concepts.find((c) => c.name === image.truth.concepts[0])!.coco, 'the first object is a COCO category');
    categories += new Set(image.truth.concepts.filter((name) => coco.has(name))).size;
    for (const name of image.truth.concepts) {
      assert.ok(familiar.has(name), `${name}: neither COCO nor among the ${DEFAULT_COCO_SCENES.beyondCategories} most common others`);
      objects++;
      if (!world.concepts.find((c) => c.name === name)!.coco) {
        beyond++;
        const word = new RegExp(`\\b${name}\\b`);
        if (image.references.some((r) => word.test(r.toLowerCase()))) namedBeyond++;
      }
    }
  }
  // COCO: 3.5 categories per image; the non-COCO objects come on top
  assert.ok(categories / n > 3 && categories / n < 4, `COCO categories per image ${categories / n}`);
  assert.ok(objects / n > categories / n + 0.5, `objects per image ${objects / n}`);
  assert.ok(beyond > 0.1 * n, `non-COCO objects ${beyond}`);
  assert.ok(namedBeyond > 0.3 * beyond, `non-COCO objects named by a reference: ${namedBeyond} of ${beyond}`);
});

test("web alt-texts that name a picture's subject show that person first; the scene and the pair agree", () => {
  let subject = 0;
  let other = 0;
  for (let id = 0; id < 3000; id++) {
    const pair = world.webPair(id);
    if (pair.truth.style !== 'person' || !pair.truth.describesImage) continue;
    const shown = pair.truth.concepts.includes('person');
    if (/ (belonging to|photographed by) /.test(pair.caption.toLowerCase())) other++;
    else {
      subject++;
      assert.ok(shown && pair.truth.concepts[0] === 'person', `${pair.caption}: ${pair.truth.concepts}`);
      assert.ok(pair.truth.concepts.length >= 2 && pair.truth.mentions[0] === 'person');
    }
  }
  assert.ok(subject > 100 && other > 50, `${subject} subjects, ${other} owners or photographers`);
  // the scene drawn alone (as the renderer and the feature cache draw it) is the pair's scene
  for (let id = 0; id < 300; id++) {
    const pair = world.webPair(id);
    assert.deepEqual(
      world.scene('web', id).objects.map((o) => world.concepts[o.concept]!.name),
      pair.truth.concepts,
    );
  }
});

test('world:// URLs render the same bytes directly and through the local HTTP server', async () => {
  const pair = world.webPair(3);
  const direct = await world.renderUrl(pair.url);
  assert.deepEqual(parseWorldUrl(pair.url), { seed: 11, split: 'web', id: 3, extension: pair.url.split('.').pop() });
  const server = await serveWorld(world);
  try {
    const response = await fetch(`${server.url}${pair.url.slice('world:/'.length)}`);
    assert.equal(response.status, 200);
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(direct));
    assert.equal((await fetch(`${server.url}/11/web/3.bmp`)).status, 404);
    assert.equal((await fetch(`${server.url}/12/web/3.jpg`)).status, 404);
  } finally {
    await server.close();
  }
  assert.throws(() => parseWorldUrl('world://1/nowhere/3.jpg'), /unknown split/);
  // seeds past 2^53 would collide with a nearby one; an exponent that overflows to Infinity names no world
  assert.throws(() => parseWorldUrl('world://9007199254740993/web/3.jpg'), /at most 9007199254740991/);
  assert.throws(() => parseWorldUrl(`world://1/web/3.jpg?zipf=${'9'.repeat(400)}`), /positive, finite number/);
});

test('the world server serves its own Zipf exponent only: a ?zipf= of another world is 404, not its own images', async () => {
  const skewed = new World({ seed: 5, zipfExponent: 1.3 });
  const plain = new World({ seed: 5 });
  for (const [served, other] of [
    [skewed, plain],
    [plain, skewed],
  ] as const) {
    const server = await serveWorld(served);
    try {
      const own = served.webPair(2).url;
      const foreign = other.webPair(2).url;
      const get = (url: string) => fetch(`${server.url}${url.slice('world:/'.length)}`);
      const response = await get(own);
      assert.equal(response.status, 200);
      assert.ok(Buffer.from(await response.arrayBuffer()).equals(await served.renderUrl(own)));
      const refused = await get(foreign);
      assert.equal(refused.status, 404, foreign);
      assert.match(await refused.text(), /serves the world of Zipf exponent/);
      assert.equal((await get(`world://5/web/2.jpg?zipf=${'9'.repeat(400)}`)).status, 404);
    } finally {
      await server.close();
    }
  }
});

test('a world built with another Zipf exponent names it in its URLs, so every loader renders its own scenes', async () => {
  const out = path.join(temporary, 'zipf');
  const sizes = { web: 20, 'coco-train': 4, 'coco-val': 0, 'nocaps-val': 4, 'nocaps-test': 0, flickr: 0, narratives: 0 };
  await buildWorld({ seed: 3, out, sizes, zipfExponent: 1.3 });
  const skewed = new World({ seed: 3, zipfExponent: 1.3 });
  const plain = new World({ seed: 3 });
  const rows = fs.readFileSync(path.join(out, 'web/cc12m.tsv'), 'utf8').trim().split('\n');
  const urls = rows.map((row) => row.split('\t')[0]!);
  assert.ok(
    urls.every((url) => url.endsWith('?zipf=1.3')),
    urls[0],
  );
  assert.deepEqual(parseWorldUrl(urls[5]!), { seed: 3, split: 'web', id: 5, extension: /\.(\w+)\?/.exec(urls[5]!)![1], zipf: 1.3 });
  // the two exponents draw different scenes for the same ids, and the URL picks the builder's
  const concepts = (w: World, id: number) => w.scene('web', id).objects.map((o) => w.concepts[o.concept]!.name);
  assert.ok(urls.some((_, id) => concepts(skewed, id).join() !== concepts(plain, id).join()));
  for (const [id, url] of urls.entries()) {
    const resolved = resolveWorldImage(url)!;
    assert.deepEqual(resolved.ref, { seed: 3, split: 'web', id, zipf: 1.3 });
    assert.deepEqual(concepts(resolved.world, id), concepts(skewed, id));
  }
  assert.ok((await resolveWorldImage(urls[2]!)!.world.render('web', 2)).equals(await skewed.renderUrl(urls[2]!)));
  await assert.rejects(async () => plain.renderUrl(urls[2]!), /Zipf exponent 1.3, this world has 1/);
  // caption files carry it too, so training and feature keys name the same images
  const keys = readEvalImages({ path: path.join(out, 'nocaps/nocaps_val.json') }).map((image) => image.key);
  assert.deepEqual(
    keys,
    [0, 1, 2, 3].map((id) => `world://3/nocaps-val/${id}.jpg?zipf=1.3`),
  );
  // the default exponent keeps the URLs and files every cached run was built from
  assert.ok(!world.webPair(3).url.includes('?'));
  assert.equal(worldUrl(new World({ seed: 3, zipfExponent: 1 }).ref('web', 1), 'png'), 'world://3/web/1.png');
});

test('a URL list naming many seeds keeps at most WORLD_CACHE_LIMIT worlds, the ones in use', () => {
  const inUse = resolveWorldImage('world://0/web/1.jpg')!.world;
  const once = resolveWorldImage('world://1000/web/1.jpg')!.world;
  for (let seed = 2000; seed < 2000 + 2 * WORLD_CACHE_LIMIT; seed++) {
    resolveWorldImage(`world://${seed}/web/1.jpg?zipf=1.${(seed % 7) + 1}`);
    assert.equal(resolveWorldImage('world://0/web/2.jpg')!.world, inUse);
  }
  // the world named once was dropped and is rebuilt, equal but not the same instance
  const again = resolveWorldImage('world://1000/web/1.jpg')!.world;
  assert.notEqual(again, once);
  assert.deepEqual(again.scene('web', 1), once.scene('web', 1));
});

test('--render writes img2dataset-style shards that read back with their images and truth', async () => {
  const out = path.join(temporary, 'rendered');
  const sizes = { web: 12, 'coco-train': 3, 'coco-val': 0, 'nocaps-val': 3, 'nocaps-test': 0, flickr: 0, narratives: 0 };
  await buildWorld({ seed: 2, out, sizes, render: true, samplesPerShard: 5 });
  const samples = [];
  for await (const sample of readSamples(path.join(out, 'shards/web'))) samples.push(sample);
  assert.equal(samples.length, 12);
  assert.deepEqual(
    fs.readdirSync(path.join(out, 'shards/web')).filter((f) => f.endsWith('.tar')),
    ['00000.tar', '00001.tar', '00002.tar'],
  );
  const pair = new World({ seed: 2 }).webPair(7);
  const seventh = samples[7];
  assert.equal(seventh.caption, pair.caption.replace(/[\t\r\n]/g, ' '));
  assert.deepEqual(seventh.json.tags, pair.tags);
  assert.ok(seventh.image.equals(await new World({ seed: 2 }).render('web', 7)));
  const nocaps = [];
  for await (const sample of readSamples(path.join(out, 'shards/nocaps-val'))) nocaps.push(sample);
  assert.equal((nocaps[0].json.references as string[]).length, 10);
});

test('cckit world build and cckit stats from the command line', () => {
  const out = path.join(temporary, 'cli');
  const build = runCli([
    'world',
    'build',
    '--seed',
    '3',
    '--out',
    out,
    '--size',
    'web=300',
    'coco-train=20',
    'coco-val=5',
    'nocaps-val=10',
    'nocaps-test=10',
    'flickr=5',
    'narratives=5',
  ]);
  assert.equal(build.status, 0, build.stderr);
  assert.match(build.stdout, /web\s+300/);
  const stats = runCli(['stats', path.join(out, 'web/cc12m.tsv'), '--json']);
  assert.equal(stats.status, 0, stats.stderr);
  assert.equal(JSON.parse(stats.stdout).pairs, 300);
  const bad = runCli(['world', 'build', '--preset', 'huge', '--out', out]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /--preset: "huge"/);
  assert.equal(runCli(['stats', '/nonexistent.tsv']).status, 1);
  for (const args of [
    ['world', 'build', '--help'],
    ['world', 'serve', '--help'],
    ['stats', '--help'],
  ])
    assert.equal(runCli(args).status, 0);
});

test("staleWorld: a cached world is rebuilt when an older generator wrote it or its sizes are not the preset's", () => {
  const sizes = { ...WORLD_PRESETS.tiny };
  const built = { generation: WORLD_GENERATION, preset: 'tiny' as const };
  assert.equal(staleWorld({ ...built, sizes }, 'tiny'), undefined);
  assert.match(staleWorld({ ...built, generation: WORLD_GENERATION - 1, sizes }, 'tiny')!, /older world generator/);
  assert.match(staleWorld({ ...built, sizes: { ...sizes, flickr: sizes.flickr + 1 } }, 'tiny')!, /other split sizes.*\(flickr\)/);
  assert.match(staleWorld({ ...built, sizes }, 'small')!, /small preset/);
  assert.match(staleWorld(built, 'tiny')!, /web, coco-train/);
  // a world built with custom sizes on purpose (a test's small world) is kept
  assert.equal(staleWorld({ generation: WORLD_GENERATION, preset: 'custom', sizes: { ...sizes, web: 300 } }, 'tiny'), undefined);
  assert.match(staleWorld({ generation: WORLD_GENERATION - 1, preset: 'custom', sizes }, 'tiny')!, /older world generator/);
});
