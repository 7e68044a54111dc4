/**
 * The cost model of docs/scale.md: images per second of each heavy stage in ONE cckit process, on the
 * embedded world served over loopback (src/world/server.ts; its images are rendered once before the
 * timings, so the server costs nothing while they run). Each stage runs as the CLI would run one shard,
 * at two sizes, under /usr/bin/time: the difference between the sizes gives the steady rate without the
 * start-up (loading models, vocabularies), and user + system CPU seconds give images per CPU-second,
 * i.e. per core, which a busy machine disturbs less than wall time. Medians over the rounds.
 *
 * Stages: download (--resize-mode no; border 256), the filter's image stage with the pornography
 * detector (cc12m preset) and without it, the filter's text stages alone (text,transform on a TSV, main
 * thread, reference vocabulary), features (mobilenet), and captioning (`cckit caption`, beam 5, with a
 * tiny transformer trained here for 300 steps on mobilenet features; its images are world:// renders, so
 * rendering is in its cost). Then what every shard reads besides its slice (a download shard streams the whole
 * list; a filter or features shard over a folder without _stats.json reads up to its slice), and the projection:
 * hours for CC12M's and CC3M's rows on 1, 10 and 100 nodes.
 *
 * Run: npm run bench:scale [-- images rounds]   (default 400 images, 5 rounds; download runs 4× the
 * rows, the text stages 100×, captioning ¼; the small size of each is ¼ of the large one)
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readTsv } from '../src/data/tsv';
import { readImg2dataset } from '../src/data/webdataset';
import { CC12M_PAIRS, CC3M_PAIRS } from '../src/filters/presets';
import { PACKAGE_ROOT } from '../src/paths';
import { serveWorld } from '../src/world/server';
import type { WorldSplit } from '../src/world/splits';
import { World } from '../src/world/world';

/** Projection assumptions (printed with the table). */
const CORES_PER_NODE = 32;
const NODES = [1, 10, 100] as const;
const NODE_GBIT_PER_S = 1;

const CCKIT = path.join(PACKAGE_ROOT, 'bin', 'cckit.js');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** The world with every render kept: the loopback server then answers from memory. */
class CachedWorld extends World {
  private readonly renders = new Map<string, Promise<Buffer>>();
  override render(split: WorldSplit, id: number): Promise<Buffer> {
    const key = `${split}/${id}`;
    let bytes = this.renders.get(key);
    if (!bytes) {
      bytes = super.render(split, id);
      this.renders.set(key, bytes);
    }
    return bytes;
  }
}

interface Timing {
  wall: number;
  cpu: number;
  maxRssMb: number;
  stdout: string;
}

/** `cckit ARGS` under /usr/bin/time, without blocking this process (it serves the web). */
function cckit(args: string[], cwd = PACKAGE_ROOT): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'CCKIT-TIME %e %U %S %M', process.execPath, CCKIT, ...args], { cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      const m = /CCKIT-TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
      if (code !== 0 || !m) return reject(new Error(`cckit ${args.join(' ')} exited ${code}: ${stderr.slice(-800)}`));
      resolve({ wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]), maxRssMb: Number(m[4]) / 1024, stdout });
    });
  });
}

function writeList(world: World, base: string, file: string, rows: number): string {
  const lines: string[] = [];
  for (let id = 0; id < rows; id++) {
    const ext = { jpeg: 'jpg', png: 'png', gif: 'gif' }[world.scene('web', id).format];
    lines.push(`${base}/${world.seed}/web/${id}.${ext}\t${world.webPair(id).caption}`);
  }
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** The first `count` images (and their captions) of a COCO captions file. */
function cocoHead(file: string, count: number, out: string): string {
  const coco = JSON.parse(fs.readFileSync(file, 'utf8')) as { images: { id: number }[]; annotations: { image_id: number }[] };
  const images = coco.images.slice(0, count);
  const ids = new Set(images.map((i) => i.id));
  fs.writeFileSync(out, JSON.stringify({ ...coco, images, annotations: coco.annotations.filter((a) => ids.has(a.image_id)) }));
  return out;
}

interface Stage {
  name: string;
  /** Rows (images, or captions for the text stages) at the small and the large size. */
  sizes: [number, number];
  /** One timed run over `rows`; `fresh` is an empty folder for its outputs. */
  run: (rows: number, fresh: string) => Promise<Timing>;
  /** A line about the first large run's output (read before the folder is removed). */
  note?: (fresh: string) => string;
}

interface Measured {
  stage: Stage;
  wall: [number[], number[]];
  cpu: [number[], number[]];
  rss: number[];
}

/**
 * Per round, the marginal cost of one image: (large − small run) / (large − small rows), in wall and in CPU
 * milliseconds; the rates are 1000 / the median cost, and the range shows how much the rounds disagreed.
 */
function rates(m: Measured) {
  const [small, large] = m.stage.sizes;
  const cost = (times: [number[], number[]]) => times[1].map((t, i) => (1000 * (t - times[0][i]!)) / (large - small));
  const wallMs = cost(m.wall);
  const cpuMs = cost(m.cpu);
  const wall = [median(m.wall[0]), median(m.wall[1])] as const;
  const perSecond = 1000 / median(wallMs);
  return {
    wall,
    cpu: [median(m.cpu[0]), median(m.cpu[1])] as const,
    perSecond,
    perCpuSecond: 1000 / median(cpuMs),
    cpuMs: [median(cpuMs), Math.min(...cpuMs), Math.max(...cpuMs)] as const,
    startup: wall[0] - small / perSecond,
    rss: Math.max(...m.rss),
  };
}

const hours = (rows: number, perSecond: number) => rows / perSecond / 3600;
/** Hours as a reader wants them: "12 h", "3.4 h", "18 min", "< 1 min". */
function duration(h: number): string {
  if (!(h > 0) || !Number.isFinite(h)) return 'n/a (noise)';
  if (h >= 10) return `${h.toFixed(0)} h`;
  if (h >= 1) return `${h.toFixed(1)} h`;
  return h * 60 >= 1 ? `${(h * 60).toFixed(0)} min` : '< 1 min';
}

/** The image stage's funnel line: how many rows reached the decode and the detector (past the header checks). */
function imageFunnel(fresh: string, detector: boolean): string {
  const lines = fs.readFileSync(path.join(fresh, 'funnel.jsonl'), 'utf8').trim().split('\n');
  const stage = lines
    .map((l) => JSON.parse(l) as { stage: string; in: number; out: number; rejected: Record<string, number> })
    .find((l) => l.stage.startsWith('image'))!;
  const early = Object.entries(stage.rejected)
    .filter(([reason]) => /^image:(format|too-small|aspect|pixels)/.test(reason))
    .reduce((sum, [, n]) => sum + n, 0);
  const reasons = Object.entries(stage.rejected)
    .map(([r, n]) => `${r} ${n}`)
    .join(', ');
  return `${stage.in} rows, ${stage.in - early} past the header checks (format, size, aspect) and decoded${detector ? ' and scored by the detector' : ''}, ${stage.out} kept; ${reasons}`;
}

async function main(): Promise<void> {
  const images = Number(process.argv[2] ?? 400);
  const rounds = Number(process.argv[3] ?? 5);
  const quarter = Math.max(4, Math.round(images / 4));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-bench-scale-'));
  const world = new CachedWorld({ seed: 0 });
  const downloadRows = 4 * images;
  const t0 = performance.now();
  let bytes = 0;
  for (let id = 0; id < downloadRows; id++) bytes += (await world.render('web', id)).length;
  const renderMs = (performance.now() - t0) / downloadRows;
  const meanKib = bytes / downloadRows / 1024;
  const web = await serveWorld(world);
  console.log(`cckit bench:scale, ${new Date().toISOString().slice(0, 10)}; node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()})`);
  console.log(
    `world seed 0 web images served from memory on ${web.url}: ${downloadRows} rendered once (${renderMs.toFixed(1)} ms each), mean ${meanKib.toFixed(0)} KiB`,
  );
  try {
    const lists = new Map<number, string>();
    const listOf = (rows: number) => {
      if (!lists.has(rows)) lists.set(rows, writeList(world, web.url, path.join(dir, `list-${rows}.tsv`), rows));
      return lists.get(rows)!;
    };
    const download = (extra: string[]) => (rows: number, fresh: string) =>
      cckit(['download', '--in', listOf(rows), '--out', fresh, '--allow-private', '--no-progress', '--processes', '1', ...extra]);

    // the shard folders the image stages read (the unresized download of the first `quarter` and `images` rows), and a larger one to read through
    const folders = new Map<number, string>();
    for (const rows of [quarter, images, downloadRows]) {
      const out = path.join(dir, `folder-${rows}`);
      await cckit(['download', '--in', listOf(rows), '--out', out, '--allow-private', '--no-progress', '--resize-mode', 'no']);
      folders.set(rows, out);
    }

    // a captioner to time: a tiny transformer trained for 300 steps on mobilenet features of 300 COCO-train images
    const setup = performance.now();
    const worldDir = path.join(dir, 'world');
    await cckit(['world', 'build', '--preset', 'tiny', '--out', worldDir]);
    const config = path.join(dir, 'caption-run.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        name: 'bench-scale',
        seed: 0,
        features: { backbone: 'mobilenet', mode: 'global', tags: false },
        model: { kind: 'transformer', size: 'tiny' },
        data: {
          train: [{ kind: 'coco', path: cocoHead(path.join(worldDir, 'coco', 'captions_train.json'), 300, path.join(dir, 'train300.json')) }],
          maxCaptionLen: 20,
        },
        vocab: { minCount: 2 },
        objectives: { ic: 1 },
        optimizer: { name: 'adam', lr: 0.001, warmup: 50, decay: 'linear' },
        batchSize: 32,
        steps: 300,
        clipNorm: 1,
        labelSmoothing: 0.1,
        checkpointEvery: 300,
      }),
    );
    await cckit(['train', '--config', config, '--runs', path.join(dir, 'runs')], dir);
    const [runId] = fs.readdirSync(path.join(dir, 'runs'));
    const nocaps = path.join(worldDir, 'nocaps', 'nocaps_val.json');
    console.log(`captioner for the caption stage: world build + 300 training steps in ${((performance.now() - setup) / 1000).toFixed(0)} s (runs/${runId})`);

    const captionRows: [number, number] = [Math.max(4, Math.round(images / 16)), quarter];
    const stages: Stage[] = [
      { name: 'download --resize-mode no', sizes: [images, downloadRows], run: download(['--resize-mode', 'no']) },
      {
        name: 'download --resize-mode border --image-size 256',
        sizes: [images, downloadRows],
        run: download(['--resize-mode', 'border', '--image-size', '256']),
      },
      {
        name: 'filter cc12m --stages image (detector on)',
        sizes: [quarter, images],
        run: (rows, fresh) => cckit(['filter', '--preset', 'cc12m', '--in', folders.get(rows)!, '--out', fresh, '--stages', 'image']),
        note: (fresh) => imageFunnel(fresh, true),
      },
      {
        name: 'filter cc12m --stages image --no-nsfw',
        sizes: [quarter, images],
        run: (rows, fresh) => cckit(['filter', '--preset', 'cc12m', '--in', folders.get(rows)!, '--out', fresh, '--stages', 'image', '--no-nsfw']),
        note: (fresh) => imageFunnel(fresh, false),
      },
      {
        name: 'filter cc12m --stages text,transform (TSV, --workers 0)',
        sizes: [100 * quarter, 100 * images],
        run: (rows, fresh) =>
          cckit([
            'filter',
            '--preset',
            'cc12m',
            '--in',
            listOf(rows),
            '--out',
            fresh,
            '--stages',
            'text,transform',
            '--no-nsfw',
            '--workers',
            '0',
            '--vocabulary',
            'reference',
          ]),
      },
      {
        name: 'features --backbone mobilenet',
        sizes: [quarter, images],
        run: (rows, fresh) => cckit(['features', '--in', folders.get(rows)!, '--backbone', 'mobilenet', '--out', fresh]),
      },
      {
        name: 'caption --decode cc12m (beam 5; features included)',
        sizes: captionRows,
        // a fresh working folder: the images' features are computed, not found in a cache
        run: (rows, fresh) => {
          fs.mkdirSync(fresh, { recursive: true });
          return cckit(
            ['caption', '--ckpt', path.join(dir, 'runs', runId!), '--in', nocaps, '--out', path.join(fresh, 'preds.json'), '--limit', String(rows)],
            fresh,
          );
        },
      },
    ];

    const measured: Measured[] = stages.map((stage) => ({ stage, wall: [[], []], cpu: [[], []], rss: [] }));
    let runs = 0;
    const notes: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const line: string[] = [];
      for (const m of measured)
        for (const which of [0, 1] as const) {
          const fresh = path.join(dir, `run-${runs++}`);
          const t = await m.stage.run(m.stage.sizes[which], fresh);
          if (round === 0 && which === 1 && m.stage.note) notes.push(`${m.stage.name}: ${m.stage.note(fresh)}`);
          fs.rmSync(fresh, { recursive: true, force: true });
          m.wall[which].push(t.wall);
          m.cpu[which].push(t.cpu);
          m.rss.push(t.maxRssMb);
          if (which === 1) line.push(`${m.stage.name.split(' ')[0]} ${t.wall.toFixed(1)}/${t.cpu.toFixed(1)} s`);
        }
      console.log(`round ${round + 1} (large size, wall/CPU): ${line.join('; ')}`);
    }

    console.log(
      `\none process per stage; rows small → large; medians of ${rounds} rounds; rates from the per-image cost between the two sizes (start-up excluded)\n` +
        '\n| stage | rows | wall s | CPU s | images/s (1 process) | CPU ms per image (range) | images per CPU-second | start-up s | peak RSS MiB |\n|---|---|---|---|---|---|---|---|---|',
    );
    const results = measured.map((m) => ({ m, r: rates(m) }));
    for (const { m, r } of results)
      console.log(
        `| ${m.stage.name} | ${m.stage.sizes[0]} → ${m.stage.sizes[1]} | ${r.wall[0].toFixed(1)} → ${r.wall[1].toFixed(1)} | ${r.cpu[0].toFixed(1)} → ${r.cpu[1].toFixed(1)} | ` +
          `${r.perSecond.toFixed(1)} | ${r.cpuMs[0].toPrecision(2)} (${r.cpuMs[1].toPrecision(2)}–${r.cpuMs[2].toPrecision(2)}) | ${r.perCpuSecond.toFixed(1)} | ${r.startup.toFixed(1)} | ${r.rss.toFixed(0)} |`,
      );

    for (const note of notes) console.log(note);

    // what a filter or features shard over a folder without _stats.json reads: a count, then up to its slice (readSampleRange)
    const folder = folders.get(downloadRows)!;
    const reads: number[] = [];
    let folderBytes = 0;
    for (let round = 0; round <= rounds; round++) {
      const start = performance.now();
      let count = 0;
      folderBytes = 0;
      for await (const raw of readImg2dataset(folder)) {
        count++;
        for (const member of Object.values(raw.files)) folderBytes += member?.length ?? 0;
      }
      if (round > 0) reads.push(count / ((performance.now() - start) / 1000)); // round 0 warms up
    }
    const readRate = median(reads);
    const sampleKib = folderBytes / downloadRows / 1024;
    const passTib = (CC12M_PAIRS * sampleKib) / 1024 ** 3;
    const listRates: number[] = [];
    for (let round = 0; round <= rounds; round++) {
      const start = performance.now();
      let count = 0;
      for await (const row of readTsv(listOf(100 * images), { layout: 'url-caption', malformed: 'reject' })) if (row) count++;
      if (round > 0) listRates.push(count / ((performance.now() - start) / 1000));
    }
    const listRate = median(listRates);
    console.log(
      `\nreading the list through (every download shard streams the whole list to pick its rows): ${listRate.toFixed(0)} rows/s; ` +
        `CC12M's ${CC12M_PAIRS.toLocaleString('en')} rows: ${duration(hours(CC12M_PAIRS, listRate))} per shard`,
    );
    console.log(
      `\nreading a shard folder through (a filter or features shard over a folder without _stats.json counts it, then reads up to its slice): ` +
        `${readRate.toFixed(0)} samples/s (${((readRate * sampleKib) / 1024).toFixed(0)} MiB/s from the page cache, this process), ${sampleKib.toFixed(0)} KiB per sample; ` +
        `CC12M's ${CC12M_PAIRS.toLocaleString('en')} samples: ${duration(hours(CC12M_PAIRS, readRate))} and ${passTib.toFixed(2)} TiB per pass`,
    );

    // the projection: CPU-bound stages scale linearly with cores; download is also held to the nodes' bandwidth
    const bandwidth = (NODE_GBIT_PER_S * 1e9) / 8 / (meanKib * 1024);
    console.log(
      `\nprojection: ${CORES_PER_NODE}-core nodes, one process per core at the images per CPU-second above, linear in cores; ` +
        `download also ≤ ${NODE_GBIT_PER_S} Gbit/s per node at ${meanKib.toFixed(0)} KiB per image (${bandwidth.toFixed(0)} images/s per node); no start-up, merge, or slow-host tail`,
    );
    for (const [label, rows] of [
      ['CC12M', CC12M_PAIRS],
      ['CC3M', CC3M_PAIRS],
    ] as const) {
      console.log(
        `\n| ${label}: time for ${rows.toLocaleString('en')} rows | ${NODES.map((n) => `${n} node${n > 1 ? 's' : ''}`).join(' | ')} |\n|---|${NODES.map(() => '---').join('|')}|`,
      );
      for (const { m, r } of results) {
        const cells = NODES.map((nodes) => {
          let perSecond = r.perCpuSecond * CORES_PER_NODE * nodes;
          if (m.stage.name.startsWith('download')) perSecond = Math.min(perSecond, bandwidth * nodes);
          return duration(hours(rows, perSecond));
        });
        console.log(`| ${m.stage.name} | ${cells.join(' | ')} |`);
        if (m.stage.name.startsWith('filter cc12m --stages image (detector on)')) {
          // over a folder without _stats.json each filter shard also reads 1.5 passes of it: a count, then up to its slice's end
          const withReads = NODES.map((nodes) => duration(hours(rows, r.perCpuSecond * CORES_PER_NODE * nodes) + 1.5 * hours(rows, readRate)));
          console.log(`| … the same over a folder without _stats.json, one shard per core, each also reading 1.5 passes of it | ${withReads.join(' | ')} |`);
        }
      }
    }
    console.log(
      `\nthat filter, one shard per core over CC12M's folder, reads ${NODES.map((nodes) => `${((1.5 * CORES_PER_NODE * nodes * passTib) / 1024).toFixed(1)} PiB`).join(' / ')} ` +
        `in all on ${NODES.join(' / ')} nodes (${(1.5 * passTib).toFixed(1)} TiB per shard)`,
    );
  } finally {
    await web.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
