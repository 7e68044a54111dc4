/**
 * Checkpoints: `checkpoints/step-NNNNNNN/` holding the weights in tfjs's format (`model.json` with a
 * weights manifest + `weights.bin`), the optimiser slots the same way (`optimizer.json` +
 * `optimizer.bin`) and `state.json` (step, data position, anything the trainer needs to resume).
 *
 * Atomic: everything is written into a temporary sibling directory, fsynced, renamed into place,
 * and only then does `checkpoints/latest` (itself replaced atomically) name it. A run killed at any
 * moment leaves either the previous checkpoint or the new one as `latest`, never a partial one.
 *
 * Verified: `model.json` holds the sha256 of every other file, checked on load, and weights with NaN
 * or ±Inf are refused. A run whose latest checkpoint is damaged or incomplete loads the newest one
 * that passes, with a warning naming the skipped ones. Checkpoints written before the checksums
 * load unverified (still NaN-checked).
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import type * as TF from '@tensorflow/tfjs';

import { CHECKPOINTS_DIR } from '../runs/layout';
import { loadTf } from '../tf/backend';
import { writeFileAtomic, writeSynced } from '../util/atomic';
import { isRecord, readJsonFile } from '../util/json';

/** A checkpoint that is incomplete, damaged or holds non-finite weights. */
export class CheckpointError extends Error {
  constructor(
    readonly dir: string,
    detail: string,
  ) {
    super(`checkpoint ${dir}: ${detail}`);
    this.name = 'CheckpointError';
  }
}

export interface CheckpointContent<S> {
  weights: Map<string, TF.Tensor>;
  optimizer: Map<string, TF.Tensor>;
  state: S;
}

export interface ModelJson {
  format: 'cckit-checkpoint';
  version: 1;
  /** The model's config (kind, sizes, vocabulary size …), as the trainer wrote it. */
  modelConfig: unknown;
  weightsManifest: { paths: string[]; weights: TF.io.WeightsManifestEntry[] }[];
  /** sha256 (hex) of every other file of the checkpoint; absent in checkpoints from before it. */
  checksums?: Record<string, string>;
}

function sha256(data: Uint8Array): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

async function encode(tensors: Map<string, TF.Tensor>): Promise<{ data: Buffer; specs: TF.io.WeightsManifestEntry[] }> {
  const tf = loadTf();
  const named = [...tensors].map(([name, tensor]) => ({ name, tensor }));
  const { data, specs } = await tf.io.encodeWeights(named);
  return { data: Buffer.from(data), specs };
}

export function checkpointName(step: number): string {
  return `step-${String(step).padStart(7, '0')}`;
}

/** Writes a checkpoint for `step` and points `latest` at it; keeps the newest `keep` checkpoints. */
export async function saveCheckpoint<S>(runDir: string, step: number, content: CheckpointContent<S>, modelConfig: unknown, keep = 2): Promise<string> {
  const root = path.join(runDir, CHECKPOINTS_DIR);
  fs.mkdirSync(root, { recursive: true });
  const name = checkpointName(step);
  const final = path.join(root, name);
  const tmp = path.join(root, `.tmp-${name}-${process.pid}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp);
  const weights = await encode(content.weights);
  const optimizer = await encode(content.optimizer);
  const files: Record<string, Buffer> = {
    'weights.bin': weights.data,
    'optimizer.bin': optimizer.data,
    'optimizer.json': Buffer.from(JSON.stringify({ weightsManifest: [{ paths: ['optimizer.bin'], weights: optimizer.specs }] })),
    'state.json': Buffer.from(JSON.stringify(content.state)),
  };
  const checksums: Record<string, string> = {};
  for (const [file, data] of Object.entries(files)) {
    writeSynced(path.join(tmp, file), data);
    checksums[file] = sha256(data);
  }
  const modelJson: ModelJson = {
    format: 'cckit-checkpoint',
    version: 1,
    modelConfig,
    weightsManifest: [{ paths: ['weights.bin'], weights: weights.specs }],
    checksums,
  };
  // Written last: a directory with a model.json names only files already complete.
  writeSynced(path.join(tmp, 'model.json'), JSON.stringify(modelJson));
  fs.rmSync(final, { recursive: true, force: true });
  fs.renameSync(tmp, final);
  writeFileAtomic(path.join(root, 'latest'), name + '\n');
  pruneCheckpoints(root, keep, name);
  return final;
}

function pruneCheckpoints(root: string, keep: number, current: string): void {
  const all = fs
    .readdirSync(root)
    .filter((n) => /^step-\d+$/.test(n))
    .sort();
  for (const n of all.slice(0, Math.max(0, all.length - keep))) if (n !== current) fs.rmSync(path.join(root, n), { recursive: true, force: true });
  // Leftovers of a writer killed mid-checkpoint.
  for (const n of fs.readdirSync(root)) if (n.startsWith('.tmp-')) fs.rmSync(path.join(root, n), { recursive: true, force: true });
}

/** Whether `dir` is itself a checkpoint (or a step directory) rather than a run. */
function isCheckpointDir(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'model.json')) || /^step-\d+$/.test(path.basename(path.resolve(dir)));
}

/**
 * The checkpoint directories to try, best first: a checkpoint directory itself; for a run, the one
 * `latest` names, then the other step directories newest first.
 */
export function checkpointCandidates(runOrCheckpointDir: string): string[] {
  if (isCheckpointDir(runOrCheckpointDir)) return [runOrCheckpointDir];
  const root = path.join(runOrCheckpointDir, CHECKPOINTS_DIR);
  if (!fs.existsSync(root)) return [];
  const steps = fs
    .readdirSync(root)
    .filter((n) => /^step-\d+$/.test(n))
    .sort()
    .reverse();
  const pointer = path.join(root, 'latest');
  const latest = fs.existsSync(pointer) ? fs.readFileSync(pointer, 'utf8').trim() : undefined;
  const ordered = latest && steps.includes(latest) ? [latest, ...steps.filter((n) => n !== latest)] : steps;
  return ordered.map((n) => path.join(root, n));
}

/** The newest checkpoint directory that has a model.json (unverified: loadLatestCheckpoint checks the contents). */
export function latestCheckpoint(runOrCheckpointDir: string): string | undefined {
  return checkpointCandidates(runOrCheckpointDir).find((dir) => fs.existsSync(path.join(dir, 'model.json')));
}

/** A checkpoint file's bytes, checked against the manifest's sha256 when it has one. */
function readVerified(dir: string, file: string, checksums: Record<string, string> | undefined): Buffer {
  const full = path.join(dir, file);
  let data: Buffer;
  try {
    data = fs.readFileSync(full);
  } catch (err) {
    throw new CheckpointError(dir, `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const want = checksums?.[file];
  if (want !== undefined && sha256(data) !== want) throw new CheckpointError(dir, `${file} does not match its sha256 in model.json (damaged)`);
  return data;
}

function parseJson(dir: string, file: string, data: Buffer): unknown {
  try {
    return JSON.parse(data.toString('utf8'));
  } catch (err) {
    throw new CheckpointError(dir, `${path.join(dir, file)}: malformed JSON: ${(err as Error).message}`);
  }
}

/** The first non-finite float of a manifest group's bytes, as "name[index] = value", or undefined. */
function firstNonFinite(joined: Buffer, specs: TF.io.WeightsManifestEntry[]): string | undefined {
  let offset = 0;
  for (const spec of specs) {
    const count = spec.shape.reduce((a, b) => a * b, 1);
    if (spec.dtype === 'float32') {
      const floats = new Float32Array(joined.buffer.slice(joined.byteOffset + offset, joined.byteOffset + offset + count * 4));
      for (let i = 0; i < floats.length; i++) if (!Number.isFinite(floats[i]!)) return `${spec.name}[${i}] = ${floats[i]}`;
    }
    offset += count * 4;
  }
  return undefined;
}

function decode(dir: string, manifestFile: string, manifest: unknown, checksums: Record<string, string> | undefined): Map<string, TF.Tensor> {
  const tf = loadTf();
  const file = path.join(dir, manifestFile);
  if (!isRecord(manifest) || !Array.isArray(manifest.weightsManifest)) throw new CheckpointError(dir, `${file}: no weightsManifest`);
  const out = new Map<string, TF.Tensor>();
  for (const group of manifest.weightsManifest as ModelJson['weightsManifest']) {
    const joined = Buffer.concat(group.paths.map((p) => readVerified(dir, p, checksums)));
    const expected = group.weights.reduce((s, w) => s + w.shape.reduce((a, b) => a * b, 1) * 4, 0);
    if (joined.length !== expected) throw new CheckpointError(dir, `${file}: weights are ${joined.length} bytes, the manifest needs ${expected}`);
    const bad = firstNonFinite(joined, group.weights);
    if (bad) throw new CheckpointError(dir, `${group.paths.join(', ')}: non-finite weight ${bad}`);
    const named = tf.io.decodeWeights(joined.buffer.slice(joined.byteOffset, joined.byteOffset + joined.length), group.weights);
    for (const [name, t] of Object.entries(named)) out.set(name, t);
  }
  return out;
}

export function readModelJson(checkpointDir: string): ModelJson {
  const file = path.join(checkpointDir, 'model.json');
  if (!fs.existsSync(file)) throw new CheckpointError(checkpointDir, 'no model.json (incomplete)');
  let json: unknown;
  try {
    json = readJsonFile(file);
  } catch (err) {
    throw new CheckpointError(checkpointDir, (err as Error).message);
  }
  if (!isRecord(json) || json.format !== 'cckit-checkpoint')
    throw new CheckpointError(checkpointDir, `${file}: not a cckit checkpoint (format ${String(isRecord(json) ? json.format : json)})`);
  return json as unknown as ModelJson;
}

export interface LoadedCheckpoint<S> extends CheckpointContent<S> {
  modelConfig: unknown;
  dir: string;
  /** Whether the files were checked against sha256 checksums (false: a checkpoint from before them). */
  verified: boolean;
}

/** Loads one checkpoint directory; throws CheckpointError when it is incomplete, damaged or non-finite. */
export function loadCheckpoint<S>(checkpointDir: string, options: { optimizer?: boolean } = {}): LoadedCheckpoint<S> {
  const modelJson = readModelJson(checkpointDir);
  const checksums = isRecord(modelJson.checksums) ? modelJson.checksums : undefined;
  const weights = decode(checkpointDir, 'model.json', modelJson, checksums);
  try {
    const optimizer =
      options.optimizer === false
        ? new Map<string, TF.Tensor>()
        : decode(
            checkpointDir,
            'optimizer.json',
            parseJson(checkpointDir, 'optimizer.json', readVerified(checkpointDir, 'optimizer.json', checksums)),
            checksums,
          );
    const state = parseJson(checkpointDir, 'state.json', readVerified(checkpointDir, 'state.json', checksums)) as S;
    return { weights, optimizer, state, modelConfig: modelJson.modelConfig, dir: checkpointDir, verified: checksums !== undefined };
  } catch (err) {
    for (const t of weights.values()) t.dispose();
    throw err;
  }
}

/**
 * Loads the newest checkpoint of a run that passes verification (or the checkpoint directory given),
 * warning about each one skipped; undefined when the run has none at all.
 */
export function loadLatestCheckpoint<S>(
  runOrCheckpointDir: string,
  options: { optimizer?: boolean; warn?: (line: string) => void } = {},
): LoadedCheckpoint<S> | undefined {
  const warn = options.warn ?? ((line: string) => process.stderr.write(line + '\n'));
  const candidates = checkpointCandidates(runOrCheckpointDir);
  if (candidates.length === 0) return undefined;
  const skipped: string[] = [];
  for (const dir of candidates) {
    try {
      const loaded = loadCheckpoint<S>(dir, options);
      if (!loaded.verified) warn(`cckit: checkpoint ${dir} has no checksums (written before them): loaded unverified`);
      return loaded;
    } catch (err) {
      if (!(err instanceof CheckpointError) || candidates.length === 1) throw err;
      skipped.push(err.message);
      warn(`cckit: skipping ${err.message}; trying the previous checkpoint`);
    }
  }
  throw new Error(`${runOrCheckpointDir}: no usable checkpoint (${skipped.join('; ')})`);
}

/** A run's checkpoints, oldest first: step number and folder. */
export function listCheckpoints(runDir: string): { step: number; dir: string }[] {
  const root = path.join(runDir, CHECKPOINTS_DIR);
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .filter((n) => /^step-\d+$/.test(n) && fs.existsSync(path.join(root, n, 'model.json')))
    .sort()
    .map((n) => ({ step: Number(n.slice('step-'.length)), dir: path.join(root, n) }));
}
