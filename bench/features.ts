/**
 * Feature extraction throughput of both backbones on world images (coco-val ids), images/s:
 * pixels alone (direct rendering at the input size), the backbone alone (a ready batch), and the
 * whole of `computeFeatures` (pixels + backbone + ROI pooling). Medians of several runs; the
 * store is not used, so every run computes. The world CNN is loaded from (or pre-trained into)
 * the cache folder with its default recipe; its load/pre-training time is printed once.
 *
 * Run: npx tsx bench/features.ts [images] [runs] [cacheDir]   (or node dist/bench/features.js … after a build)
 *
 * `npx tsx bench/features.ts probe [images] [cacheDir] [backbone…]` runs the region linear probes
 * (src/train/probe.ts) instead: test accuracy of naming each object from its region vector.
 */
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '../src/tf/backend';
import type { Backbone } from '../src/vision/backbone';
import { computeFeatures, imagePixels } from '../src/vision/features';
import { trainedBackbone } from '../src/train/world-cnn';
import { ImageSource } from '../src/data/images';
import { BACKBONE_NAMES, isBackboneName } from '../src/vision/backbone';
import { regionProbes } from '../src/train/probe';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function probe(args: string[]): Promise<void> {
  const n = Number(args[0] ?? 1500);
  const cacheDir = args[1] ?? '.cckit-cache';
  const names = args.slice(2).filter(isBackboneName);
  const info = await initBackend();
  console.log(`region linear probes on tfjs ${info.name}: ${n} training images per probe; test accuracy (train accuracy), regions`);
  for (const name of names.length ? names : BACKBONE_NAMES) {
    const backbone = await trainedBackbone(name, { worldCnn: { cacheDir } });
    const t0 = performance.now();
    const { coco, nocaps } = await regionProbes(backbone, n);
    const pct = (x: number) => (100 * x).toFixed(1);
    console.log(
      `${backbone.id.padEnd(32)} COCO-80 ${pct(coco.testAccuracy)}% (${pct(coco.trainAccuracy)}%) ${coco.trainRegions}/${coco.testRegions}   ` +
        `nocaps ${pct(nocaps.testAccuracy)}% (${pct(nocaps.trainAccuracy)}%) ${nocaps.trainRegions}/${nocaps.testRegions}   ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    backbone.dispose();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === 'probe') return probe(args.slice(1));
  const n = Number(args[0] ?? 64);
  const runs = Number(args[1] ?? 3);
  const cacheDir = args[2] ?? '.cckit-cache';
  const info = await initBackend();
  console.log(
    `feature extraction on tfjs ${info.name} ${info.version} (${info.threads} thread(s)), ${n} world coco-val images, median of ${runs} runs, images/s`,
  );
  console.log('backbone                         load s   pixels  backbone   features');
  const refs = Array.from({ length: n }, (_, id) => ({ key: `world://0/coco-val/${id}.jpg` }));
  const source = new ImageSource();
  for (const name of BACKBONE_NAMES) {
    let backbone!: Backbone;
    const loadMs = await timed(async () => {
      backbone = await trainedBackbone(name, { worldCnn: { cacheDir } });
    });
    const size = backbone.inputSize;
    const pixelRuns: number[] = [];
    const backboneRuns: number[] = [];
    const featureRuns: number[] = [];
    const batch = tf.randomUniform([32, size, size, 3], 0, 255, 'float32', 1) as tf.Tensor4D;
    // warm-up
    tf.dispose(backbone.featureMap(batch));
    for (let r = 0; r < runs; r++) {
      pixelRuns.push(
        await timed(async () => {
          for (let i = 0; i < refs.length; i += 8) await Promise.all(refs.slice(i, i + 8).map((ref) => imagePixels(ref, size, source)));
        }),
      );
      backboneRuns.push(
        await timed(async () => {
          const map = backbone.featureMap(batch);
          await map.data();
          map.dispose();
        }),
      );
      featureRuns.push(
        await timed(async () => {
          for await (const _ of computeFeatures(backbone, refs, { batchSize: 32, source })) void _;
        }),
      );
    }
    batch.dispose();
    const rate = (count: number, ms: number) => ((1000 * count) / ms).toFixed(1).padStart(8);
    console.log(
      `${backbone.id.padEnd(32)} ${(loadMs / 1000).toFixed(1).padStart(6)} ${rate(n, median(pixelRuns))} ${rate(32, median(backboneRuns))}   ${rate(n, median(featureRuns))}`,
    );
    backbone.dispose();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
