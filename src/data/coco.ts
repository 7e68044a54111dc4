/**
 * Writers for the COCO caption formats the evaluation ecosystem reads:
 *  - COCO caption annotations (captions_val2014.json's shape):
 *    {info, licenses, images: [{id, file_name, width, height}], annotations: [{id, image_id, caption}]}
 *  - nocaps annotations: the same, with images[].domain = "in-domain" | "near-domain" | "out-domain"
 *  - COCO results (what coco-caption's loadRes reads): [{image_id, caption}]
 * Files are written atomically (temporary file + rename). Inputs are checked first, with errors
 * naming the file and the position ("images[3] (id 17): …").
 *
 * Reading back: src/metrics/inputs.ts's loaders (`loadCocoResults`, `readJsonFile`) are re-exported
 * here; `readCocoCaptions` additionally keeps file names and sizes, which the scoring loader drops.
 */
import * as fs from 'fs';
import { InputError, loadCocoResults, normaliseDomain, readJsonFile } from '../metrics/inputs';
import { writeJsonAtomic } from '../util/atomic';

export { loadCocoResults, readJsonFile, InputError };

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
}

export interface CocoImage {
  id: number;
  file_name: string;
  width: number;
  height: number;
  domain?: NocapsDomain;
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
  image_id: number;
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
  return short === undefined ? undefined : (`${short}-domain` as NocapsDomain);
}

/** Builds a COCO caption annotation object; `nocaps` requires and writes a domain for every image. */
export function buildCocoCaptions(file: string, images: readonly CaptionedImage[], options: CocoWriteOptions & { nocaps?: boolean } = {}): CocoCaptionFile {
  const out: CocoCaptionFile = {
    info: options.info ?? { description: options.nocaps ? 'cckit nocaps-format annotations' : 'cckit COCO-format caption annotations', date_created: new Date().toISOString().slice(0, 10) },
    licenses: [],
    images: [],
    annotations: [],
  };
  const seen = new Set<number>();
  let annotationId = options.firstAnnotationId ?? 1;
  images.forEach((image, index) => {
    const where = `images[${index}] (id ${typeof image.id === 'number' ? image.id : '?'})`;
    if (typeof image.id !== 'number' || !Number.isInteger(image.id) || image.id < 0) throw new InputError(file, `images[${index}]: id must be a non-negative integer, got ${JSON.stringify(image.id)}`);
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

/** Writes COCO results [{image_id, caption}], one caption per image. */
export function writeCocoResults(file: string, results: readonly { imageId: number; caption: string }[]): CocoResult[] {
  const seen = new Set<number>();
  const out = results.map((result, index): CocoResult => {
    if (typeof result.imageId !== 'number' || !Number.isInteger(result.imageId) || result.imageId < 0) {
      throw new InputError(file, `[${index}]: image_id must be a non-negative integer, got ${JSON.stringify(result.imageId)}`);
    }
    if (seen.has(result.imageId)) throw new InputError(file, `[${index}] (image_id ${result.imageId}): a second caption for the same image`);
    seen.add(result.imageId);
    if (typeof result.caption !== 'string') throw new InputError(file, `[${index}] (image_id ${result.imageId}): caption must be a string`);
    return { image_id: result.imageId, caption: result.caption };
  });
  writeJsonAtomic(file, out);
  return out;
}

/** Reads COCO/nocaps caption annotations back into CaptionedImage records (captions in file order). */
export function readCocoCaptions(file: string): CaptionedImage[] {
  const data = readJsonFile(file) as Partial<CocoCaptionFile> | null;
  if (typeof data !== 'object' || data === null || !Array.isArray(data.images) || !Array.isArray(data.annotations)) {
    throw new InputError(file, 'expected COCO caption annotations: an object with "images" and "annotations" arrays');
  }
  const byId = new Map<number, CaptionedImage>();
  const images = data.images.map((image: CocoImage, index: number): CaptionedImage => {
    if (typeof image !== 'object' || image === null || typeof image.id !== 'number') throw new InputError(file, `images[${index}]: expected an object with a numeric id`);
    if (byId.has(image.id)) throw new InputError(file, `images[${index}] (id ${image.id}): duplicate id`);
    const domain = toNocapsDomain(file, `images[${index}] (id ${image.id})`, image.domain);
    const record: CaptionedImage = { id: image.id, fileName: image.file_name, width: image.width, height: image.height, captions: [] };
    if (domain !== undefined) record.domain = domain;
    byId.set(image.id, record);
    return record;
  });
  data.annotations.forEach((ann: CocoAnnotation, index: number) => {
    if (typeof ann !== 'object' || ann === null) throw new InputError(file, `annotations[${index}]: expected an object`);
    const image = byId.get(ann.image_id);
    if (!image) throw new InputError(file, `annotations[${index}]: image_id ${JSON.stringify(ann.image_id)} is not in "images"`);
    if (typeof ann.caption !== 'string') throw new InputError(file, `annotations[${index}] (image_id ${ann.image_id}): caption must be a string`);
    image.captions.push(ann.caption);
  });
  return images;
}
