import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { loadTagsFile } from '../src/data/tags';
import { runPipeline } from '../src/filters/pipeline';
import { PRESETS, buildStages } from '../src/filters/presets';
import { filterPool } from '../src/filters/run';
import { WordCounts } from '../src/filters/text';
import { buildWorld } from '../src/data/build-world';
import { isWorldData, worldCatalog } from '../src/world/catalog';
import { runCli } from './helpers';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-presets-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const sizes = { web: 400, 'coco-train': 0, 'coco-val': 0, 'nocaps-val': 0, 'nocaps-test': 0, flickr: 0, narratives: 0 };

test('both presets over a small world: funnel invariant, CC3M stricter, CC12M keeps raw text with <PERSON>', async () => {
  const world = path.join(dir, 'world');
  await buildWorld({ seed: 4, out: world, sizes });
  const input = path.join(world, 'web/cc12m.tsv');
  const captions = fs
    .readFileSync(input, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split('\t')[1]);
  const truth = fs
    .readFileSync(path.join(world, 'web/truth.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const results: Record<string, Awaited<ReturnType<typeof runPipeline>>> = {};
  for (const name of ['cc3m', 'cc12m'] as const) {
    const { stages, datasetStages } = buildStages(PRESETS[name], {
      vocabulary: WordCounts.fromCaptions(captions),
      vocabularyPairs: captions.length,
      nsfw: false,
      catalog: worldCatalog(),
    });
    results[name] = await runPipeline({
      input,
      out: path.join(dir, name),
      stages,
      datasetStages,
      tags: loadTagsFile(path.join(world, 'web/truth.jsonl')),
      label: name,
    });
    const r = results[name];
    assert.equal(r.input, 400);
    assert.equal(r.kept + r.funnel.rejectedTotal, 400, `${name}: every row kept or rejected`);
    const rejectedLines = fs.readFileSync(r.files.rejects, 'utf8').trim().split('\n').length;
    assert.equal(rejectedLines, r.funnel.rejectedTotal);
  }
  assert.ok(results.cc3m.kept < results.cc12m.kept, `cc3m kept ${results.cc3m.kept}, cc12m ${results.cc12m.kept}`);
  // the text and image–text stages on worker threads give the same files as in-process
  const pooledBuild = buildStages(PRESETS.cc12m, { vocabulary: WordCounts.fromCaptions(captions), vocabularyPairs: captions.length, nsfw: false, workers: 2 });
  try {
    const pooled = await runPipeline({ input, out: path.join(dir, 'cc12m-pooled'), ...pooledBuild, tags: loadTagsFile(path.join(world, 'web/truth.jsonl')) });
    assert.equal(fs.readFileSync(pooled.files.kept, 'utf8'), fs.readFileSync(results.cc12m.files.kept, 'utf8'));
    assert.equal(fs.readFileSync(pooled.files.funnel, 'utf8'), fs.readFileSync(results.cc12m.files.funnel, 'utf8'));
  } finally {
    await pooledBuild.close();
  }
  assert.ok(results.cc12m.kept > 0);
  // CC12M: kept captions whose source named a person now say <PERSON> instead
  const kept = fs
    .readFileSync(results.cc12m.files.kept, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  const byUrl = new Map(truth.map((t: { url: string }) => [t.url, t]));
  let withPerson = 0;
  for (const [url, caption] of kept) {
    const t = byUrl.get(url) as unknown as { persons: { name: string }[] };
    for (const person of t.persons) {
      withPerson++;
      assert.ok(!caption.toLowerCase().includes(person.name.toLowerCase()), `${caption} still names ${person.name}`);
      assert.ok(caption.includes('<PERSON>'), caption);
    }
  }
  assert.ok(withPerson > 0, 'some kept captions named a person');
  // the image stage saw real image bytes: PNG/GIF/small/wide web images were rejected
  const imageStage = results.cc12m.funnel.rows().find((s) => s.stage === 'image')!;
  assert.ok(
    Object.keys(imageStage.rejected).some((r) => r.startsWith('image:format')),
    JSON.stringify(imageStage.rejected),
  );
});

test('cckit filter runs a preset from the command line and prints the funnel', () => {
  const input = path.join(dir, 'world/web/cc12m.tsv');
  const run = runCli(['filter', '--preset', 'cc12m', '--in', input, '--out', path.join(dir, 'cli'), '--no-nsfw', '--stages', 'text,image-text,transform']);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /cc12m pipeline over/);
  assert.match(run.stdout, /image-text\s+\d+\s+\d+/);
  assert.ok(fs.existsSync(path.join(dir, 'cli/funnel.jsonl')));
  const bad = runCli(['filter', '--preset', 'cc99', '--in', input, '--out', path.join(dir, 'x')]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /--preset: "cc99"/);
});

test('real data gets the WordNet concept catalog by default; world data the world catalog (cckit filter --catalog auto)', async () => {
  const real = path.join(dir, 'real.tsv');
  const rows = ['My beagle on the sofa at home', 'a durian on a table in the kitchen', 'Cute dachshund puppy sleeping on a blanket'];
  fs.writeFileSync(real, rows.map((caption, i) => `${caption}\thttps://images.example.com/${i}.jpg\n`).join(''));
  const keptOf = (out: string) =>
    fs
      .readFileSync(path.join(out, 'kept.tsv'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[0]);
  await filterPool({ preset: 'cc3m', input: real, out: path.join(dir, 'real-default'), nsfw: false, stages: ['transform'] });
  // the default rule hypernymises named things only: common nouns stay (docs/filters.md)
  assert.deepEqual(keptOf(path.join(dir, 'real-default')), [
    'my beagle on the sofa at home',
    'a durian on a table in the kitchen',
    'cute dachshund puppy sleeping on a blanket',
  ]);
  await filterPool({ preset: 'cc3m', input: real, out: path.join(dir, 'real-every-noun'), nsfw: false, stages: ['transform'], hypernymRule: 'every-noun' });
  assert.deepEqual(keptOf(path.join(dir, 'real-every-noun')), [
    'my hound on the sofa at home',
    'a tree on a table in the kitchen',
    'cute dog puppy sleeping on a blanket',
  ]);
  await filterPool({
    preset: 'cc3m',
    input: real,
    out: path.join(dir, 'real-world'),
    nsfw: false,
    stages: ['transform'],
    catalog: worldCatalog(),
    hypernymRule: 'every-noun',
  });
  assert.deepEqual(keptOf(path.join(dir, 'real-world'))[1], 'a fruit on a table in the kitchen', "the world's catalog: durian → fruit");
  assert.equal(isWorldData(real), false);
  assert.equal(isWorldData(path.join(dir, 'world/web/cc3m.tsv')), true);
  assert.equal(isWorldData(path.join(dir, 'world/web/cc12m.tsv')), true);
  // the command line: auto picks WordNet for real data, the world's catalog for world:// data; entities for both
  const cli = (input: string, ...flags: string[]) =>
    runCli(['filter', '--preset', 'cc3m', '--in', input, '--out', path.join(dir, 'cli-catalog'), '--no-nsfw', '--stages', 'transform', ...flags]);
  let run = cli(real);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /concept catalog: wordnet \(--catalog auto\)/);
  assert.match(run.stdout, /hypernymised: entities \(--hypernyms auto\)/);
  assert.equal(keptOf(path.join(dir, 'cli-catalog'))[0], 'my beagle on the sofa at home');
  run = cli(real, '--hypernyms', 'every-noun');
  assert.equal(keptOf(path.join(dir, 'cli-catalog'))[0], 'my hound on the sofa at home');
  run = cli(real, '--catalog', 'world', '--hypernyms', 'every-noun');
  assert.match(run.stdout, /concept catalog: world \(--catalog world\)/);
  assert.equal(keptOf(path.join(dir, 'cli-catalog'))[1], 'a fruit on a table in the kitchen');
  run = cli(path.join(dir, 'world/web/cc3m.tsv'));
  assert.match(run.stdout, /concept catalog: world \(--catalog auto\)/);
  assert.match(run.stdout, /hypernymised: entities \(--hypernyms auto\)/);
  run = cli(real, '--catalog', 'kg');
  assert.equal(run.status, 1);
  assert.match(run.stderr, /--catalog: "kg"/);
});

test('the pipeline reads webdataset shards too: images and tags come from the samples', async () => {
  const world = path.join(dir, 'rendered');
  await buildWorld({ seed: 9, out: world, sizes: { ...sizes, web: 30 }, render: true, samplesPerShard: 10 });
  const { stages, datasetStages } = buildStages(PRESETS.cc12m, { nsfw: false, only: ['image-text', 'image', 'transform'] });
  const result = await runPipeline({ input: path.join(world, 'shards/web'), out: path.join(dir, 'from-shards'), stages, datasetStages });
  assert.equal(isWorldData(path.join(world, 'shards/web')), true, 'a world shard folder is world data');
  assert.equal(isWorldData(dir), false);
  assert.equal(result.input, 30);
  assert.equal(result.kept + result.funnel.rejectedTotal, 30);
  const imageStage = result.funnel.rows().find((s) => s.stage === 'image')!;
  assert.ok(imageStage.in > 0 && imageStage.out > 0);
  assert.ok(!Object.keys(imageStage.rejected).some((r) => r.startsWith('download')), 'no image was fetched: the shard held it');
  const kept = fs.readFileSync(result.files.kept, 'utf8').trim().split('\n');
  assert.ok(
    kept.every((line) => line.startsWith('world://9/web/')),
    'kept pairs keep their source URL',
  );
});
