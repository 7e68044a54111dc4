/**
 * The feature store: features computed once per image and backbone, kept on disk.
 *
 * Layout: `CACHE/features/<backbone id>[-<variant>]/`
 * - `chunk-*.bin`: float32 records, one per image: global (D) | grid (64·D) | regions (R·D) | boxes (R·5).
 * - `index.json`: format, backbone id, D, grid side, variant, the chunk files (bytes, checksum)
 *   and for each key [chunk, float offset, R, tags].
 *
 * Atomicity: a chunk is written to a temporary sibling, fsynced and renamed before the index
 * that names it is (the same way) replaced, so the index only ever names complete chunks and a
 * crash leaves at most an unreferenced chunk or temporary file; a chunk whose size or checksum
 * does not match the index is refused. Appending re-reads the index from disk and merges it while
 * holding `index.json.lock` (src/util/lock.ts), so processes appending at the same time never lose
 * each other's entries.
 *
 * Reading: chunks are read whole into memory on first use (a few MB each) and records are
 * Float32Array views into them.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Backbone } from './backbone';
import { GRID_SIZE, computeFeatures, type FeatureFailure, type FeatureOptions, type ImageFeatures, type ImageRef, type RegionPolicy } from './features';
import { writeFileAtomic } from '../util/atomic';
import { isRecord, readJsonFile } from '../util/json';
import { withLock } from '../util/lock';
import { DEFAULT_CACHE_DIR } from './world-cnn';

export const FEATURE_STORE_VERSION = 1;

interface ChunkInfo {
  file: string;
  bytes: number;
  checksum: number;
}

/** [chunk index, float offset, region count, tags]. */
type Entry = [number, number, number, string[]];

interface StoreIndex {
  format: 'cckit-features';
  version: number;
  backbone: string;
  featureDim: number;
  gridSize: number;
  variant: string;
  created: string;
  updated: string;
  chunks: ChunkInfo[];
  entries: Record<string, Entry>;
}

function checksum(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

export interface FeatureStoreOptions {
  /** Cache root (default .cckit-cache). */
  cacheDir?: string;
  /** Settings besides the backbone that change the features (default: the region policy). */
  variant?: string;
}

export class FeatureStore {
  private index: StoreIndex;
  private readonly loaded = new Map<number, Float32Array>();

  private constructor(
    readonly dir: string,
    readonly backboneId: string,
    readonly featureDim: number,
    readonly variant: string,
  ) {
    this.index = this.readIndex() ?? this.emptyIndex();
  }

  /** Opens (or starts) the store of a backbone. */
  static open(backbone: Pick<Backbone, 'id' | 'featureDim'>, options: FeatureStoreOptions = {}): FeatureStore {
    const variant = options.variant ?? 'boxes';
    const dir = path.join(options.cacheDir ?? DEFAULT_CACHE_DIR, 'features', variant === 'boxes' ? backbone.id : `${backbone.id}-${variant}`);
    return new FeatureStore(dir, backbone.id, backbone.featureDim, variant);
  }

  get indexFile(): string {
    return path.join(this.dir, 'index.json');
  }

  private emptyIndex(): StoreIndex {
    const now = new Date().toISOString();
    return {
      format: 'cckit-features',
      version: FEATURE_STORE_VERSION,
      backbone: this.backboneId,
      featureDim: this.featureDim,
      gridSize: GRID_SIZE,
      variant: this.variant,
      created: now,
      updated: now,
      chunks: [],
      entries: {},
    };
  }

  private readIndex(): StoreIndex | undefined {
    if (!fs.existsSync(this.indexFile)) return undefined;
    const index = readJsonFile(this.indexFile) as StoreIndex;
    if (!isRecord(index) || index.format !== 'cckit-features' || index.version !== FEATURE_STORE_VERSION)
      throw new Error(`${this.indexFile}: not a cckit feature index (version ${FEATURE_STORE_VERSION})`);
    if (index.backbone !== this.backboneId || index.featureDim !== this.featureDim || index.gridSize !== GRID_SIZE) {
      throw new Error(`${this.indexFile}: holds ${index.backbone} (D=${index.featureDim}), not ${this.backboneId} (D=${this.featureDim})`);
    }
    return index;
  }

  get size(): number {
    return Object.keys(this.index.entries).length;
  }

  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.index.entries, key);
  }

  keys(): string[] {
    return Object.keys(this.index.entries);
  }

  private chunk(i: number): Float32Array {
    let data = this.loaded.get(i);
    if (data) return data;
    const info = this.index.chunks[i];
    if (!info) throw new Error(`${this.indexFile}: no chunk ${i}`);
    const file = path.join(this.dir, info.file);
    const buffer = fs.readFileSync(file);
    if (buffer.length !== info.bytes || checksum(buffer) !== info.checksum)
      throw new Error(`${file}: size or checksum differs from the index (damaged cache: delete ${this.dir})`);
    data =
      buffer.byteOffset % 4 === 0
        ? new Float32Array(buffer.buffer, buffer.byteOffset, buffer.length / 4)
        : new Float32Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.length));
    this.loaded.set(i, data);
    return data;
  }

  /** The features of a key (views into the chunk in memory), or undefined. */
  get(key: string): ImageFeatures | undefined {
    if (!this.has(key)) return undefined;
    const [c, offset, r, tags] = this.index.entries[key]!;
    const data = this.chunk(c);
    const d = this.featureDim;
    const g = GRID_SIZE * GRID_SIZE * d;
    let at = offset;
    const take = (n: number) => data.subarray(at, (at += n));
    return { key, global: take(d), grid: take(g), regions: take(r * d), boxes: take(r * 5), tags: [...tags] };
  }

  /** Appends features as one new chunk, then replaces the index (see the module comment). */
  append(features: readonly ImageFeatures[]): void {
    if (features.length === 0) return;
    const d = this.featureDim;
    const g = GRID_SIZE * GRID_SIZE * d;
    let floats = 0;
    for (const f of features) {
      const r = f.regions.length / d;
      if (f.global.length !== d || f.grid.length !== g || !Number.isInteger(r) || f.boxes.length !== r * 5) {
        throw new Error(
          `feature store: ${f.key} has the wrong shape for D=${d} (global ${f.global.length}, grid ${f.grid.length}, regions ${f.regions.length}, boxes ${f.boxes.length})`,
        );
      }
      floats += d + g + f.regions.length + f.boxes.length;
    }
    const data = new Float32Array(floats);
    const placed: [string, number, number, string[]][] = [];
    let at = 0;
    for (const f of features) {
      placed.push([f.key, at, f.regions.length / d, [...f.tags]]);
      for (const part of [f.global, f.grid, f.regions, f.boxes]) {
        data.set(part, at);
        at += part.length;
      }
    }
    const bytes = new Uint8Array(data.buffer);
    const file = `chunk-${Date.now().toString(36)}-${process.pid}-${Math.random().toString(36).slice(2, 8)}.bin`;
    fs.mkdirSync(this.dir, { recursive: true });
    writeFileAtomic(path.join(this.dir, file), bytes);
    // Merge with what is on disk now (another process may have appended since we read it), locked
    // so that two appenders cannot both read the old index and each write it back without the other's chunk.
    const current = withLock(`${this.indexFile}.lock`, { what: `feature index ${this.indexFile}`, waitMs: 60_000 }, () => {
      const onDisk = this.readIndex() ?? this.emptyIndex();
      onDisk.chunks.push({ file, bytes: bytes.length, checksum: checksum(bytes) });
      for (const [key, offset, r, tags] of placed) onDisk.entries[key] = [onDisk.chunks.length - 1, offset, r, tags];
      onDisk.updated = new Date().toISOString();
      writeFileAtomic(this.indexFile, JSON.stringify(onDisk) + '\n');
      return onDisk;
    });
    const chunkIndex = current.chunks.length - 1;
    // chunk numbers may have shifted if the index changed on disk: drop cached chunks
    if (current.chunks.length !== this.index.chunks.length + 1) this.loaded.clear();
    this.index = current;
    this.loaded.set(chunkIndex, data);
  }
}

export interface ExtractOptions extends FeatureOptions, FeatureStoreOptions {
  backbone: Backbone;
  /** Images per chunk written (default 1024): the most work a crash can lose. */
  chunkSize?: number;
}

export interface ExtractResult {
  store: FeatureStore;
  /** Images read, repeats included. */
  read: number;
  computed: number;
  cached: number;
  failed: FeatureFailure[];
}

/**
 * Makes sure the store holds features of every image: computes only the missing ones, in
 * batches through the backbone, and appends them chunk by chunk. Duplicate keys are computed once.
 * A stream of images (a folder shard's samples) is read as it goes, a few batches at a time, so
 * memory holds one chunk of features and a few batches of image bytes, however long the stream;
 * `total` then sizes the progress bar.
 */
export async function extractFeatures(
  images: readonly ImageRef[] | AsyncIterable<ImageRef>,
  options: ExtractOptions & { total?: number },
): Promise<ExtractResult> {
  const regions: RegionPolicy = options.regions ?? 'boxes';
  const store = FeatureStore.open(options.backbone, { cacheDir: options.cacheDir, variant: options.variant ?? regions });
  const total = Array.isArray(images) ? images.length : options.total;
  const batchSize = options.batchSize ?? 32;
  const chunkSize = options.chunkSize ?? 1024;
  const seen = new Set<string>();
  const failed: FeatureFailure[] = [];
  let cached = 0;
  let computed = 0;
  let read = 0;
  let pending: ImageFeatures[] = [];
  let waiting: ImageRef[] = [];
  const compute = async () => {
    const refs = waiting;
    waiting = [];
    for await (const batch of computeFeatures(options.backbone, refs, { ...options, regions, progress: undefined })) {
      pending.push(...batch.features);
      failed.push(...batch.failures);
      computed += batch.features.length;
      if (pending.length >= chunkSize) {
        store.append(pending);
        pending = [];
      }
    }
    options.progress?.('features', read, Math.max(total ?? 0, read));
  };
  for await (const ref of images as AsyncIterable<ImageRef>) {
    read++;
    if (seen.has(ref.key)) continue;
    seen.add(ref.key);
    if (store.has(ref.key)) cached++;
    else waiting.push(ref);
    if (waiting.length >= batchSize * 4) await compute();
  }
  if (waiting.length > 0) await compute();
  store.append(pending);
  options.progress?.('features', read, Math.max(total ?? 0, read));
  return { store, read, computed, cached, failed };
}
