/**
 * Writes a world out in the ecosystem's formats, the same files real data comes in:
 *
 *   OUT/world.json                       manifest: seed, preset, sizes, files, options
 *   OUT/concepts.json                    the concept catalog (name, synset, hypernyms, COCO flag, web share)
 *   OUT/web/cc12m.tsv                    web candidate pool, CC12M-style `url<TAB>caption` (world:// URLs)
 *   OUT/web/cc3m.tsv                     the same pairs, CC3M-style `caption<TAB>url`
 *   OUT/web/truth.jsonl                  per pair: vision tags and ground truth (concepts, boxes, persons, match)
 *   OUT/coco/captions_{train,val}.json   COCO caption annotations (80 common concepts, 5 references)
 *   OUT/nocaps/nocaps_{val,test}.json    nocaps-style annotations with images[].domain (10 references)
 *   OUT/flickr/captions.json             retrieval set, 5 captions per image
 *   OUT/narratives/captions.json         long narrative-style captions
 *   OUT/shards/<split>/00000.tar …       (with `render`) img2dataset-style webdataset shards with the images
 *
 * Every file is written atomically; the same seed and preset give byte-identical files.
 */
import * as fs from 'fs';
import * as path from 'path';
import { writeCocoCaptions, writeNocapsCaptions, worldCocoInfo, CaptionedImage } from './coco';
import { TsvWriter } from './tsv';
import { commitTemporary, temporaryPath, writeJsonAtomic } from '../util/atomic';
import { writeShards, ShardRow } from './webdataset';
import { Progress, silentProgress } from '../util/progress';
import { WORLD_PRESETS, WORLD_SPLITS, WorldPresetName, WorldSplit } from '../world/splits';
import { CaptionedWorldImage, World, WORLD_GENERATION, WorldOptions } from '../world/world';
import { FORMAT_EXTENSION } from '../world/url';

/**
 * The seed and Zipf exponent only: the generator's other options (alt-text, scenes) change the scenes, and a
 * world URL names its image by seed and Zipf exponent alone, so files built with them would disagree with renders.
 */
export interface BuildOptions extends Pick<WorldOptions, 'seed' | 'zipfExponent'> {
  out: string;
  preset?: WorldPresetName;
  /** Overrides of the preset's split sizes. */
  sizes?: Partial<Record<WorldSplit, number>>;
  /** Also render every image into webdataset shards (slower; times in the README). */
  render?: boolean;
  samplesPerShard?: number;
  progress?: Progress;
}

export interface BuildManifest {
  cckitWorld: 1;
  /** The generator's generation (WORLD_GENERATION) the files were written by. */
  generation: number;
  seed: number;
  preset: WorldPresetName | 'custom';
  sizes: Record<WorldSplit, number>;
  files: Record<string, string>;
  options: { zipfExponent: number; render: boolean };
}

const CAPTIONED_FILES: Record<Exclude<WorldSplit, 'web'>, string> = {
  'coco-train': 'coco/captions_train.json',
  'coco-val': 'coco/captions_val.json',
  'nocaps-val': 'nocaps/nocaps_val.json',
  'nocaps-test': 'nocaps/nocaps_test.json',
  flickr: 'flickr/captions.json',
  narratives: 'narratives/captions.json',
};

/** Builds the world into `options.out`; returns the manifest it wrote. */
export async function buildWorld(options: BuildOptions): Promise<BuildManifest> {
  const progress = options.progress ?? silentProgress;
  const preset = options.preset ?? 'tiny';
  const sizes = { ...WORLD_PRESETS[preset], ...options.sizes };
  for (const split of WORLD_SPLITS) {
    if (!Number.isInteger(sizes[split]) || sizes[split] < 0) throw new Error(`world size of ${split} must be a whole number ≥ 0, got ${sizes[split]}`);
  }
  const world = new World({ seed: options.seed, zipfExponent: options.zipfExponent });
  const out = options.out;
  for (const dir of ['web', 'coco', 'nocaps', 'flickr', 'narratives']) fs.mkdirSync(path.join(out, dir), { recursive: true });
  const files: Record<string, string> = { concepts: 'concepts.json', webCc12m: 'web/cc12m.tsv', webCc3m: 'web/cc3m.tsv', webTruth: 'web/truth.jsonl' };

  writeJsonAtomic(
    path.join(out, files.concepts),
    world.concepts.map((c) => ({
      index: c.index,
      name: c.name,
      synset: c.synset,
      coco: c.coco,
      cocoName: c.cocoName,
      family: c.family,
      webShare: c.webShare,
      hypernyms: c.hypernyms,
    })),
  );

  // web pool: both TSV layouts and the truth, streamed
  const cc12m = TsvWriter.create(path.join(out, files.webCc12m), { layout: 'url-caption' });
  const cc3m = TsvWriter.create(path.join(out, files.webCc3m), { layout: 'caption-url' });
  const truthFile = path.join(out, files.webTruth);
  const truthTemporary = temporaryPath(truthFile);
  const truth = fs.openSync(truthTemporary, 'w');
  try {
    let buffer = '';
    for (let id = 0; id < sizes.web; id++) {
      const pair = world.webPair(id);
      const a = cc12m.write(pair);
      const b = cc3m.write(pair);
      if (a) await a;
      if (b) await b;
      buffer += JSON.stringify({ id: pair.id, url: pair.url, tags: pair.tags, ...pair.truth }) + '\n';
      if (buffer.length > 1 << 20) {
        fs.writeSync(truth, buffer);
        buffer = '';
      }
      if (id % 500 === 0 || id === sizes.web - 1) progress('web pool', id + 1, sizes.web);
    }
    fs.writeSync(truth, buffer);
    await cc12m.close();
    await cc3m.close();
  } finally {
    fs.closeSync(truth);
  }
  commitTemporary(truthTemporary, truthFile);

  // captioned splits in COCO / nocaps format
  for (const split of WORLD_SPLITS) {
    if (split === 'web') continue;
    const images: CaptionedWorldImage[] = [];
    for (let id = 0; id < sizes[split]; id++) images.push(world.captionedImage(split, id));
    progress(split, sizes[split], sizes[split]);
    const coco: CaptionedImage[] = images.map((image) => ({
      id: image.id,
      fileName: `${image.id}.${FORMAT_EXTENSION[image.truth.format]}`,
      width: image.truth.width,
      height: image.truth.height,
      captions: image.references,
      domain: image.domain,
      objects: image.truth.concepts,
    }));
    const file = path.join(out, CAPTIONED_FILES[split]);
    if (split === 'nocaps-val' || split === 'nocaps-test') writeNocapsCaptions(file, coco, { info: worldCocoInfo(split, options.seed, preset, world.zipf) });
    else writeCocoCaptions(file, coco, { info: worldCocoInfo(split, options.seed, preset, world.zipf) });
    files[split] = CAPTIONED_FILES[split];
  }

  if (options.render) {
    for (const split of WORLD_SPLITS) {
      const folder = path.join(out, 'shards', split);
      fs.mkdirSync(folder, { recursive: true });
      await writeShards(folder, renderedRows(world, split, sizes[split], progress), { samplesPerShard: options.samplesPerShard ?? 10_000, now: () => 0 });
      files[`shards/${split}`] = `shards/${split}`;
    }
  }

  const manifest: BuildManifest = {
    cckitWorld: 1,
    generation: WORLD_GENERATION,
    seed: options.seed,
    preset: options.sizes ? 'custom' : preset,
    sizes,
    files,
    options: { zipfExponent: options.zipfExponent ?? 1, render: Boolean(options.render) },
  };
  writeJsonAtomic(path.join(out, 'world.json'), manifest);
  return manifest;
}

/** Renders a split's images a few at a time (sharp works off the main thread). */
async function* renderedRows(world: World, split: WorldSplit, count: number, progress: Progress): AsyncGenerator<ShardRow> {
  const inFlight = 4;
  const pending: Promise<ShardRow>[] = [];
  const rowFor = async (id: number): Promise<ShardRow> => {
    const image = await world.render(split, id);
    const item = split === 'web' ? world.webPair(id) : world.captionedImage(split, id);
    const { format, width, height, ...truth } = item.truth;
    const [caption, meta] =
      'caption' in item ? [item.caption, { tags: item.tags, truth }] : [item.references[0], { references: item.references, domain: item.domain, truth }];
    return { kind: 'success', image, imageExt: FORMAT_EXTENSION[format] as 'jpg', caption, url: item.url, width, height, meta };
  };
  for (let id = 0; id < count; id++) {
    pending.push(rowFor(id));
    if (pending.length >= inFlight) yield await pending.shift()!;
    if (id % 100 === 0 || id === count - 1) progress(`render ${split}`, id + 1, count);
  }
  while (pending.length > 0) yield await pending.shift()!;
}
