/**
 * A COCO-format train / val / test split of any kept set of image–text pairs, so a researcher's own data can stand
 * where the notebooks and `cckit train` / `caption` / `eval` expect COCO caption files.
 *
 * Inputs (all untrusted):
 *  - a folder of img2dataset shards (what `cckit download` writes): every sample, its caption from KEY.txt;
 *  - a filter output folder (its `kept.tsv`) or any CC3M/CC12M-style TSV, with `shards`: the rows joined to the
 *    shards' samples by URL (the shard's KEY.json `url`), each row's caption as the TSV has it (the pipelines may have
 *    rewritten it); without `shards`, each row's URL must be a local image file (relative paths: beside the TSV).
 *
 * Output (`out`): images/ID.EXT, train.json, val.json, test.json (COCO caption annotations, every image with its size),
 * images.jsonl (each image's id, side and source URL, which COCO's format has no field for), rejects.jsonl (every rejected row or sample: where, URL, caption, reason) and summary.json. Everything is written
 * into a temporary sibling folder and renamed into place at the end, so a killed run leaves the old split or none.
 *
 * Sides: items are grouped by a key (the URL, the image bytes' SHA-256, or the normalised caption), groups are ordered
 * by the SHA-256 of the key and filled in that order: test until `test` of the images, then val until `test + val`,
 * then train. The split is the same on every run of the same set; grouping by caption keeps images that share a
 * description on one side, so no test caption is seen in training. Adding rows can move a group across a boundary.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { fileURLToPath } from 'url';
import { localFileRefusal, type LocalFilePolicy } from './images';
import { releaseTemporary, removeLeftTemporaries, temporaryPath } from '../util/atomic';
import { eventLoopTurns } from '../util/event-loop';
import { acquireLock } from '../util/lock';
import { buildCocoCaptions, type CaptionedImage } from './coco';
import { detectTsvLayout, isReject, readTsv, type TsvLayout } from './tsv';
import {
  DEFAULT_MAX_MEMBER_BYTES,
  decodeSample,
  imageSize,
  listTarShards,
  readFilesLayout,
  readTarShard,
  SampleError,
  type ImageExt,
  type RawSample,
} from './webdataset';

export const SPLIT_SIDES = ['train', 'val', 'test'] as const;
export type SplitSide = (typeof SPLIT_SIDES)[number];

/** What keeps items together on one side: the URL, the image's bytes, or the caption (lower-cased, spaces collapsed). */
export const SPLIT_KEYS = ['url', 'image', 'caption'] as const;
export type SplitKey = (typeof SPLIT_KEYS)[number];

export interface SplitOptions {
  /** A shard folder, a filter output folder (its kept.tsv is read) or a TSV file. */
  input: string;
  /** The shard folder whose images a TSV's rows name by URL. */
  shards?: string;
  out: string;
  /** Shares of the images for val and test (default 0.05 and 0.1); train gets the rest. */
  fractions?: { val: number; test: number };
  /** Group key (default 'url'). */
  by?: SplitKey;
  /** A TSV's column order (default: detected). */
  layout?: TsvLayout | 'auto';
  /** Largest shard member or local image read, in bytes (default: the shard reader's). */
  maxMemberBytes?: number;
  /** Which local paths a TSV's rows may name (`LocalFilePolicy`, default 'inside-list': relative paths inside the TSV's folder). */
  localFiles?: LocalFilePolicy;
}

/** A row or sample left out of the split, and why. */
export interface SplitReject {
  /** "LINE" of the TSV, or "SHARD#KEY". */
  where: string;
  url?: string;
  caption?: string;
  reason: string;
}

export interface SplitSummary {
  input: string;
  shards?: string;
  by: SplitKey;
  fractions: { val: number; test: number };
  /** Rows of the TSV or samples of the shard folder read. */
  read: number;
  /** Images written (each with one caption per accepted row). */
  images: number;
  rejected: number;
  /** Rejections by reason (the part of the reason before the first colon). */
  reasons: Record<string, number>;
  sides: Record<SplitSide, { images: number; captions: number; groups: number }>;
}

/** Default shares of a kept set's images for val and test (not the pool's URL split, data/url-split.ts). */
export const DEFAULT_COCO_SPLIT_FRACTIONS = { val: 0.05, test: 0.1 } as const;

interface Item {
  id: number;
  url: string;
  fileName: string;
  width: number;
  height: number;
  captions: string[];
  imageHash: string;
}

const EXT_BY_MAGIC: [ImageExt, (b: Buffer) => boolean][] = [
  ['jpg', (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['png', (b) => b.length > 8 && b.readUInt32BE(0) === 0x89504e47],
  ['gif', (b) => b.length > 6 && b.toString('latin1', 0, 3) === 'GIF'],
  ['webp', (b) => b.length > 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP'],
];

/** The image's format from its first bytes (not from a name or a shard's extension, which may lie). */
function sniffExt(image: Buffer): ImageExt | undefined {
  return EXT_BY_MAGIC.find(([, test]) => test(image))?.[0];
}

// eslint-disable-next-line no-control-regex -- control characters in a caption become spaces
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]+/g;

/** Caption as written into the split: control characters and runs of spaces made one space, trimmed; undefined when nothing is left. */
function cleanCaption(caption: string): string | undefined {
  const text = caption.replace(CONTROL_CHARACTERS, ' ').replace(/\s+/g, ' ').trim();
  return text === '' ? undefined : text;
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

function checkFractions(fractions: { val: number; test: number }): void {
  for (const [name, value] of Object.entries(fractions))
    if (!(typeof value === 'number' && value >= 0 && value < 1)) throw new Error(`split: --${name} must be a share in [0, 1), got ${value}`);
  if (fractions.val + fractions.test >= 1) throw new Error(`split: val + test must leave images for train, got ${fractions.val} + ${fractions.test}`);
}

/** The COCO image id of a shard key: img2dataset keys are decimal (00000012 → 12). */
function idOfKey(key: string): number | undefined {
  if (!/^\d{1,15}$/.test(key)) return undefined;
  return Number(key);
}

/** Decoded samples of a shard folder with where each came from; a sample or a tar that cannot be read is reported, not thrown. */
async function* shardSamples(folder: string, maxMemberBytes: number, reject: (r: SplitReject) => void): AsyncGenerator<{ raw: RawSample; where: string }> {
  const tars = listTarShards(folder);
  const sources: (() => AsyncGenerator<RawSample>)[] =
    tars.length > 0 ? tars.map((tar) => () => readTarShard(tar, { maxMemberBytes })) : [() => readFilesLayout(folder, { maxMemberBytes })];
  for (const [index, source] of sources.entries()) {
    const name = tars.length > 0 ? path.basename(tars[index]!) : path.basename(folder);
    try {
      for await (const raw of source()) yield { raw, where: `${path.basename(raw.source)}#${raw.key}` };
    } catch (err) {
      // a truncated or corrupt tar: the samples before the damage were used; the rest of that shard cannot be
      reject({ where: name, reason: `shard:unreadable: ${(err as Error).message}` });
    }
  }
}

/** Reads a local image named by a TSV row, refusing what is not a regular file or is over the cap. */
function readLocalImage(file: string, cap: number): Buffer | string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    return `image:missing: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
  }
  if (!stat.isFile()) return 'image:not-a-file';
  if (stat.size > cap) return `image:too-large: ${stat.size} bytes, over the ${cap}-byte cap`;
  return fs.readFileSync(file);
}

/** Writes a COCO split of a kept set; returns its summary (also written to OUT/summary.json). */
export async function writeSplit(options: SplitOptions): Promise<SplitSummary> {
  const fractions = options.fractions ?? { ...DEFAULT_COCO_SPLIT_FRACTIONS };
  checkFractions(fractions);
  const by = options.by ?? 'url';
  if (!SPLIT_KEYS.includes(by)) throw new Error(`split: --by must be one of ${SPLIT_KEYS.join(', ')}, got ${String(by)}`);
  const cap = options.maxMemberBytes ?? DEFAULT_MAX_MEMBER_BYTES;
  if (!fs.existsSync(options.input)) throw new Error(`split: ${options.input} does not exist`);
  const inputIsFolder = fs.statSync(options.input).isDirectory();
  const keptInFolder = path.join(options.input, 'kept.tsv');
  const tsv = !inputIsFolder ? options.input : fs.existsSync(keptInFolder) ? keptInFolder : undefined;
  if (options.shards !== undefined && !(fs.existsSync(options.shards) && fs.statSync(options.shards).isDirectory()))
    throw new Error(`split: --shards ${options.shards} is not a folder`);
  if (tsv === undefined && options.shards !== undefined)
    throw new Error(`split: --shards goes with a TSV input (a kept.tsv); ${options.input} is a shard folder`);

  const out = path.resolve(options.out);
  checkReplaceable(out);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  // one split writes into `out` at a time; what a killed one left beside it goes now
  const lock = acquireLock(path.join(path.dirname(out), `.${path.basename(out)}.split.lock`), { what: `split into ${out}` });
  try {
    removeLeftTemporaries(out);
    return await writeSplitLocked(options, out, { fractions, by, cap, tsv });
  } finally {
    lock.release();
  }
}

/** `writeSplit` once its output folder is locked. */
async function writeSplitLocked(
  options: SplitOptions,
  out: string,
  { fractions, by, cap, tsv }: { fractions: { val: number; test: number }; by: SplitKey; cap: number; tsv: string | undefined },
): Promise<SplitSummary> {
  const temporary = temporaryPath(out);
  fs.mkdirSync(path.join(temporary, 'images'), { recursive: true });
  const rejects: SplitReject[] = [];
  const reject = (r: SplitReject) => void rejects.push(r);
  const items: Item[] = [];
  const ids = new Set<number>();
  let read = 0;

  /** Checks an image and writes it into the split; the item, or undefined after rejecting. */
  const accept = (id: number, url: string, image: Buffer, captions: string[], where: string): Item | undefined => {
    const ext = sniffExt(image);
    const size = ext === undefined ? undefined : imageSize(image);
    if (ext === undefined) return void reject({ where, url, caption: captions[0], reason: 'image:unknown-format: not JPEG, PNG, GIF or WebP bytes' });
    if (size === undefined || size.width <= 0 || size.height <= 0)
      return void reject({ where, url, caption: captions[0], reason: `image:no-size: the ${ext} header gives no width and height` });
    if (ids.has(id)) return void reject({ where, url, caption: captions[0], reason: `duplicate-id: image id ${id} is taken` });
    ids.add(id);
    const fileName = `images/${id}.${ext}`;
    fs.writeFileSync(path.join(temporary, fileName), image);
    const item = { id, url, fileName, ...size, captions, imageHash: sha256(image) };
    items.push(item);
    return item;
  };

  try {
    if (tsv === undefined) {
      // the shard folder alone: every sample, its own caption
      for await (const { raw, where } of shardSamples(options.input, cap, reject)) {
        read++;
        let sample;
        try {
          sample = decodeSample(raw);
        } catch (err) {
          reject({ where, reason: err instanceof SampleError ? `sample:${err.reason}: ${err.detail}` : `sample:unreadable: ${(err as Error).message}` });
          continue;
        }
        const url = typeof sample.json.url === 'string' ? sample.json.url : where;
        const caption = cleanCaption(sample.caption);
        const id = idOfKey(sample.key);
        if (caption === undefined) reject({ where, url, reason: 'caption:empty' });
        else if (id === undefined) reject({ where, url, caption, reason: 'key:not-a-number: COCO image ids are integers' });
        else accept(id, url, sample.image, [caption], where);
      }
    } else {
      const layout = !options.layout || options.layout === 'auto' ? await detectTsvLayout(tsv) : options.layout;
      const rows: { line: number; url: string; caption: string }[] = [];
      for await (const row of readTsv(tsv, { layout, malformed: 'reject' })) {
        read++;
        if (isReject(row)) {
          reject({ where: String(row.line), reason: `row:${row.reject}` });
          continue;
        }
        const caption = cleanCaption(row.caption);
        if (caption === undefined) reject({ where: String(row.line), url: row.url, reason: 'caption:empty' });
        else rows.push({ line: row.line, url: row.url, caption });
      }
      if (options.shards !== undefined) {
        // one image per URL, with the captions of every row that names it
        const wanted = new Map<string, typeof rows>();
        for (const row of rows) wanted.set(row.url, [...(wanted.get(row.url) ?? []), row]);
        for await (const { raw, where } of shardSamples(options.shards, cap, reject)) {
          let sample;
          try {
            sample = decodeSample(raw);
          } catch {
            continue; // a broken sample of the shards is not a row of the kept set; its row is rejected below as missing
          }
          const url = typeof sample.json.url === 'string' ? sample.json.url : undefined;
          const matched = url === undefined ? undefined : wanted.get(url);
          if (url === undefined || matched === undefined) continue;
          const id = idOfKey(sample.key);
          wanted.delete(url);
          if (id === undefined)
            for (const row of matched) reject({ where: String(row.line), url, caption: row.caption, reason: `key:not-a-number: shard sample ${where}` });
          else {
            const captions = matched.map((row) => row.caption);
            if (!accept(id, url, sample.image, captions, `${matched[0]!.line} (${where})`))
              for (const row of matched.slice(1))
                reject({ where: String(row.line), url, caption: row.caption, reason: 'image:rejected: the same URL as an earlier rejected row' });
          }
        }
        for (const missed of wanted.values())
          for (const row of missed)
            reject({ where: String(row.line), url: row.url, caption: row.caption, reason: 'image:not-in-shards: no readable sample with this URL' });
      } else {
        const base = path.dirname(path.resolve(tsv));
        const policy = options.localFiles ?? 'inside-list';
        // reading files one by one is synchronous: let signals in every few hundred rows
        const turn = eventLoopTurns(256);
        for (const row of rows) {
          await turn();
          const fileUrl = /^file:\/\//i.test(row.url);
          if (!fileUrl && /^[a-z][a-z0-9+.-]*:\/\//i.test(row.url)) {
            reject({
              where: String(row.line),
              url: row.url,
              caption: row.caption,
              reason: 'image:not-local: a web URL; give the shards it was downloaded into (--shards)',
            });
            continue;
          }
          // the TSV is untrusted: its rows name files inside its folder only (decided on the text, then on the real path)
          let name = row.url;
          if (fileUrl)
            try {
              name = fileURLToPath(row.url);
            } catch {
              reject({ where: String(row.line), url: row.url, caption: row.caption, reason: 'image:bad-url: not a file URL' });
              continue;
            }
          const target = localFileRefusal(name, base, policy);
          if ('reason' in target) {
            reject({ where: String(row.line), url: row.url, caption: row.caption, reason: `image:outside-list: ${target.detail}` });
            continue;
          }
          const image = readLocalImage(target.file, cap);
          if (typeof image === 'string') reject({ where: String(row.line), url: row.url, caption: row.caption, reason: image });
          else accept(row.line, row.url, image, [row.caption], String(row.line));
        }
      }
    }

    const summary = assignAndWrite(temporary, items, by, fractions, rejects, { input: options.input, shards: options.shards, read });
    replaceFolder(temporary, out);
    return summary;
  } catch (err) {
    fs.rmSync(temporary, { recursive: true, force: true });
    releaseTemporary(temporary);
    throw err;
  }
}

/** The group key of an item. */
function groupKey(item: Item, by: SplitKey): string {
  if (by === 'url') return item.url;
  if (by === 'image') return item.imageHash;
  return item.captions.join('\n').toLowerCase();
}

/** Orders the groups by hash, fills test, val, train; writes the annotation files, rejects and summary into `folder`. */
function assignAndWrite(
  folder: string,
  items: Item[],
  by: SplitKey,
  fractions: { val: number; test: number },
  rejects: SplitReject[],
  source: { input: string; shards?: string; read: number },
): SplitSummary {
  const groups = new Map<string, Item[]>();
  for (const item of items) {
    const key = groupKey(item, by);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  const ordered = [...groups.entries()]
    .map(([key, members]) => ({ hash: sha256(key), members }))
    .sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  const sides: Record<SplitSide, Item[][]> = { train: [], val: [], test: [] };
  // a group starts on a side while fewer images than the side's share are placed (shares × images, rounded up; the
  // tolerance keeps 0.3 × 40 = 12.000000000000002 at 12)
  const boundary = (share: number) => Math.ceil(share * items.length - 1e-9);
  const testEnd = boundary(fractions.test);
  const valEnd = boundary(fractions.test + fractions.val);
  let seen = 0;
  for (const { members } of ordered) {
    const side: SplitSide = seen < testEnd ? 'test' : seen < valEnd ? 'val' : 'train';
    sides[side].push(members);
    seen += members.length;
  }
  const counts = {} as SplitSummary['sides'];
  for (const side of SPLIT_SIDES) {
    const images: CaptionedImage[] = sides[side]
      .flat()
      .map((item) => ({ id: item.id, fileName: item.fileName, width: item.width, height: item.height, captions: item.captions }));
    const file = path.join(folder, `${side}.json`);
    const data = buildCocoCaptions(file, images, { info: { description: `cckit split: ${side}`, split: side, by, fractions } });
    fs.writeFileSync(file, JSON.stringify(data));
    counts[side] = { images: images.length, captions: data.annotations.length, groups: sides[side].length };
  }
  const sources = SPLIT_SIDES.flatMap((side) =>
    sides[side].flat().map((item) => JSON.stringify({ id: item.id, side, url: item.url, file_name: item.fileName }) + '\n'),
  );
  fs.writeFileSync(path.join(folder, 'images.jsonl'), sources.join(''));
  const reasons: Record<string, number> = {};
  for (const r of rejects) {
    const name = r.reason.split(':').slice(0, 2).join(':');
    reasons[name] = (reasons[name] ?? 0) + 1;
  }
  fs.writeFileSync(path.join(folder, 'rejects.jsonl'), rejects.map((r) => JSON.stringify(r) + '\n').join(''));
  const summary: SplitSummary = {
    input: source.input,
    ...(source.shards !== undefined ? { shards: source.shards } : {}),
    by,
    fractions,
    read: source.read,
    images: items.length,
    rejected: rejects.length,
    reasons,
    sides: counts,
  };
  fs.writeFileSync(path.join(folder, 'summary.json'), JSON.stringify(summary, null, 1) + '\n');
  fs.writeFileSync(path.join(folder, SPLIT_MARKER), JSON.stringify({ writtenBy: 'cckit split' }) + '\n');
  return summary;
}

/** The file that marks a folder as a split's own output: only such a folder is ever replaced. */
export const SPLIT_MARKER = '.cckit-split';

/**
 * An existing `out` is replaced only when it is empty or an earlier split: one that carries the split's own marker
 * (`SPLIT_MARKER`) and nothing but a split's files. A folder that merely looks like one (a `summary.json` and an
 * `images/` of a user's photos) is refused, never emptied.
 */
function checkReplaceable(out: string): void {
  if (!fs.existsSync(out)) return;
  if (!fs.statSync(out).isDirectory()) throw new Error(`split: --out ${out} is a file`);
  const names = fs.readdirSync(out);
  if (names.length === 0) return;
  const earlierSplit = names.includes(SPLIT_MARKER) && names.every((name) => SPLIT_FILES.has(name));
  if (!earlierSplit) {
    const why = names.every((name) => SPLIT_FILES.has(name)) ? `was not written by cckit split (no ${SPLIT_MARKER})` : 'holds other files';
    throw new Error(`split: --out ${out} ${why}; give an empty or new folder (an earlier split there is replaced)`);
  }
}

const SPLIT_FILES = new Set(['images', 'images.jsonl', 'train.json', 'val.json', 'test.json', 'rejects.jsonl', 'summary.json', SPLIT_MARKER]);

/** Puts the finished temporary folder at `out`, replacing an earlier split there. */
function replaceFolder(temporary: string, out: string): void {
  if (fs.existsSync(out)) {
    const old = temporaryPath(out);
    fs.renameSync(out, old);
    fs.renameSync(temporary, out);
    fs.rmSync(old, { recursive: true, force: true });
    releaseTemporary(old);
  } else fs.renameSync(temporary, out);
  releaseTemporary(temporary);
}

/** One line per side and the rejections, for a terminal. */
export function describeSplit(summary: SplitSummary): string[] {
  const lines = SPLIT_SIDES.map((side) => {
    const s = summary.sides[side];
    return `${side}: ${s.images} images, ${s.captions} captions, ${s.groups} ${summary.by === 'caption' ? 'distinct captions' : summary.by === 'image' ? 'distinct images' : 'URLs'}`;
  });
  const reasons = Object.entries(summary.reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  lines.push(`${summary.read} read, ${summary.images} images kept, ${summary.rejected} rejected${reasons ? ` (${reasons})` : ''}`);
  return lines;
}
