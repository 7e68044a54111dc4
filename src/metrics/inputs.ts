/**
 * Reading scoring inputs in the ecosystem's formats, with errors that name the file
 * and the image:
 *  - cckit's scoring file (the golden format): {images: [{image_id, references, candidate, domain?}]}
 *  - COCO results [{image_id, caption}] with COCO caption annotations
 *    {images: [{id, domain?}], annotations: [{image_id, caption}]}; nocaps annotations are the
 *    same shape with images[].domain = "in-domain" | "near-domain" | "out-domain".
 */
import * as fs from 'fs';
import { CaptionCase } from './evaluate';

export class InputError extends Error {
  constructor(readonly file: string, detail: string) {
    super(`${file}: ${detail}`);
    this.name = 'InputError';
  }
}

/** Parses JSON, turning a syntax error's offset into line and column. */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(file, `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    const offset = /position (\d+)/.exec(message);
    if (offset) {
      const before = text.slice(0, Number(offset[1]));
      const line = before.split('\n').length;
      const column = Number(offset[1]) - before.lastIndexOf('\n');
      throw new InputError(file, `malformed JSON at line ${line}, column ${column}: ${message}`);
    }
    throw new InputError(file, `malformed JSON: ${message}`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeId(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '?';
}

function requireImageId(file: string, where: string, value: unknown): string {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new InputError(file, `${where}: image_id must be a non-empty string or a number, got ${JSON.stringify(value)}`);
}

function requireCaption(file: string, where: string, value: unknown): string {
  if (typeof value !== 'string') throw new InputError(file, `${where}: caption must be a string, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`);
  return value;
}

/** Maps nocaps's domain names ("in-domain", …) and cckit's ("in", …) to in/near/out. */
export function normaliseDomain(file: string, where: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InputError(file, `${where}: domain must be a string, got ${JSON.stringify(value)}`);
  const short = value.toLowerCase().replace(/[-_ ]?domain$/, '');
  if (short === 'in' || short === 'near' || short === 'out') return short;
  throw new InputError(file, `${where}: unknown domain "${value}" (expected in, near or out, or nocaps's in-domain/near-domain/out-domain)`);
}

/** Reads cckit's scoring file: {images: [{image_id, references: [...], candidate, domain?}]}. */
export function loadScoringFile(file: string): CaptionCase[] {
  const data = readJsonFile(file);
  if (!isRecord(data) || !Array.isArray(data.images)) throw new InputError(file, 'expected an object with an "images" array');
  const seen = new Set<string>();
  return data.images.map((entry: unknown, index: number): CaptionCase => {
    if (!isRecord(entry)) throw new InputError(file, `images[${index}]: expected an object`);
    const where = `images[${index}] (image_id ${describeId(entry.image_id)})`;
    const imageId = requireImageId(file, `images[${index}]`, entry.image_id);
    if (seen.has(imageId)) throw new InputError(file, `${where}: duplicate image_id`);
    seen.add(imageId);
    if (!Array.isArray(entry.references)) throw new InputError(file, `${where}: "references" must be an array of strings`);
    if (entry.references.length === 0) throw new InputError(file, `${where}: "references" is empty; every image needs at least one reference`);
    const references = entry.references.map((ref: unknown, r: number) => requireCaption(file, `${where} references[${r}]`, ref));
    if (!('candidate' in entry)) throw new InputError(file, `${where}: missing "candidate"`);
    const candidate = requireCaption(file, `${where} candidate`, entry.candidate);
    const domain = normaliseDomain(file, where, entry.domain);
    return domain === undefined ? { imageId, references, candidate } : { imageId, references, candidate, domain };
  });
}

export interface CocoLoad {
  cases: CaptionCase[];
  /** Annotated images with no prediction (coco-caption scores only predicted images). */
  unpredicted: string[];
}

/** Reads COCO-format results and COCO/nocaps caption annotations into scoring cases. */
export function loadCocoResults(resultsFile: string, annotationsFile: string): CocoLoad {
  const annotations = readJsonFile(annotationsFile);
  if (!isRecord(annotations) || !Array.isArray(annotations.annotations)) {
    throw new InputError(annotationsFile, 'expected COCO caption annotations: an object with an "annotations" array');
  }
  const references = new Map<string, string[]>();
  annotations.annotations.forEach((ann: unknown, index: number) => {
    const where = `annotations[${index}]`;
    if (!isRecord(ann)) throw new InputError(annotationsFile, `${where}: expected an object`);
    const imageId = requireImageId(annotationsFile, where, ann.image_id);
    const caption = requireCaption(annotationsFile, `${where} (image_id ${imageId})`, ann.caption);
    const list = references.get(imageId) ?? [];
    list.push(caption);
    references.set(imageId, list);
  });
  const domains = new Map<string, string>();
  if (annotations.images !== undefined) {
    if (!Array.isArray(annotations.images)) throw new InputError(annotationsFile, '"images" must be an array');
    annotations.images.forEach((image: unknown, index: number) => {
      if (!isRecord(image)) throw new InputError(annotationsFile, `images[${index}]: expected an object`);
      const imageId = requireImageId(annotationsFile, `images[${index}]`, image.id);
      const domain = normaliseDomain(annotationsFile, `images[${index}] (id ${imageId})`, image.domain);
      if (domain !== undefined) domains.set(imageId, domain);
    });
  }

  const results = readJsonFile(resultsFile);
  if (!Array.isArray(results)) throw new InputError(resultsFile, 'expected COCO results: an array of {image_id, caption}');
  const predicted = new Set<string>();
  const cases = results.map((result: unknown, index: number): CaptionCase => {
    if (!isRecord(result)) throw new InputError(resultsFile, `[${index}]: expected an object`);
    const imageId = requireImageId(resultsFile, `[${index}]`, result.image_id);
    const where = `[${index}] (image_id ${imageId})`;
    if (predicted.has(imageId)) throw new InputError(resultsFile, `${where}: a second caption for the same image`);
    predicted.add(imageId);
    const candidate = requireCaption(resultsFile, where, result.caption);
    const refs = references.get(imageId);
    if (!refs) throw new InputError(resultsFile, `${where}: image has no reference captions in ${annotationsFile}`);
    const domain = domains.get(imageId);
    return domain === undefined ? { imageId, references: refs, candidate } : { imageId, references: refs, candidate, domain };
  });
  const unpredicted = [...references.keys()].filter((id) => !predicted.has(id));
  return { cases, unpredicted };
}
