/**
 * The feature store: features computed once per image content and backbone, kept on disk.
 *
 * Layout: `CACHE/features/<backbone id>[-<variant>]/`
 * - `chunk-*.bin`: float32 records, one per image: global (D) | grid (64·D) | regions (R·D) | boxes (R·5).
 * - `index.json`: format, version, backbone id, D, grid side, variant, the pixel preprocessing's version, the
 *   chunk files (bytes, checksum), for each content key [chunk, float offset, R, tags, record checksum], and
 *   `sources`: the names images were read under (path, URL, SHARD#KEY) → their content key.
 *
 * Keys: an image is stored under what it is, not where it was read: `sha256:<hex>` of its encoded bytes (plus a
 * digest of the boxes and tags given with it, which change the regions and the tag tokens); a `world://` URL
 * names its content itself (the world is deterministic). So `cckit features` over the shards and `cckit train`
 * over the same images copied into a split folder share one entry. Local files are read and hashed on every
 * extraction (a path names no content); an http(s) URL whose content was hashed before is trusted to still be
 * that content, as the cache always has, so a cached remote image is not fetched again.
 *
 * Old stores (version 1, keyed by path or URL; or another pixel preprocessing): their entries are not reused (a
 * path does not say which bytes were featurised), a warning says so, the images are featurised again, and the
 * first write replaces the index and deletes the old chunk files.
 *
 * Atomicity: a chunk is written to a temporary sibling, fsynced and renamed before the index that names it is (the
 * same way) replaced, so the index only ever names complete chunks and a crash leaves at most an unreferenced chunk
 * or temporary file. Appending re-reads the index from disk and merges it while holding `index.json.lock`
 * (src/util/lock.ts), so processes appending at the same time never lose each other's entries.
 *
 * Reading (the disk is untrusted): a chunk whose size or checksum differs from the index is checked record by
 * record against each record's own checksum; a record that fails, or an entry that points outside its chunk or
 * names a file that is not a chunk, is rejected with a warning and reads as absent, so `extractFeatures` computes
 * it again. A malformed index.json is an error naming the file. Chunks are read whole into memory on first use.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import type { Backbone } from './backbone';
import {
  GRID_SIZE,
  MAX_TAGS,
  computeFeatures,
  type FeatureFailure,
  type FeatureOptions,
  type ImageFeatures,
  type ImageRef,
  type RegionPolicy,
} from './features';
import { PIXELS_VERSION } from './pixels';
import { MAX_REGIONS } from './regions';
import { ImageSource } from '../data/images';
import { writeFileAtomic } from '../util/atomic';
import { isRecord, readJsonFile } from '../util/json';
import { openRegularFile, readRegularFile } from '../util/regular-file';
import { withLock } from '../util/lock';
import { quoteInput } from '../util/untrusted-text';
import { isWorldUrl } from '../world/url';
import { DEFAULT_CACHE_DIR } from './world-cnn';

export const FEATURE_STORE_VERSION = 2;

interface ChunkInfo {
  file: string;
  bytes: number;
  checksum: string;
}

/** [chunk index, float offset, region count, tags, record checksum]. */
type Entry = [number, number, number, string[], string];

interface StoreIndex {
  format: 'cckit-features';
  version: number;
  backbone: string;
  featureDim: number;
  gridSize: number;
  variant: string;
  pixels: number;
  created: string;
  updated: string;
  chunks: ChunkInfo[];
  entries: Record<string, Entry>;
  sources: Record<string, string>;
}

/** What an old index left on disk: chunk files to delete once a current index replaces it. */
interface LegacyStore {
  chunkFiles: string[];
}

const CHUNK_FILE = /^chunk-[A-Za-z0-9-]+\.bin$/;

function checksum(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

function floatBytes(data: Float32Array): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * The content key of an image: its bytes' SHA-256 (128 bits), and, where boxes or tags come with the image, a
 * digest of them (regions are pooled from the boxes and tags are stored with the features).
 */
export function contentKey(bytes: Uint8Array, boxes: readonly unknown[] = [], tags: readonly string[] = []): string {
  const key = `sha256:${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}`;
  if (boxes.length === 0 && tags.length === 0) return key;
  return `${key}+${createHash('sha256')
    .update(JSON.stringify([boxes, tags]))
    .digest('hex')
    .slice(0, 16)}`;
}

function isHttpUrl(key: string): boolean {
  return /^https?:\/\//i.test(key);
}

export interface FeatureStoreOptions {
  /** Cache root (default .cckit-cache). */
  cacheDir?: string;
  /** Settings besides the backbone that change the features (default: the region policy). */
  variant?: string;
  /** Where warnings about rejected entries and old stores go (default: stderr). */
  warn?: (line: string) => void;
}

export class FeatureStore {
  private index: StoreIndex;
  private readonly loaded = new Map<number, Float32Array>();
  /** Chunks whose checksum failed: their records are checked one by one. */
  private readonly damaged = new Set<number>();
  /** Content keys checked (true) or rejected (false) since their entry was last written. */
  private readonly checked = new Map<string, boolean>();
  private readonly warned = new Set<string>();
  private readonly warn: (line: string) => void;

  private constructor(
    readonly dir: string,
    readonly backboneId: string,
    readonly featureDim: number,
    readonly variant: string,
    warn: ((line: string) => void) | undefined,
  ) {
    this.warn = warn ?? ((line) => process.stderr.write(`cckit: ${line}\n`));
    this.index = this.readIndex()?.index ?? this.emptyIndex();
  }

  /** Opens (or starts) the store of a backbone. */
  static open(backbone: Pick<Backbone, 'id' | 'featureDim'>, options: FeatureStoreOptions = {}): FeatureStore {
    const variant = options.variant ?? 'boxes';
    const dir = path.join(options.cacheDir ?? DEFAULT_CACHE_DIR, 'features', variant === 'boxes' ? backbone.id : `${backbone.id}-${variant}`);
    return new FeatureStore(dir, backbone.id, backbone.featureDim, variant, options.warn);
  }

  get indexFile(): string {
    return path.join(this.dir, 'index.json');
  }

  private warnOnce(topic: string, line: string): void {
    if (this.warned.has(topic)) return;
    this.warned.add(topic);
    this.warn(line);
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
      pixels: PIXELS_VERSION,
      created: now,
      updated: now,
      chunks: [],
      entries: {},
      sources: {},
    };
  }

  /** The index on disk; an old one reads as empty, with the chunk files it names (see the module comment). */
  private readIndex(): { index?: StoreIndex; legacy?: LegacyStore } | undefined {
    if (!fs.existsSync(this.indexFile)) return undefined;
    const index = readJsonFile(this.indexFile) as StoreIndex;
    if (!isRecord(index) || index.format !== 'cckit-features' || typeof index.version !== 'number' || index.version > FEATURE_STORE_VERSION)
      throw new Error(`${this.indexFile}: not a cckit feature index (version ${FEATURE_STORE_VERSION})`);
    if (index.backbone !== this.backboneId || index.featureDim !== this.featureDim || index.gridSize !== GRID_SIZE) {
      throw new Error(`${this.indexFile}: holds ${index.backbone} (D=${index.featureDim}), not ${this.backboneId} (D=${this.featureDim})`);
    }
    if (index.version < FEATURE_STORE_VERSION || index.pixels !== PIXELS_VERSION) {
      const chunkFiles = (Array.isArray(index.chunks) ? index.chunks : [])
        .map((c) => (isRecord(c) && typeof c.file === 'string' ? c.file : ''))
        .filter((file) => CHUNK_FILE.test(file));
      const count = isRecord(index.entries) ? Object.keys(index.entries).length : 0;
      const why =
        index.version < FEATURE_STORE_VERSION
          ? `version ${index.version}, keyed by path or URL, not by image content`
          : `pixel preprocessing ${index.pixels}, not ${PIXELS_VERSION}`;
      this.warnOnce(
        'legacy',
        `${this.indexFile}: an old feature index (${why}): its ${count} entries are not reused; the images are featurised again and its ${chunkFiles.length} chunk files are deleted when the index is next written`,
      );
      return { legacy: { chunkFiles } };
    }
    if (!Array.isArray(index.chunks) || !isRecord(index.entries)) throw new Error(`${this.indexFile}: no chunks or entries`);
    if (!isRecord(index.sources)) index.sources = {};
    return { index };
  }

  /** Content keys stored. */
  get size(): number {
    return Object.keys(this.index.entries).length;
  }

  /** The content key a key stands for: itself when stored under it, else the content a source name was read as. */
  contentKeyOf(key: string): string | undefined {
    if (Object.prototype.hasOwnProperty.call(this.index.entries, key)) return key;
    const content = Object.prototype.hasOwnProperty.call(this.index.sources, key) ? this.index.sources[key] : undefined;
    return typeof content === 'string' && Object.prototype.hasOwnProperty.call(this.index.entries, content) ? content : undefined;
  }

  /** Whether features of a content key or a source name are stored (not yet checked against their checksum). */
  has(key: string): boolean {
    return this.contentKeyOf(key) !== undefined;
  }

  /** The content keys stored. */
  keys(): string[] {
    return Object.keys(this.index.entries);
  }

  /** The entry of a content key if its shape fits its chunk; a misfit is warned about and reads as absent. */
  private entry(content: string): Entry | undefined {
    const entry = this.index.entries[content] as unknown;
    const d = this.featureDim;
    const fits =
      Array.isArray(entry) &&
      entry.length === 5 &&
      Number.isInteger(entry[0]) &&
      entry[0] >= 0 &&
      entry[0] < this.index.chunks.length &&
      Number.isInteger(entry[1]) &&
      entry[1] >= 0 &&
      Number.isInteger(entry[2]) &&
      entry[2] >= 0 &&
      entry[2] <= MAX_REGIONS &&
      Array.isArray(entry[3]) &&
      entry[3].length <= MAX_TAGS &&
      entry[3].every((t) => typeof t === 'string') &&
      typeof entry[4] === 'string';
    if (fits) {
      const chunk = this.index.chunks[entry[0] as number];
      const floats = d + GRID_SIZE * GRID_SIZE * d + (entry[2] as number) * (d + 5);
      if (isRecord(chunk) && typeof chunk.file === 'string' && CHUNK_FILE.test(chunk.file) && ((entry[1] as number) + floats) * 4 <= chunk.bytes)
        return entry as Entry;
    }
    this.reject(content, `its index entry does not fit the store (${quoteInput(JSON.stringify(entry ?? null), 120)})`);
    return undefined;
  }

  private reject(content: string, why: string): void {
    this.checked.set(content, false);
    this.warnOnce(`entry ${content}`, `feature store ${this.dir}: ${quoteInput(content, 80)} rejected: ${why}; it is computed again`);
  }

  private recordFloats(entry: Entry): number {
    const d = this.featureDim;
    return d + GRID_SIZE * GRID_SIZE * d + entry[2] * (d + 5);
  }

  /** A chunk's floats, read whole; one that differs from the index is marked damaged (its records are checked alone). */
  private chunk(i: number): Float32Array | undefined {
    let data = this.loaded.get(i);
    if (data) return data;
    const info = this.index.chunks[i]!;
    const file = path.join(this.dir, info.file);
    let buffer: Buffer;
    try {
      buffer = readRegularFile(file);
    } catch (err) {
      this.warnOnce(`chunk ${i}`, `feature store: ${file} cannot be read (${(err as Error).message}): its images are computed again`);
      return undefined;
    }
    if (buffer.length !== info.bytes || checksum(buffer) !== info.checksum) {
      this.damaged.add(i);
      this.warnOnce(
        `chunk ${i}`,
        `feature store: ${file} differs from its index (${buffer.length} bytes of ${info.bytes}, or another checksum): each of its records is checked against its own checksum; those that fail are computed again`,
      );
    }
    const whole = buffer.length - (buffer.length % 4);
    data =
      buffer.byteOffset % 4 === 0
        ? new Float32Array(buffer.buffer, buffer.byteOffset, whole / 4)
        : new Float32Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + whole));
    this.loaded.set(i, data);
    return data;
  }

  /** The floats of a content key's record, checked; undefined (warned about) when it cannot be trusted. */
  private record(content: string): { entry: Entry; floats: Float32Array } | undefined {
    if (this.checked.get(content) === false) return undefined;
    const entry = this.entry(content);
    if (!entry) return undefined;
    const data = this.chunk(entry[0]);
    if (!data) {
      this.checked.set(content, false);
      return undefined;
    }
    const end = entry[1] + this.recordFloats(entry);
    if (end > data.length) {
      this.reject(content, 'its chunk is cut short');
      return undefined;
    }
    const floats = data.subarray(entry[1], end);
    if (this.damaged.has(entry[0]) && !this.checked.has(content)) {
      if (checksum(floatBytes(floats)) !== entry[4]) {
        this.reject(content, 'its record differs from its checksum');
        return undefined;
      }
    }
    this.checked.set(content, true);
    return { entry, floats };
  }

  /**
   * Whether a key's features can be read and pass their checks. A chunk not in memory stays on disk: only the
   * record is read and checked, so checking a whole store does not hold it in memory.
   */
  usable(key: string): boolean {
    const content = this.contentKeyOf(key);
    if (content === undefined) return false;
    const known = this.checked.get(content);
    if (known !== undefined) return known;
    const entry = this.entry(content);
    if (!entry) return false;
    if (this.loaded.has(entry[0])) return this.record(content) !== undefined;
    const file = path.join(this.dir, this.index.chunks[entry[0]]!.file);
    const bytes = Buffer.alloc(this.recordFloats(entry) * 4);
    let read = 0;
    try {
      const fd = openRegularFile(file);
      try {
        read = fs.readSync(fd, bytes, 0, bytes.length, entry[1] * 4);
      } finally {
        fs.closeSync(fd);
      }
    } catch (err) {
      this.reject(content, `its chunk ${file} cannot be read (${(err as Error).message})`);
      return false;
    }
    if (read < bytes.length) this.reject(content, 'its chunk is cut short');
    else if (checksum(bytes) !== entry[4]) this.reject(content, 'its record differs from its checksum');
    else this.checked.set(content, true);
    return this.checked.get(content)!;
  }

  /** The features of a content key or source name (views into the chunk in memory), or undefined. */
  get(key: string): ImageFeatures | undefined {
    const content = this.contentKeyOf(key);
    if (content === undefined) return undefined;
    const record = this.record(content);
    if (!record) return undefined;
    const { entry, floats } = record;
    const d = this.featureDim;
    const r = entry[2];
    let at = 0;
    const take = (n: number) => floats.subarray(at, (at += n));
    return { key, global: take(d), grid: take(GRID_SIZE * GRID_SIZE * d), regions: take(r * d), boxes: take(r * 5), tags: [...entry[3]] };
  }

  /**
   * Appends features (keyed by content) as one new chunk and records source names (name → content key), then
   * replaces the index (see the module comment).
   */
  append(features: readonly ImageFeatures[], sources: ReadonlyMap<string, string> = new Map()): void {
    if (features.length === 0 && sources.size === 0) return;
    const d = this.featureDim;
    const g = GRID_SIZE * GRID_SIZE * d;
    let floats = 0;
    for (const f of features) {
      const r = f.regions.length / d;
      if (f.global.length !== d || f.grid.length !== g || !Number.isInteger(r) || r > MAX_REGIONS || f.boxes.length !== r * 5) {
        throw new Error(
          `feature store: ${f.key} has the wrong shape for D=${d} (global ${f.global.length}, grid ${f.grid.length}, regions ${f.regions.length}, boxes ${f.boxes.length})`,
        );
      }
      floats += d + g + f.regions.length + f.boxes.length;
    }
    const data = new Float32Array(floats);
    const placed: [string, number, number, string[], string][] = [];
    let at = 0;
    for (const f of features) {
      const start = at;
      for (const part of [f.global, f.grid, f.regions, f.boxes]) {
        data.set(part, at);
        at += part.length;
      }
      placed.push([f.key, start, f.regions.length / d, f.tags.slice(0, MAX_TAGS), checksum(floatBytes(data.subarray(start, at)))]);
    }
    const bytes = floatBytes(data);
    const file = `chunk-${Date.now().toString(36)}-${process.pid}-${Math.random().toString(36).slice(2, 8)}.bin`;
    fs.mkdirSync(this.dir, { recursive: true });
    if (features.length > 0) writeFileAtomic(path.join(this.dir, file), bytes);
    // Merge with what is on disk now (another process may have appended since we read it), locked
    // so that two appenders cannot both read the old index and each write it back without the other's chunk.
    let legacy: LegacyStore | undefined;
    const current = withLock(`${this.indexFile}.lock`, { what: `feature index ${this.indexFile}`, waitMs: 60_000 }, () => {
      const read = this.readIndex();
      legacy = read?.legacy;
      const onDisk = read?.index ?? this.emptyIndex();
      if (features.length > 0) {
        onDisk.chunks.push({ file, bytes: bytes.length, checksum: checksum(bytes) });
        for (const [key, offset, r, tags, sum] of placed) onDisk.entries[key] = [onDisk.chunks.length - 1, offset, r, tags, sum];
      }
      // a name is kept only for a content stored (a failed image leaves none behind)
      for (const [name, content] of sources)
        if (name !== content && Object.prototype.hasOwnProperty.call(onDisk.entries, content)) onDisk.sources[name] = content;
      onDisk.updated = new Date().toISOString();
      writeFileAtomic(this.indexFile, JSON.stringify(onDisk) + '\n');
      if (legacy) for (const old of legacy.chunkFiles) fs.rmSync(path.join(this.dir, old), { force: true });
      return onDisk;
    });
    // chunk numbers may have shifted if the index changed on disk: drop cached chunks
    const chunkIndex = current.chunks.length - 1;
    const expected = this.index.chunks.length + (features.length > 0 ? 1 : 0);
    if (current.chunks.length !== expected || legacy) {
      this.loaded.clear();
      this.damaged.clear();
      this.checked.clear();
    }
    for (const [key] of placed) this.checked.delete(key);
    this.index = current;
    if (features.length > 0) this.loaded.set(chunkIndex, data);
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
  /** Distinct images featurised by the backbone in this call. */
  computed: number;
  /** Distinct images whose features were already stored (under any name: same content). */
  cached: number;
  failed: FeatureFailure[];
}

/** An image read and keyed by content, with its bytes where they were read. */
type Identified = { content: string; ref: ImageRef } | { failure: string };

/**
 * The content key of an image (see the module comment): a world URL is its own; bytes in hand or read from a file
 * are hashed; an http(s) URL whose content the store knows is taken on trust, else fetched and hashed.
 */
async function identify(ref: ImageRef, store: FeatureStore, source: ImageSource): Promise<Identified> {
  if (ref.error !== undefined) return { failure: ref.error };
  const url = ref.url ?? ref.key;
  if (isWorldUrl(url) && !ref.bytes) return { content: url, ref };
  if (isWorldUrl(ref.key)) return { content: ref.key, ref };
  let bytes = ref.bytes;
  if (!bytes) {
    if (isHttpUrl(url)) {
      const known = store.contentKeyOf(url);
      if (known !== undefined && store.usable(known)) return { content: known, ref };
    }
    const fetched = await source.fetch(url);
    if (!fetched.ok) return { failure: fetched.detail ? `${fetched.reason} (${fetched.detail})` : fetched.reason };
    bytes = fetched.bytes;
  }
  return { content: contentKey(bytes, ref.boxes ?? [], ref.tags ?? []), ref: { ...ref, bytes } };
}

/**
 * Makes sure the store holds features of every image: keys each by content (reading local files, fetching remote
 * images not seen before), computes only the contents not stored yet (or whose entry failed its checks), in batches
 * through the backbone, and appends them chunk by chunk, with the names they were read under. An image read under
 * several names, or twice, is computed once. A stream of images (a folder shard's samples) is read as it goes, a few
 * batches at a time, so memory holds one chunk of features and a few batches of image bytes, however long the
 * stream; `total` then sizes the progress bar.
 */
export async function extractFeatures(
  images: readonly ImageRef[] | AsyncIterable<ImageRef>,
  options: ExtractOptions & { total?: number },
): Promise<ExtractResult> {
  const regions: RegionPolicy = options.regions ?? 'boxes';
  const store = FeatureStore.open(options.backbone, { cacheDir: options.cacheDir, variant: options.variant ?? regions, warn: options.warn });
  const total = Array.isArray(images) ? images.length : options.total;
  const batchSize = options.batchSize ?? 32;
  const chunkSize = options.chunkSize ?? 1024;
  const source = options.source ?? new ImageSource();
  /** Contents met in this call, and the names each was read under. */
  const seen = new Set<string>();
  const names = new Map<string, string>();
  /** Source name of each content waiting to be computed (for failures). */
  const waitingName = new Map<string, string>();
  const failed: FeatureFailure[] = [];
  let cached = 0;
  let computed = 0;
  let read = 0;
  let pending: ImageFeatures[] = [];
  let waiting: ImageRef[] = [];
  const flush = () => {
    store.append(pending, names);
    pending = [];
    // names of contents still waiting are written with their features
    for (const [name, content] of names) if (store.has(content)) names.delete(name);
  };
  const compute = async () => {
    const refs = waiting;
    waiting = [];
    for await (const batch of computeFeatures(options.backbone, refs, { ...options, source, regions, progress: undefined })) {
      pending.push(...batch.features);
      for (const f of batch.failures) failed.push({ key: waitingName.get(f.key) ?? f.key, reason: f.reason });
      computed += batch.features.length;
      if (pending.length >= chunkSize) flush();
    }
    waitingName.clear();
    options.progress?.('features', read, Math.max(total ?? 0, read));
  };
  for await (const ref of images as AsyncIterable<ImageRef>) {
    read++;
    const identified = await identify(ref, store, source);
    if ('failure' in identified) {
      failed.push({ key: ref.key, reason: identified.failure });
      continue;
    }
    const { content } = identified;
    if (ref.key !== content && store.contentKeyOf(ref.key) !== content) names.set(ref.key, content);
    if (seen.has(content)) continue;
    seen.add(content);
    if (store.usable(content)) cached++;
    else {
      // computed under its content key; a world image keeps its URL as where its pixels come from
      waiting.push({ ...identified.ref, key: content, url: identified.ref.url ?? identified.ref.key });
      waitingName.set(content, ref.key);
    }
    if (waiting.length >= batchSize * 4) await compute();
  }
  if (waiting.length > 0) await compute();
  flush();
  options.progress?.('features', read, Math.max(total ?? 0, read));
  return { store, read, computed, cached, failed };
}
