/**
 * Caption a split with a trained run and score it: decode (greedy or beam), write
 * `runs/<id>/predictions/<split>.json` + `scores/<split>.json` (nocaps breakdown when the images
 * have domains, object recall / CHAIR when they carry the world's ground-truth objects) and
 * thumbnails for the sidebar. And choose a run's checkpoint on val (`selectCheckpoint`).
 */
import * as fs from 'fs';
import * as path from 'path';

import { captionImages, DecodeSettings, describeDecoder, evaluateRun, ImageBatch, RunEvaluation, type EvaluateRunOptions } from '../decode';
import { PREDICTIONS_DIR, readPredictions, SCORES_DIR } from '../runs/layout';
import { writeThumbnails } from '../runs/thumbs';
import type { ImageSource } from '../data/images';
import type { EvalImage } from '../train/data';
import { listCheckpoints } from '../train/checkpoint';
import { loadRunModel } from '../train/load';
import type { VisualProvider } from '../train/visual';

export interface CaptionSplitOptions {
  /** Name of the split in the run layout (e.g. "nocaps-val"). */
  split: string;
  decode: DecodeSettings;
  /** Caption with this checkpoint of the run (its folder) instead of the latest. */
  checkpoint?: string;
  /** Shared thumbnail cache (default: `<runs root>/.thumbs`). */
  thumbsCache?: string;
  thumbnails?: boolean;
  /** Loads the thumbnails' images (default: an ImageSource with the safe defaults: no private addresses). */
  images?: ImageSource;
  batchSize?: number;
  progress?: (done: number, total: number) => void;
  /** Metric families scored (default BLEU, ROUGE-L, CIDEr-D; CC3M's tables add METEOR and SPICE). */
  metrics?: EvaluateRunOptions['metrics'];
}

export async function captionSplit(runDir: string, images: readonly EvalImage[], visual: VisualProvider, options: CaptionSplitOptions): Promise<RunEvaluation> {
  const captions = await decodeSplit(runDir, images, visual, options);
  return scoreSplit(runDir, images, captions, options);
}

/** Whether a run's split holds captions and scores from this decoder (captioning it again would repeat them). */
export function splitCaptioned(runDir: string, split: string, decode: DecodeSettings): boolean {
  return (
    fs.existsSync(path.join(runDir, PREDICTIONS_DIR, `${split}.json`)) &&
    fs.existsSync(path.join(runDir, SCORES_DIR, `${split}.json`)) &&
    readPredictions(runDir, split).decoder === describeDecoder(decode)
  );
}

/**
 * The one "caption unless stored": captionSplit unless the split's captions from this decoder are stored (and
 * `stored`, when given, accepts them; `force`: always), saying what it captions; `visual` may be a function that gives
 * the provider only when something is captioned. The new evaluation, or undefined when the stored one stands.
 */
export async function captionSplitOnce(
  runDir: string,
  images: readonly EvalImage[],
  visual: VisualProvider | (() => Promise<VisualProvider>),
  options: CaptionSplitOptions & { force?: boolean; say?: (line: string) => void; label: string; stored?: (runDir: string) => boolean },
): Promise<RunEvaluation | undefined> {
  if (!options.force && splitCaptioned(runDir, options.split, options.decode) && (options.stored?.(runDir) ?? true)) return undefined;
  options.say?.(`captioning ${options.split} (${images.length} images) with ${options.label}`);
  return captionSplit(runDir, images, typeof visual === 'function' ? await visual() : visual, options);
}

/** One kept checkpoint of a run (its step and folder), as a candidate of `selectCheckpoint`. */
export interface CheckpointCandidate {
  step: number;
  dir: string;
  /** The split its val captions and scores are stored under (`<val split>.<checkpoint folder>`). */
  split: string;
}

/** The checkpoint chosen on val: every candidate's score, and the chosen step and folder. */
export interface CheckpointSelection<S> {
  candidates: { step: number; score: S }[];
  step: number;
  dir: string;
}

/**
 * Scores every kept checkpoint of a run on val (`scoreAt` captions `valSplit` with it, stored under the
 * candidate's split) and chooses the best by `value` (ties go to the earlier checkpoint); the caller then reports
 * val and test at the chosen one.
 */
export async function selectCheckpoint<S>(
  runDir: string,
  valSplit: string,
  scoreAt: (candidate: CheckpointCandidate) => Promise<S>,
  value: (score: S) => number,
): Promise<CheckpointSelection<S>> {
  const candidates: CheckpointSelection<S>['candidates'] = [];
  let best: { step: number; dir: string; value: number } | undefined;
  for (const { step, dir } of listCheckpoints(runDir)) {
    const score = await scoreAt({ step, dir, split: `${valSplit}.${path.basename(dir)}` });
    candidates.push({ step, score });
    if (!best || value(score) > best.value) best = { step, dir, value: value(score) };
  }
  if (!best) throw new Error(`${runDir}: no checkpoints to choose from`);
  return { candidates, step: best.step, dir: best.dir };
}

/** Decodes a caption for each image (no scores, nothing written): what one shard of a split does. */
export async function decodeSplit(
  runDir: string,
  images: readonly EvalImage[],
  visual: VisualProvider,
  options: Pick<CaptionSplitOptions, 'decode' | 'checkpoint' | 'batchSize' | 'progress'>,
): Promise<Map<string, string>> {
  const { model, vocab } = await loadRunModel(options.checkpoint ?? runDir);
  try {
    await visual.prepare(images.map((i) => i.key));
    const batchSize = options.batchSize ?? 50;
    const batches = function* (): Generator<ImageBatch> {
      for (let i = 0; i < images.length; i += batchSize) {
        const chunk = images.slice(i, i + batchSize);
        yield {
          ids: chunk.map((c) => c.imageId),
          input: visual.encoderInput(
            chunk.map((c) => c.key),
            { wordId: (w) => vocab.idOf(w), training: false },
          ),
        };
      }
    };
    const captions = new Map<string, string>();
    for await (const p of captionImages(model, batches(), vocab, options.decode)) {
      captions.set(String(p.image_id), p.caption);
      options.progress?.(captions.size, images.length);
    }
    return captions;
  } finally {
    model.dispose();
  }
}

/** Scores decoded captions of a split against its references and writes the run's predictions, scores and thumbnails. */
export async function scoreSplit(
  runDir: string,
  images: readonly EvalImage[],
  captions: ReadonlyMap<string, string>,
  options: Pick<CaptionSplitOptions, 'split' | 'decode' | 'thumbsCache' | 'thumbnails' | 'images' | 'metrics'>,
): Promise<RunEvaluation> {
  const extras: Record<string, { thumb?: string; url?: string }> = {};
  if (options.thumbnails ?? true) {
    const thumbs = await writeThumbnails(
      runDir,
      images.map((i) => ({ id: i.imageId, url: i.key })),
      options.thumbsCache ?? path.join(path.dirname(runDir), '.thumbs'),
      options.images,
    );
    for (const img of images) extras[String(img.imageId)] = { url: img.key, ...(thumbs[String(img.imageId)] ? { thumb: thumbs[String(img.imageId)] } : {}) };
  }
  const cases = images.map((img) => ({
    imageId: String(img.imageId),
    references: img.references,
    candidate: captions.get(String(img.imageId)) ?? '',
    ...(img.domain ? { domain: img.domain } : {}),
    ...(img.objects ? { objects: img.objects } : {}),
  }));
  return evaluateRun(cases, {
    runDir,
    split: options.split,
    decoder: describeDecoder(options.decode),
    extras,
    metrics: options.metrics ?? ['bleu', 'rouge', 'cider'],
  });
}
