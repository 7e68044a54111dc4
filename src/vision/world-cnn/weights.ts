/**
 * Saved weights: `<dir>/<id>.bin` (the named tensors' floats in a fixed order) and `<id>.json` (the
 * manifest, written last, with the size and checksum of the .bin), keyed by a hash of everything
 * that changes the weights. The backend is part of the key: floats differ slightly between backends.
 */
import * as fs from 'fs';
import * as path from 'path';
import { loadTf } from '../../tf/backend';
import { writeFileAtomic } from '../../util/atomic';
import { readJsonFile } from '../../util/json';
import { fnv1a } from '../../world/concepts';
import { WORLD_GENERATION } from '../../world/world';
import { WorldCnn, type WorldCnnConfig } from './model';
import type { PretrainMetrics, PretrainOptions } from './recipes';

/** Bumped when the architecture or the pre-training recipe changes (invalidates cached weights). */
export const WORLD_CNN_VERSION = 1;

interface Manifest {
  format: 'cckit-world-cnn';
  version: number;
  key: string;
  config: WorldCnnConfig;
  pretrain: PretrainOptions;
  backend: string;
  featureScale: number;
  tensors: { name: string; shape: number[] }[];
  bytes: number;
  checksum: number;
  metrics: PretrainMetrics;
  created: string;
}

/** The cache key of a configuration: a hash of everything that changes the weights. */
export function worldCnnKey(config: WorldCnnConfig, options: PretrainOptions, backend: string): string {
  // fixed key order (not the caller's), held-out size left out: it does not change the weights
  const o = options;
  const recipe = {
    worldSeed: o.worldSeed,
    seed: o.seed,
    images: o.images,
    steps: o.steps,
    batchSize: o.batchSize,
    learningRate: o.learningRate,
    sampler: o.sampler,
    denseWeight: o.denseWeight,
    hypernyms: o.hypernyms,
    attributeWeight: o.attributeWeight,
  };
  const arch = { inputSize: config.inputSize, channels: config.channels };
  return fnv1a(JSON.stringify({ v: WORLD_CNN_VERSION, config: arch, recipe, backend }))
    .toString(16)
    .padStart(8, '0');
}

export function worldCnnId(config: WorldCnnConfig, options: PretrainOptions, backend: string): string {
  // the world's generation is part of the id: features cached under it belong to that world's images
  return `world-cnn-${config.inputSize}px-d${config.channels[config.channels.length - 1]}-g${WORLD_GENERATION}-${worldCnnKey(config, options, backend)}`;
}

function checksum(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** Saves weights: the .bin first, then the manifest that names its size and checksum (a half-written pair never loads). */
export function saveWorldCnn(model: WorldCnn, dir: string, pretrain: PretrainOptions): { json: string; bin: string } {
  const named = model.namedTensors();
  const arrays = named.map((t) => t.tensor.dataSync() as Float32Array);
  const total = arrays.reduce((s, a) => s + a.length, 0);
  const flat = new Float32Array(total);
  let offset = 0;
  for (const a of arrays) {
    flat.set(a, offset);
    offset += a.length;
  }
  const bytes = new Uint8Array(flat.buffer);
  const bin = path.join(dir, `${model.id}.bin`);
  const json = path.join(dir, `${model.id}.json`);
  writeFileAtomic(bin, bytes);
  const manifest: Manifest = {
    format: 'cckit-world-cnn',
    version: WORLD_CNN_VERSION,
    key: model.id,
    config: model.config,
    pretrain,
    backend: model.metrics?.backend ?? loadTf().getBackend(),
    featureScale: model.scale,
    tensors: named.map((t) => ({ name: t.name, shape: t.tensor.shape })),
    bytes: bytes.length,
    checksum: checksum(bytes),
    metrics: model.metrics!,
    created: new Date().toISOString(),
  };
  writeFileAtomic(json, JSON.stringify(manifest, null, 1) + '\n');
  return { json, bin };
}

/** Loads saved weights, or undefined when absent or incomplete (size or checksum mismatch). */
export function loadWorldCnn(dir: string, id: string): WorldCnn | undefined {
  const json = path.join(dir, `${id}.json`);
  const bin = path.join(dir, `${id}.bin`);
  if (!fs.existsSync(json) || !fs.existsSync(bin)) return undefined;
  let manifest: Manifest;
  try {
    manifest = readJsonFile(json) as Manifest;
  } catch {
    return undefined;
  }
  if (manifest.format !== 'cckit-world-cnn' || manifest.version !== WORLD_CNN_VERSION) return undefined;
  const buffer = fs.readFileSync(bin);
  if (buffer.length !== manifest.bytes || checksum(buffer) !== manifest.checksum) return undefined;
  const flat = new Float32Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.length));
  const concepts = manifest.tensors.find((t) => t.name === 'head/b')!.shape[0]!;
  const model = WorldCnn.init(manifest.config, 0, concepts, id);
  let offset = 0;
  const byName = new Map(model.namedTensors().map((t) => [t.name, t.tensor]));
  const tf = loadTf();
  for (const spec of manifest.tensors) {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const variable = byName.get(spec.name);
    if (!variable || variable.shape.join() !== spec.shape.join())
      throw new Error(`world-cnn ${id}: tensor ${spec.name} [${spec.shape}] does not fit the architecture`);
    variable.assign(tf.tensor(flat.subarray(offset, offset + size), spec.shape));
    offset += size;
  }
  return model.withIdentity(id, manifest.featureScale, manifest.metrics);
}
