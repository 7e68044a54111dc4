/**
 * Writers for the COCO caption formats the evaluation ecosystem reads:
 *  - COCO caption annotations (captions_val2014.json's shape):
 *    {info, licenses, images: [{id, file_name, width, height}], annotations: [{id, image_id, caption}]}
 *  - nocaps annotations: the same, with images[].domain = "in-domain" | "near-domain" | "out-domain"
 *  - COCO results (what coco-caption's loadRes reads): [{image_id, caption}]
 * Files are written atomically (temporary file + rename). Inputs are checked first, with errors
 * naming the file and the position ("images[3] (id 17): …").
 *
 * Reading: `readCocoAnnotations` is the one reader of caption annotation files; the scoring loader
 * (src/metrics/inputs.ts), the training data (src/train/data.ts), the feature sources and
 * `readCocoCaptions` all build on it. Files written by `cckit world build` carry the world's seed and
 * split in their "info" block (`worldCocoInfo` / `worldOfCocoFile`), so their images map to world URLs.
 */
import { writeJsonAtomic } from '../util/atomic';
import { InputError, isRecord, JsonNumberText, readJsonFile } from '../util/json';
import { isWorldSplit, type WorldSplit } from '../world/splits';
import { nonDefaultZipf } from '../world/url';

export type NocapsDomain = 'in-domain' | 'near-domain' | 'out-domain';

/** One image with its reference captions, the input to the annotation writers. */
export interface CaptionedImage {
  id: number;
  fileName: string;
  width: number;
  height: number;
  captions: string[];
  /** nocaps domain; "in"/"near"/"out" are accepted too. Required by writeNocapsCaptions. */
  domain?: NocapsDomain | 'in' | 'near' | 'out';
  /** Concept names the image shows (the embedded world's ground truth; real COCO / nocaps files have none). */
  objects?: string[];
}

export interface CocoImage {
  id: number;
  file_name: string;
  width: number;
  height: number;
  domain?: NocapsDomain;
  /** cckit's extra field: the world's ground-truth concept names. */
  objects?: string[];
}

export interface CocoAnnotation {
  id: number;
  image_id: number;
  caption: string;
}

export interface CocoCaptionFile {
  info: Record<string, unknown>;
  licenses: unknown[];
  images: CocoImage[];
  annotations: CocoAnnotation[];
}

export interface CocoResult {
  image_id: number | string;
  caption: string;
}

export interface CocoWriteOptions {
  /** The "info" block (default: a description naming cckit and today's date). */
  info?: Record<string, unknown>;
  /** First annotation id (default 1); ids then count up in image order. */
  firstAnnotationId?: number;
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

function toNocapsDomain(file: string, where: string, value: unknown): NocapsDomain | undefined {
  const short = normaliseDomain(file, where, value);
  return short === undefined ? undefined : `${short}-domain`;
}

/** Builds a COCO caption annotation object; `nocaps` requires and writes a domain for every image. */
export function buildCocoCaptions(file: string, images: readonly CaptionedImage[], options: CocoWriteOptions & { nocaps?: boolean } = {}): CocoCaptionFile {
  const out: CocoCaptionFile = {
    info: options.info ?? {
      description: options.nocaps ? 'cckit nocaps-format annotations' : 'cckit COCO-format caption annotations',
      date_created: new Date().toISOString().slice(0, 10),
    },
    licenses: [],
    images: [],
    annotations: [],
  };
  const seen = new Set<number>();
  let annotationId = options.firstAnnotationId ?? 1;
  images.forEach((image, index) => {
    const where = `images[${index}] (id ${typeof image.id === 'number' ? image.id : '?'})`;
    if (typeof image.id !== 'number' || !Number.isInteger(image.id) || image.id < 0)
      throw new InputError(file, `images[${index}]: id must be a non-negative integer, got ${JSON.stringify(image.id)}`);
    if (seen.has(image.id)) throw new InputError(file, `${where}: duplicate id`);
    seen.add(image.id);
    if (typeof image.fileName !== 'string' || image.fileName === '') throw new InputError(file, `${where}: fileName must be a non-empty string`);
    if (!isPositiveInteger(image.width) || !isPositiveInteger(image.height)) {
      throw new InputError(file, `${where}: width and height must be positive integers, got ${JSON.stringify(image.width)}×${JSON.stringify(image.height)}`);
    }
    if (!Array.isArray(image.captions) || image.captions.length === 0) throw new InputError(file, `${where}: needs at least one caption`);
    const entry: CocoImage = { id: image.id, file_name: image.fileName, width: image.width, height: image.height };
    const domain = toNocapsDomain(file, where, image.domain);
    if (options.nocaps) {
      if (domain === undefined) throw new InputError(file, `${where}: nocaps annotations need a domain (in-domain, near-domain or out-domain)`);
      entry.domain = domain;
    } else if (domain !== undefined) {
      entry.domain = domain;
    }
    if (image.objects !== undefined) entry.objects = requireObjects(file, where, image.objects);
    out.images.push(entry);
    image.captions.forEach((caption, c) => {
      if (typeof caption !== 'string' || caption.trim() === '') throw new InputError(file, `${where} captions[${c}]: caption must be a non-empty string`);
      out.annotations.push({ id: annotationId++, image_id: image.id, caption });
    });
  });
  return out;
}

/** Writes COCO caption annotations ({info, licenses, images, annotations}). */
export function writeCocoCaptions(file: string, images: readonly CaptionedImage[], options: CocoWriteOptions = {}): CocoCaptionFile {
  const data = buildCocoCaptions(file, images, options);
  writeJsonAtomic(file, data);
  return data;
}

/** Writes nocaps-style annotations: COCO captions with images[].domain. */
export function writeNocapsCaptions(file: string, images: readonly CaptionedImage[], options: CocoWriteOptions = {}): CocoCaptionFile {
  const data = buildCocoCaptions(file, images, { ...options, nocaps: true });
  writeJsonAtomic(file, data);
  return data;
}

/** A caption for one image, as every result writer takes it. */
export interface CaptionPrediction {
  image_id: string | number;
  caption: string;
}

/** "17" → 17 (COCO and nocaps ids are integers); other strings stay strings. */
export function naturalImageId(id: string | number): string | number {
  if (typeof id === 'number') return id;
  return /^(0|[1-9]\d*)$/.test(id) && Number.isSafeInteger(Number(id)) ? Number(id) : id;
}

function checkUnique(preds: readonly CaptionPrediction[]): void {
  const seen = new Set<string>();
  preds.forEach((p, index) => {
    const key = String(p.image_id);
    if (seen.has(key)) throw new Error(`[${index}] (image_id ${key}): a second caption for the same image`);
    if (typeof p.caption !== 'string') throw new Error(`[${index}] (image_id ${key}): caption must be a string`);
    seen.add(key);
  });
}

/** COCO results (what coco-caption's loadRes reads): one {image_id, caption} per image, integer-looking ids as numbers. */
export function toCocoResults(preds: readonly CaptionPrediction[]): CocoResult[] {
  checkUnique(preds);
  return preds.map((p) => ({ image_id: naturalImageId(p.image_id), caption: p.caption }));
}

export interface NocapsOptions {
  /** The split's image ids (4,500 for val, 10,600 for test): every one must have a caption. */
  expectedIds?: Iterable<number>;
}

/** nocaps submission: integer image ids, one caption each, optionally checked against the split's ids. */
export function toNocapsSubmission(preds: readonly CaptionPrediction[], options: NocapsOptions = {}): { image_id: number; caption: string }[] {
  checkUnique(preds);
  const out = preds.map((p) => {
    const id = naturalImageId(p.image_id);
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0)
      throw new Error(`nocaps image ids are non-negative integers, got ${JSON.stringify(p.image_id)}`);
    return { image_id: id, caption: p.caption };
  });
  if (options.expectedIds) {
    const expected = new Set(options.expectedIds);
    const have = new Set(out.map((p) => p.image_id));
    const missing = [...expected].filter((id) => !have.has(id));
    const extra = out.filter((p) => !expected.has(p.image_id));
    if (missing.length > 0) throw new Error(`${missing.length} nocaps image(s) have no caption (first: ${missing[0]})`);
    if (extra.length > 0) throw new Error(`${extra.length} caption(s) for images outside the split (first: ${extra[0].image_id})`);
  }
  return out;
}

/** Writes COCO results [{image_id, caption}] atomically; errors name the file. */
export function writeCocoResults(file: string, preds: readonly CaptionPrediction[]): CocoResult[] {
  const out = withFile(file, () => toCocoResults(preds));
  writeJsonAtomic(file, out, { readable: true });
  return out;
}

/** Writes a nocaps evaluation-server submission atomically. */
export function writeNocapsSubmission(file: string, preds: readonly CaptionPrediction[], options: NocapsOptions = {}): void {
  writeJsonAtomic(
    file,
    withFile(file, () => toNocapsSubmission(preds, options)),
    { readable: true },
  );
}

function withFile<T>(file: string, make: () => T): T {
  try {
    return make();
  } catch (err) {
    throw new InputError(file, (err as Error).message);
  }
}

/** Checks an image id: a non-empty string or a finite number (returned as a string). */
/**
 * An image id as the string that keys it. Read with `exactNumbers`, an integer beyond 2^53 keeps its
 * digits (as a double it would collide with its neighbours); a number that overflows is refused.
 */
export function requireImageId(file: string, where: string, value: unknown): string {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (value instanceof JsonNumberText) {
    if (/^-?\d+$/.test(value.text)) return value.text;
    throw new InputError(file, `${where}: image_id ${value.text} is out of range for a number; write large ids as integers or strings`);
  }
  throw new InputError(file, `${where}: image_id must be a non-empty string or a number, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`);
}

/** The id to keep for an image: as written, with an exact big integer as its digit string. */
function imageIdValue(value: unknown): number | string {
  return value instanceof JsonNumberText ? value.text : (value as number | string);
}

export function requireCaption(file: string, where: string, value: unknown): string {
  if (typeof value !== 'string')
    throw new InputError(file, `${where}: caption must be a string, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`);
  return value;
}

/** Checks an image's `objects` (the world's ground truth): an array of non-empty strings. */
function requireObjects(file: string, where: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.some((o) => typeof o !== 'string' || o === '')) {
    throw new InputError(file, `${where}: objects must be an array of concept names, got ${JSON.stringify(value)}`);
  }
  return [...(value as string[])];
}

/** Maps nocaps's domain names ("in-domain", …) and cckit's ("in", …) to in/near/out. */
export function normaliseDomain(file: string, where: string, value: unknown): 'in' | 'near' | 'out' | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InputError(file, `${where}: domain must be a string, got ${JSON.stringify(value)}`);
  const short = value.toLowerCase().replace(/[-_ ]?domain$/, '');
  if (short === 'in' || short === 'near' || short === 'out') return short;
  throw new InputError(file, `${where}: unknown domain "${value}" (expected in, near or out, or nocaps's in-domain/near-domain/out-domain)`);
}

/**
 * The "info" block `cckit world build` writes into a split's caption file: `world` marks it as the world's
 * (with its Zipf exponent where that is not the default 1, as the world's URLs carry it).
 */
export function worldCocoInfo(split: WorldSplit, seed: number, preset: string, zipf?: number): Record<string, unknown> {
  const named = nonDefaultZipf(zipf);
  const world = named === undefined ? { seed, split, preset } : { seed, split, preset, zipf: named };
  return { description: `${WORLD_DESCRIPTION}${split}`, seed, preset, world };
}

const WORLD_DESCRIPTION = 'cckit embedded world, ';

/** The world image naming (seed, split, Zipf exponent) of a caption file written by `cckit world build`, or undefined for any other file. */
export function worldOfCocoFile(info: unknown): { seed: number; split: WorldSplit; zipf?: number } | undefined {
  if (!isRecord(info)) return undefined;
  if (isRecord(info.world)) {
    const { seed, split, zipf } = info.world;
    if (typeof seed !== 'number' || typeof split !== 'string' || !isWorldSplit(split)) return undefined;
    const named = nonDefaultZipf(zipf);
    return named === undefined ? { seed, split } : { seed, split, zipf: named };
  }
  // Files written before the `world` marker carry the split only in their description.
  if (typeof info.seed !== 'number' || typeof info.description !== 'string' || !info.description.startsWith(WORLD_DESCRIPTION)) return undefined;
  const split = info.description.slice(WORLD_DESCRIPTION.length);
  return isWorldSplit(split) ? { seed: info.seed, split } : undefined;
}

/** One image of a caption annotation file with its references (in file order). */
export interface AnnotatedImage {
  /** COCO and nocaps ids are integers; the scoring loader also takes strings. */
  id: number | string;
  fileName?: string;
  cocoUrl?: string;
  width?: number;
  height?: number;
  domain?: 'in' | 'near' | 'out';
  /** Ground-truth concept names (files written by `cckit world build` only). */
  objects?: string[];
  captions: string[];
}

export interface CocoAnnotations {
  info: Record<string, unknown>;
  /** In the order of "images" (or, without it, of first mention in "annotations"). */
  images: AnnotatedImage[];
}

/**
 * Reads COCO / nocaps caption annotations `{info?, images, annotations}`. Image ids must be unique;
 * every annotation must name a listed image; domains are normalised to in/near/out. `imagesOptional`
 * accepts files with "annotations" alone (what coco-caption's scorer needs).
 */
export function readCocoAnnotations(file: string, options: { imagesOptional?: boolean } = {}): CocoAnnotations {
  const data = readJsonFile(file, { exactNumbers: true });
  if (!isRecord(data) || !Array.isArray(data.annotations) || (!options.imagesOptional && !Array.isArray(data.images))) {
    throw new InputError(file, `expected COCO caption annotations: an object with ${options.imagesOptional ? '' : '"images" and '}"annotations" arrays`);
  }
  if (data.images !== undefined && !Array.isArray(data.images)) throw new InputError(file, '"images" must be an array');
  const listed = Array.isArray(data.images);
  const byId = new Map<string, AnnotatedImage>();
  const images: AnnotatedImage[] = [];
  if (listed) {
    (data.images as unknown[]).forEach((image: unknown, index: number) => {
      if (!isRecord(image)) throw new InputError(file, `images[${index}]: expected an object`);
      const key = requireImageId(file, `images[${index}]`, image.id);
      const where = `images[${index}] (id ${key})`;
      if (byId.has(key)) throw new InputError(file, `${where}: duplicate id`);
      const record: AnnotatedImage = { id: imageIdValue(image.id), captions: [] };
      if (typeof image.file_name === 'string') record.fileName = image.file_name;
      if (typeof image.coco_url === 'string') record.cocoUrl = image.coco_url;
      if (typeof image.width === 'number') record.width = image.width;
      if (typeof image.height === 'number') record.height = image.height;
      const domain = normaliseDomain(file, where, image.domain);
      if (domain !== undefined) record.domain = domain;
      if (image.objects !== undefined) record.objects = requireObjects(file, where, image.objects);
      byId.set(key, record);
      images.push(record);
    });
  }
  data.annotations.forEach((ann: unknown, index: number) => {
    const where = `annotations[${index}]`;
    if (!isRecord(ann)) throw new InputError(file, `${where}: expected an object`);
    const key = requireImageId(file, where, ann.image_id);
    let image = byId.get(key);
    if (!image) {
      if (listed) throw new InputError(file, `${where}: image_id ${key} is not in "images"`);
      image = { id: imageIdValue(ann.image_id), captions: [] };
      byId.set(key, image);
      images.push(image);
    }
    image.captions.push(requireCaption(file, `${where} (image_id ${key})`, ann.caption));
  });
  return { info: isRecord(data.info) ? data.info : {}, images };
}

/** Reads COCO/nocaps caption annotations back into CaptionedImage records (integer ids; captions in file order). */
export function readCocoCaptions(file: string): CaptionedImage[] {
  return readCocoAnnotations(file).images.map((image, index): CaptionedImage => {
    if (typeof image.id !== 'number') throw new InputError(file, `images[${index}]: expected an object with a numeric id`);
    const record: CaptionedImage = {
      id: image.id,
      fileName: image.fileName as string,
      width: image.width as number,
      height: image.height as number,
      captions: image.captions,
    };
    if (image.domain !== undefined) record.domain = `${image.domain}-domain`;
    if (image.objects !== undefined) record.objects = image.objects;
    return record;
  });
}
