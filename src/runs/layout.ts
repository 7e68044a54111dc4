/**
 * The run layout: every training / evaluation run lives in one directory, `runs/<id>/`, which the CLI,
 * the notebooks and the VS Code sidebar all read.
 *
 * ```
 * runs/<id>/
 *   run.json                      RunInfo: id, config, inputs, backend, status, timestamps
 *   log.jsonl                     one LogLine per line (training steps and validations)
 *   run.lock                      while a process trains it: {pid, hostname, started}
 *   checkpoints/step-000120/      tfjs weights + optimizer.json + state.json (data position); atomic
 *   checkpoints/latest            name of the newest complete checkpoint directory
 *   predictions/<split>.json      PredictionsFile: caption, references, domain, thumbnail, per-image scores
 *   scores/<split>.json           ScoresFile: corpus metrics (+ nocaps domains, + grounding on world data)
 *   thumbs/<image-id>.jpg         small images for the sidebar and caption grids
 * ```
 *
 * This module holds only the shapes and plain file helpers (no tfjs), so the extension can import it; it
 * also gives the pure comparison of two runs' predictions (./compare.ts) to the extension that way.
 */
import * as fs from 'fs';
import * as path from 'path';
import { readJsonFile } from '../util/json';

export * from './compare';

export const RUN_FILE = 'run.json';
export const LOG_FILE = 'log.jsonl';
export const PREDICTIONS_DIR = 'predictions';
export const SCORES_DIR = 'scores';
export const THUMBS_DIR = 'thumbs';
export const CHECKPOINTS_DIR = 'checkpoints';
/** Held by the process training the run (pid, hostname, start time). */
export const LOCK_FILE = 'run.lock';

export type RunStatus = 'running' | 'done' | 'failed';

export interface RunInfo {
  id: string;
  /** Human label, e.g. "pretrain cc12m (IC)". */
  name?: string;
  status: RunStatus;
  /** Full config as given (plain JSON). */
  config: unknown;
  /** Content hashes of the inputs the id was derived from (data files, parent checkpoint). */
  inputs?: Record<string, string>;
  /** tfjs backend that ran it ('wasm-native', 'wasm', 'cpu', 'tensorflow', …). */
  backend?: string;
  /** wasm-native: what computed its kernels, e.g. "cckit avx512, 1 thread". */
  kernels?: string;
  created: string;
  updated: string;
  /** Visual features spec (backbone, mode, tags) the run was trained on. */
  features?: unknown;
  /** Run this one was fine-tuned from. */
  parent?: string;
}

/** A line of `log.jsonl`: a training step (`loss`) or a validation (`val`). */
export interface LogLine {
  step: number;
  epoch?: number;
  /** Loss per objective (ic, mlm, moc, vlm) and `total`. */
  loss?: Record<string, number>;
  lr?: number;
  samplesPerSec?: number;
  /** Validation metrics (CIDEr, BLEU-4, …), x100 scale for CIDEr is not applied: raw coco-caption values. */
  val?: Record<string, number>;
  split?: string;
  time: string;
}

/** One captioned image in a predictions file. */
export interface PredictionItem {
  image_id: string | number;
  caption: string;
  references?: string[];
  domain?: 'in' | 'near' | 'out';
  /** Thumbnail path relative to the run directory (e.g. "thumbs/17.jpg"). */
  thumb?: string;
  /** Source image URL as given to the model (world://…, http(s)://…, or a path). */
  url?: string;
  /** Per-image scores (CIDEr, BLEU-4, …) on the raw coco-caption scale. */
  scores?: Record<string, number>;
  /** The ground-truth judge's verdict (world data only): present objects named, mentions hallucinated. */
  grounding?: ItemGrounding;
}

/** One caption's verdict of the grounding judge (src/metrics/grounding.ts). */
export interface ItemGrounding {
  /** Present concepts the caption names. */
  named: string[];
  /** Present concepts it names only by a hypernym ("a fruit"). */
  byKind?: string[];
  /** Object mentions that name nothing in the image (nor a hypernym of something in it). */
  hallucinated: string[];
  /** Object mentions in all. */
  mentions?: number;
}

/** Grounding figures of a set of captions (shares in [0, 1]); see src/metrics/grounding.ts. */
export interface GroundingFiguresJson {
  /** Share of captions naming at least one present object (name, synonym or hypernym). */
  recall: number;
  /** Share of captions naming at least one present object by its own name or a synonym. */
  specificRecall?: number;
  /** Share of present objects named. */
  objectRecall: number;
  /** CHAIR_s: share of captions with a hallucinated mention. */
  chairS: number;
  /** CHAIR_i: hallucinated mentions / object mentions. */
  chairI: number;
  captions: number;
}

export interface PredictionsFile {
  version: 1;
  run: string;
  split: string;
  decoder?: string;
  created: string;
  items: PredictionItem[];
}

export interface ScoresFile {
  version: 1;
  run: string;
  split: string;
  corpus: Record<string, number>;
  /** nocaps breakdown, when domains are present. */
  domains?: Partial<Record<'in' | 'near' | 'out' | 'overall', Record<string, number>>>;
  /** Object recall and CHAIR figures, when the images carry ground-truth objects (the world's splits). */
  grounding?: { overall: GroundingFiguresJson } & Partial<Record<'in' | 'near' | 'out', GroundingFiguresJson>>;
  /** Version of the judge that wrote `grounding` (src/metrics/grounding.ts JUDGE_VERSION); older ones are judged again. */
  groundingJudge?: number;
  created: string;
}


export function readRunInfo(runDir: string): RunInfo {
  return readJsonFile(path.join(runDir, RUN_FILE)) as RunInfo;
}

/** Run directories under `runsRoot` (those with a run.json), newest first. */
export function listRuns(runsRoot: string): RunInfo[] {
  if (!fs.existsSync(runsRoot)) return [];
  const out: RunInfo[] = [];
  for (const name of fs.readdirSync(runsRoot)) {
    const file = path.join(runsRoot, name, RUN_FILE);
    if (!fs.existsSync(file)) continue;
    try {
      out.push(readJsonFile(file) as RunInfo);
    } catch {
      // a run.json being rewritten: skip it this time
    }
  }
  return out.sort((a, b) => b.updated.localeCompare(a.updated));
}

/** Splits that have predictions in a run. */
export function predictionSplits(runDir: string): string[] {
  const dir = path.join(runDir, PREDICTIONS_DIR);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();
}

export function readPredictions(runDir: string, split: string): PredictionsFile {
  const file = path.join(runDir, PREDICTIONS_DIR, `${split}.json`);
  const value = readJsonFile(file) as PredictionsFile;
  if (value.version !== 1 || !Array.isArray(value.items)) throw new Error(`${file}: not a cckit predictions file (version 1)`);
  return value;
}

export function readScores(runDir: string, split: string): ScoresFile | undefined {
  const file = path.join(runDir, SCORES_DIR, `${split}.json`);
  return fs.existsSync(file) ? (readJsonFile(file) as ScoresFile) : undefined;
}

export function readLog(runDir: string): LogLine[] {
  const file = path.join(runDir, LOG_FILE);
  if (!fs.existsSync(file)) return [];
  const lines: LogLine[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      lines.push(JSON.parse(line) as LogLine);
    } catch {
      // a torn last line from a killed run: the resumed run rewrites from its checkpoint
    }
  }
  return lines;
}
