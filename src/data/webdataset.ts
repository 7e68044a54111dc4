/**
 * img2dataset-compatible output: webdataset tar shards, their per-shard stats and metadata,
 * and readers for both img2dataset output layouts ("webdataset" tars and "files" folders).
 *
 * What img2dataset writes (rom1504/img2dataset, downloader.py / writer.py / logger.py), and what
 * this module writes for each:
 *  - Shard names: the shard id zero-padded to `oom_shard_count` digits (default 5): `00000.tar`.
 *  - Keys: `true_key = 10^oom_sample_per_shard * shard_id + index_in_shard`, zero-padded to
 *    `oom_shard_count + oom_sample_per_shard` digits, where
 *    `oom_sample_per_shard = ceil(log10(number_sample_per_shard))`. With the defaults (5, 10,000
 *    rows per shard) row 123 of shard 0 is `000000123` and row 7 of shard 12 is `000120007`.
 *    Every input row uses up one index, including rows that fail, so a key says which input row
 *    it came from. Same here: `samplesPerShard` counts input rows (successes and failures).
 *  - Tar members per successful row: `KEY.jpg` (or .png/.gif), `KEY.txt` (the caption),
 *    `KEY.json` (the metadata below, indented by 4 like Python's json.dumps(indent=4)).
 *    Failed rows get no tar members.
 *  - `KEY.json` fields: the input columns (`url`, `caption`), then `key`, `status`
 *    ("success" | "failed_to_download" | "failed_to_resize"), `error_message` (null on success),
 *    `width`, `height`, `original_width`, `original_height` (null unless a success). Extra
 *    fields given by the caller (`meta`) follow. Width and height, when not given, are read from
 *    the image header (JPEG SOF, PNG IHDR, GIF logical screen).
 *  - `NNNNN_stats.json`: `count`, `successes`, `failed_to_download`, `failed_to_resize`,
 *    `duration`, `start_time`, `end_time` (seconds since the epoch, like Python's time.time()),
 *    `status_dict` (how many rows ended in "success" and in each error message).
 *  - `NNNNN.parquet` (the metadata of every row, failures included): NOT written. No pure-JS
 *    parquet writer is a dependency of this package (maintained ones exist on npm, e.g.
 *    hyparquet-writer, @dsnp/parquetjs). In its place `NNNNN_meta.jsonl` holds the same rows,
 *    one JSON object (the KEY.json fields) per line, so failed rows are not lost.
 *
 * Atomicity: each shard is written to a hidden temporary file beside its final name and
 * renamed when the shard is complete; the stats file is renamed last, so a `NNNNN_stats.json`
 * means the shard is whole (img2dataset's incremental mode also treats it so). On an error
 * (`abort()`, or any error inside `writeShards`) the current shard's temporaries are removed:
 * no partial `.tar` is ever visible.
 *
 * Reading follows the webdataset convention: consecutive tar members whose names share the
 * part before the first dot of the base name form one sample (`a/b.c.jpg` → key `a/b`,
 * extension `c.jpg`). Shards are read in name order, members in tar order.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as tar from 'tar-stream';
import { releaseTemporary, temporaryPath } from '../util/atomic';
import { readJsonFile } from '../util/json';

export type ImageExt = 'jpg' | 'png' | 'gif';

/** One decoded sample, as written and read back. */
export interface ShardSample {
  key: string;
  image: Buffer;
  imageExt: ImageExt;
  caption: string;
  json: Record<string, unknown>;
}

/** A sample as read from disk: every member of the group, by extension ("jpg", "txt", "json", …). */
export interface RawSample {
  key: string;
  /** The tar file or the shard folder it came from. */
  source: string;
  files: Record<string, Buffer>;
}

export type FailureStatus = 'failed_to_download' | 'failed_to_resize';

export interface SuccessInput {
  image: Buffer;
  imageExt: ImageExt;
  caption: string;
  url?: string;
  width?: number;
  height?: number;
  originalWidth?: number;
  originalHeight?: number;
  /** Extra metadata fields, written into KEY.json after img2dataset's fields. */
  meta?: Record<string, unknown>;
}

export interface FailureInput {
  url?: string;
  caption?: string;
  status: FailureStatus;
  /** The error message; also the status_dict entry it is counted under. */
  error: string;
  meta?: Record<string, unknown>;
}

export interface ShardWriterOptions {
  /** Input rows per shard, failures included (img2dataset's number_sample_per_shard; default 10,000). */
  samplesPerShard?: number;
  /** Digits of shard names (img2dataset's oom_shard_count; default 5). */
  oomShardCount?: number;
  /** First shard id (default 0). */
  startShard?: number;
  /** Modification time of tar members (default 2000-01-01T00:00:00Z, so shards are byte-reproducible). */
  mtime?: Date;
  /** Clock for stats start/end times, in milliseconds (default Date.now). */
  now?: () => number;
}

export class ShardError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'ShardError';
  }
}

const IMAGE_EXTS: readonly string[] = ['jpg', 'png', 'gif'];
const DEFAULT_MTIME = new Date(Date.UTC(2000, 0, 1));

/** img2dataset's zero-padded shard name ("00012"). */
export function shardName(shardId: number, oomShardCount = 5): string {
  return String(shardId).padStart(oomShardCount, '0');
}

/** img2dataset's `oom_sample_per_shard`: ceil(log10(samples per shard)). */
export function oomSamplePerShard(samplesPerShard: number): number {
  return Math.ceil(Math.log10(samplesPerShard));
}

/** img2dataset's `compute_key`: 10^oomSample * shard + index, zero-padded to oomSample + oomShard digits. */
export function computeKey(index: number, shardId: number, oomSample: number, oomShardCount = 5): string {
  const trueKey = BigInt(10) ** BigInt(oomSample) * BigInt(shardId) + BigInt(index);
  return trueKey.toString().padStart(oomSample + oomShardCount, '0');
}

/** Width and height from a JPEG, PNG or GIF header; undefined when the header is not understood. */
export function imageSize(image: Buffer): { width: number; height: number } | undefined {
  if (image.length >= 24 && image.readUInt32BE(0) === 0x89504e47 && image.toString('latin1', 12, 16) === 'IHDR') {
    return { width: image.readUInt32BE(16), height: image.readUInt32BE(20) };
  }
  if (image.length >= 10 && image.toString('latin1', 0, 3) === 'GIF') {
    return { width: image.readUInt16LE(6), height: image.readUInt16LE(8) };
  }
  if (image.length >= 4 && image[0] === 0xff && image[1] === 0xd8) {
    let i = 2;
    while (i + 9 < image.length) {
      if (image[i] !== 0xff) return undefined;
      const marker = image[i + 1];
      if (marker === 0xff) {
        i++;
        continue;
      }
      if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
        i += 2;
        continue;
      }
      const length = image.readUInt16BE(i + 2);
      const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
      if (isSof) return { width: image.readUInt16BE(i + 7), height: image.readUInt16BE(i + 5) };
      i += 2 + length;
    }
  }
  return undefined;
}

interface ShardStats {
  count: number;
  successes: number;
  failed_to_download: number;
  failed_to_resize: number;
  duration: number;
  start_time: number;
  end_time: number;
  status_dict: Record<string, number>;
}

/** The shard being written: its temporaries and counters. */
interface OpenShard {
  id: number;
  name: string;
  tarTemp: string;
  metaTemp: string;
  pack: tar.Pack;
  out: fs.WriteStream;
  meta: fs.WriteStream;
  written: Promise<void>;
  metaWritten: Promise<void>;
  stats: ShardStats;
  rows: number;
}

function finished(stream: fs.WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('error', reject);
    stream.once('close', () => resolve());
  });
}

async function syncAndRename(temporary: string, file: string): Promise<void> {
  const fd = await fs.promises.open(temporary, 'r+');
  try {
    await fd.sync();
  } finally {
    await fd.close();
  }
  await fs.promises.rename(temporary, file);
  releaseTemporary(temporary);
}

/**
 * Packs samples into img2dataset-style webdataset shards in `folder` (created if missing).
 * Call `write`/`fail` once per input row, in input order, awaiting each call, then `close()`;
 * on error call `abort()`.
 */
export class ShardWriter {
  readonly samplesPerShard: number;
  readonly oomShardCount: number;
  readonly oomSample: number;
  private readonly mtime: Date;
  private readonly now: () => number;
  private nextShard: number;
  private current: OpenShard | undefined;
  private closed = false;
  private busy = false;
  /** Names of the shards completed so far ("00000", …). */
  readonly shards: string[] = [];

  constructor(
    readonly folder: string,
    options: ShardWriterOptions = {},
  ) {
    this.samplesPerShard = options.samplesPerShard ?? 10000;
    if (!Number.isInteger(this.samplesPerShard) || this.samplesPerShard < 1)
      throw new ShardError(folder, `samplesPerShard must be a positive integer, got ${this.samplesPerShard}`);
    this.oomShardCount = options.oomShardCount ?? 5;
    this.oomSample = oomSamplePerShard(this.samplesPerShard);
    this.mtime = options.mtime ?? DEFAULT_MTIME;
    this.now = options.now ?? Date.now;
    this.nextShard = options.startShard ?? 0;
    fs.mkdirSync(folder, { recursive: true });
  }

  private open(): OpenShard {
    const id = this.nextShard++;
    const name = shardName(id, this.oomShardCount);
    const tarTemp = temporaryPath(path.join(this.folder, `${name}.tar`));
    const metaTemp = temporaryPath(path.join(this.folder, `${name}_meta.jsonl`));
    const pack = tar.pack();
    const out = fs.createWriteStream(tarTemp, { flags: 'wx' });
    const meta = fs.createWriteStream(metaTemp, { flags: 'wx' });
    const written = finished(out);
    const metaWritten = finished(meta);
    // Keep the promises from rejecting unobserved; errors surface when awaited.
    written.catch(() => undefined);
    metaWritten.catch(() => undefined);
    pack.on('error', (err: Error) => out.destroy(err));
    pack.pipe(out);
    const start = this.now() / 1000;
    const stats: ShardStats = {
      count: 0,
      successes: 0,
      failed_to_download: 0,
      failed_to_resize: 0,
      duration: 0,
      start_time: start,
      end_time: start,
      status_dict: Object.create(null) as Record<string, number>,
    };
    return { id, name, tarTemp, metaTemp, pack, out, meta, written, metaWritten, stats, rows: 0 };
  }

  private shard(): OpenShard {
    if (this.closed) throw new ShardError(this.folder, 'write after close');
    if (this.busy) throw new ShardError(this.folder, 'write/fail called before the previous call finished: await each one');
    this.current ??= this.open();
    return this.current;
  }

  private nextKey(shard: OpenShard): string {
    return computeKey(shard.rows, shard.id, this.oomSample, this.oomShardCount);
  }

  private addEntry(shard: OpenShard, name: string, data: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      shard.pack.entry({ name, size: data.length, mtime: this.mtime, mode: 0o644, type: 'file' }, data, (err) => (err ? reject(err) : resolve()));
    });
  }

  private async afterRow(shard: OpenShard, record: Record<string, unknown>): Promise<void> {
    shard.rows++;
    shard.stats.count++;
    if (!shard.meta.write(JSON.stringify(record) + '\n')) await new Promise<void>((resolve) => shard.meta.once('drain', () => resolve()));
    if (shard.out.writableNeedDrain) await new Promise<void>((resolve) => shard.out.once('drain', () => resolve()));
    if (shard.rows >= this.samplesPerShard) await this.finish();
  }

  /** Adds a successful row; returns its key. */
  async write(sample: SuccessInput): Promise<string> {
    if (!Buffer.isBuffer(sample.image)) throw new ShardError(this.folder, 'image must be a Buffer');
    if (!IMAGE_EXTS.includes(sample.imageExt)) throw new ShardError(this.folder, `imageExt must be jpg, png or gif, got ${JSON.stringify(sample.imageExt)}`);
    if (typeof sample.caption !== 'string') throw new ShardError(this.folder, 'caption must be a string');
    const shard = this.shard();
    const key = this.nextKey(shard);
    const size = sample.width === undefined || sample.height === undefined ? imageSize(sample.image) : undefined;
    const width = sample.width ?? size?.width ?? null;
    const height = sample.height ?? size?.height ?? null;
    const record: Record<string, unknown> = {
      url: sample.url ?? null,
      caption: sample.caption,
      key,
      status: 'success',
      error_message: null,
      width,
      height,
      original_width: sample.originalWidth ?? width,
      original_height: sample.originalHeight ?? height,
      ...sample.meta,
    };
    this.busy = true;
    try {
      await this.addEntry(shard, `${key}.${sample.imageExt}`, sample.image);
      await this.addEntry(shard, `${key}.txt`, Buffer.from(sample.caption, 'utf8'));
      await this.addEntry(shard, `${key}.json`, Buffer.from(JSON.stringify(record, null, 4), 'utf8'));
      shard.stats.successes++;
      shard.stats.status_dict.success = (shard.stats.status_dict.success ?? 0) + 1;
      await this.afterRow(shard, record);
    } finally {
      this.busy = false;
    }
    return key;
  }

  /** Records a row that failed (no tar members, counted in the stats); returns its key. */
  async fail(failure: FailureInput): Promise<string> {
    if (failure.status !== 'failed_to_download' && failure.status !== 'failed_to_resize') {
      throw new ShardError(this.folder, `status must be failed_to_download or failed_to_resize, got ${JSON.stringify(failure.status)}`);
    }
    if (typeof failure.error !== 'string' || failure.error === '') throw new ShardError(this.folder, 'a failure needs an error message');
    const shard = this.shard();
    const key = this.nextKey(shard);
    const record: Record<string, unknown> = {
      url: failure.url ?? null,
      caption: failure.caption ?? null,
      key,
      status: failure.status,
      error_message: failure.error,
      width: null,
      height: null,
      original_width: null,
      original_height: null,
      ...failure.meta,
    };
    shard.stats[failure.status]++;
    shard.stats.status_dict[failure.error] = (shard.stats.status_dict[failure.error] ?? 0) + 1;
    this.busy = true;
    try {
      await this.afterRow(shard, record);
    } finally {
      this.busy = false;
    }
    return key;
  }

  /** Completes the current shard: renames the tar, the metadata, then writes the stats. */
  private async finish(): Promise<void> {
    const shard = this.current;
    if (!shard) return;
    this.current = undefined;
    try {
      shard.pack.finalize();
      shard.meta.end();
      await shard.written;
      await shard.metaWritten;
      const tarFile = path.join(this.folder, `${shard.name}.tar`);
      await syncAndRename(shard.tarTemp, tarFile);
      await syncAndRename(shard.metaTemp, path.join(this.folder, `${shard.name}_meta.jsonl`));
      shard.stats.end_time = this.now() / 1000;
      shard.stats.duration = shard.stats.end_time - shard.stats.start_time;
      const statsFile = path.join(this.folder, `${shard.name}_stats.json`);
      const statsTemp = temporaryPath(statsFile);
      await fs.promises.writeFile(statsTemp, JSON.stringify(shard.stats, null, 4), { flag: 'wx' });
      await syncAndRename(statsTemp, statsFile);
      this.shards.push(shard.name);
    } catch (err) {
      this.current = shard;
      throw err;
    }
  }

  /** Completes the last (possibly short) shard. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.finish();
    this.closed = true;
  }

  /** Drops the shard in progress (its temporaries are removed); completed shards stay. */
  async abort(): Promise<void> {
    this.closed = true;
    const shard = this.current;
    this.current = undefined;
    if (!shard) return;
    shard.pack.destroy();
    shard.out.destroy();
    shard.meta.destroy();
    await Promise.allSettled([shard.written, shard.metaWritten]);
    await fs.promises.rm(shard.tarTemp, { force: true });
    await fs.promises.rm(shard.metaTemp, { force: true });
    releaseTemporary(shard.tarTemp);
    releaseTemporary(shard.metaTemp);
  }
}

export type ShardRow = ({ kind: 'success' } & SuccessInput) | ({ kind: 'failure' } & FailureInput);

/** Writes all rows into shards; on any error the shard in progress is removed and the error rethrown. */
export async function writeShards(folder: string, rows: Iterable<ShardRow> | AsyncIterable<ShardRow>, options: ShardWriterOptions = {}): Promise<string[]> {
  const writer = new ShardWriter(folder, options);
  try {
    for await (const row of rows) {
      if (row.kind === 'success') await writer.write(row);
      else await writer.fail(row);
    }
    await writer.close();
    return writer.shards;
  } catch (err) {
    await writer.abort();
    throw err;
  }
}

// ---------------------------------------------------------------------------
// Reading

/** Splits a member name into webdataset key and extension: key = everything before the first dot of the base name. */
export function splitMemberName(name: string): { key: string; ext: string } | undefined {
  const slash = name.lastIndexOf('/');
  const dot = name.indexOf('.', slash + 1);
  if (dot <= slash + 1 || dot === name.length - 1) return undefined;
  return { key: name.slice(0, dot), ext: name.slice(dot + 1) };
}

/** Groups consecutive (key, ext, data) members into samples; a key that comes back later is an error. */
async function* groupMembers(source: string, members: AsyncIterable<{ name: string; data: Buffer }>): AsyncGenerator<RawSample> {
  let current: RawSample | undefined;
  const seen = new Set<string>();
  for await (const member of members) {
    const parts = splitMemberName(member.name);
    if (!parts) continue; // names without an extension are not part of any sample (webdataset skips them too)
    if (current && current.key !== parts.key) {
      yield current;
      current = undefined;
    }
    if (!current) {
      if (seen.has(parts.key)) throw new ShardError(source, `member ${member.name}: key ${parts.key} appears again after other samples`);
      seen.add(parts.key);
      current = { key: parts.key, source, files: {} };
    }
    if (current.files[parts.ext] !== undefined) throw new ShardError(source, `member ${member.name}: a second .${parts.ext} for key ${parts.key}`);
    current.files[parts.ext] = member.data;
  }
  if (current) yield current;
}

async function* tarMembers(file: string): AsyncGenerator<{ name: string; data: Buffer }> {
  const extract = tar.extract();
  const input = fs.createReadStream(file);
  input.on('error', (err) => extract.destroy(err));
  input.pipe(extract);
  try {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      const type = entry.header.type ?? 'file';
      if (type === 'file' || type === 'contiguous-file') yield { name: entry.header.name.replace(/^\.\//, ''), data: Buffer.concat(chunks) };
    }
  } catch (err) {
    if (err instanceof ShardError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ShardError(file, `cannot read tar: ${code ?? (err as Error).message}`);
  } finally {
    input.destroy();
  }
}

/** Samples of one tar shard, in member order. */
export function readTarShard(file: string): AsyncGenerator<RawSample> {
  return groupMembers(file, tarMembers(file));
}

/** The `.tar` shards in a folder, in name order (hidden temporaries excluded). */
export function listTarShards(folder: string): string[] {
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.tar') && !name.startsWith('.'))
    .sort()
    .map((name) => path.join(folder, name));
}

/** Samples of every tar shard in a folder (or of the given tar files), shard by shard in name order. */
export async function* readWebdataset(folderOrFiles: string | readonly string[]): AsyncGenerator<RawSample> {
  const files = typeof folderOrFiles === 'string' ? listTarShards(folderOrFiles) : folderOrFiles;
  for (const file of files) yield* readTarShard(file);
}

/** Samples of an img2dataset "files" output: numbered folders (00000/, 00001/, …) of KEY.jpg, KEY.txt, KEY.json. */
export async function* readFilesLayout(folder: string): AsyncGenerator<RawSample> {
  const shards = fs
    .readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^\d+$/.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  for (const shard of shards) {
    const dir = path.join(folder, shard);
    const names = fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
      .map((entry) => entry.name);
    // Sort by key, then extension, so members of a sample are adjacent and samples come in key order.
    const parsed = names.flatMap((name) => {
      const parts = splitMemberName(name);
      return parts ? [{ name, ...parts }] : [];
    });
    parsed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.ext < b.ext ? -1 : a.ext > b.ext ? 1 : 0));
    async function* members(): AsyncGenerator<{ name: string; data: Buffer }> {
      for (const entry of parsed) yield { name: entry.name, data: await fs.promises.readFile(path.join(dir, entry.name)) };
    }
    yield* groupMembers(dir, members());
  }
}

/** Reads an img2dataset output folder of either layout: tar shards if there are any, else numbered folders. */
export function readImg2dataset(folder: string): AsyncGenerator<RawSample> {
  return listTarShards(folder).length > 0 ? readWebdataset(folder) : readFilesLayout(folder);
}

/** Decodes a raw sample's image, caption and metadata; errors name the source and key. */
export function decodeSample(raw: RawSample): ShardSample {
  const where = `sample ${raw.key}`;
  const imageExt = (['jpg', 'png', 'gif'] as const).find((ext) => raw.files[ext] !== undefined);
  if (!imageExt) throw new ShardError(raw.source, `${where}: no .jpg, .png or .gif member (has ${Object.keys(raw.files).join(', ')})`);
  const txt = raw.files.txt;
  if (txt === undefined) throw new ShardError(raw.source, `${where}: no .txt member`);
  let json: Record<string, unknown> = {};
  if (raw.files.json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.files.json.toString('utf8'));
    } catch (err) {
      throw new ShardError(raw.source, `${where}: malformed ${raw.key}.json: ${(err as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ShardError(raw.source, `${where}: ${raw.key}.json is not an object`);
    json = parsed as Record<string, unknown>;
  }
  return { key: raw.key, image: raw.files[imageExt], imageExt, caption: txt.toString('utf8'), json };
}

/** Decoded samples of an img2dataset output folder (either layout). */
export async function* readSamples(folder: string): AsyncGenerator<ShardSample & { source: string }> {
  for await (const raw of readImg2dataset(folder)) yield { ...decodeSample(raw), source: raw.source };
}

/** Reads a shard's `NNNNN_stats.json`. */
export function readShardStats(folder: string, shard: string): ShardStats {
  const file = path.join(folder, `${shard}_stats.json`);
  try {
    return readJsonFile(file) as ShardStats;
  } catch (err) {
    throw new ShardError(file, `cannot read stats: ${(err as Error).message}`);
  }
}

export type { ShardStats };
