/**
 * Checkpoints: `checkpoints/step-NNNNNNN/` holding the weights in tfjs's format (`model.json` with a
 * weights manifest + `weights.bin`), the optimiser slots the same way (`optimizer.json` +
 * `optimizer.bin`) and `state.json` (step, data position, anything the trainer needs to resume).
 *
 * Atomic: everything is written into a temporary sibling directory, fsynced, renamed into place,
 * and only then does `checkpoints/latest` (itself replaced atomically) name it. A run killed at any
 * moment leaves either the previous checkpoint or the new one as `latest`, never a partial one.
 */
import * as fs from 'fs';
import * as path from 'path';

import type * as TF from '@tensorflow/tfjs';

import { CHECKPOINTS_DIR } from '../runs/layout';
import { loadTf } from '../tf/backend';
import { writeFileAtomic, writeSynced } from '../util/atomic';

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
  const modelJson: ModelJson = {
    format: 'cckit-checkpoint',
    version: 1,
    modelConfig,
    weightsManifest: [{ paths: ['weights.bin'], weights: weights.specs }],
  };
  writeSynced(path.join(tmp, 'weights.bin'), weights.data);
  writeSynced(path.join(tmp, 'model.json'), JSON.stringify(modelJson));
  writeSynced(path.join(tmp, 'optimizer.bin'), optimizer.data);
  writeSynced(path.join(tmp, 'optimizer.json'), JSON.stringify({ weightsManifest: [{ paths: ['optimizer.bin'], weights: optimizer.specs }] }));
  writeSynced(path.join(tmp, 'state.json'), JSON.stringify(content.state));
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

/** The newest complete checkpoint directory of a run (or a checkpoint directory itself), or undefined. */
export function latestCheckpoint(runOrCheckpointDir: string): string | undefined {
  if (fs.existsSync(path.join(runOrCheckpointDir, 'model.json'))) return runOrCheckpointDir;
  const root = path.join(runOrCheckpointDir, CHECKPOINTS_DIR);
  const pointer = path.join(root, 'latest');
  if (!fs.existsSync(pointer)) return undefined;
  const dir = path.join(root, fs.readFileSync(pointer, 'utf8').trim());
  return fs.existsSync(path.join(dir, 'model.json')) ? dir : undefined;
}

function decode(dir: string, manifestFile: string): Map<string, TF.Tensor> {
  const tf = loadTf();
  const file = path.join(dir, manifestFile);
  let manifest: { weightsManifest: { paths: string[]; weights: TF.io.WeightsManifestEntry[] }[] };
  try {
    manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: cannot read checkpoint manifest (${e instanceof Error ? e.message : String(e)})`);
  }
  const out = new Map<string, TF.Tensor>();
  for (const group of manifest.weightsManifest) {
    const buffers = group.paths.map((p) => fs.readFileSync(path.join(dir, p)));
    const joined = Buffer.concat(buffers);
    const expected = group.weights.reduce((s, w) => s + w.shape.reduce((a, b) => a * b, 1) * 4, 0);
    if (joined.length !== expected) throw new Error(`${file}: weights are ${joined.length} bytes, the manifest needs ${expected}`);
    const named = tf.io.decodeWeights(joined.buffer.slice(joined.byteOffset, joined.byteOffset + joined.length), group.weights);
    for (const [name, t] of Object.entries(named)) out.set(name, t);
  }
  return out;
}

export function readModelJson(checkpointDir: string): ModelJson {
  const file = path.join(checkpointDir, 'model.json');
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as ModelJson;
  if (json.format !== 'cckit-checkpoint') throw new Error(`${file}: not a cckit checkpoint (format ${String(json.format)})`);
  return json;
}

export function loadCheckpoint<S>(checkpointDir: string, options: { optimizer?: boolean } = {}): CheckpointContent<S> & { modelConfig: unknown } {
  const modelJson = readModelJson(checkpointDir);
  const weights = decode(checkpointDir, 'model.json');
  const optimizer = options.optimizer === false ? new Map<string, TF.Tensor>() : decode(checkpointDir, 'optimizer.json');
  const state = JSON.parse(fs.readFileSync(path.join(checkpointDir, 'state.json'), 'utf8')) as S;
  return { weights, optimizer, state, modelConfig: modelJson.modelConfig };
}
