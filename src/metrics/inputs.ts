/**
 * Reading scoring inputs in the ecosystem's formats, with errors that name the file
 * and the image:
 *  - cckit's scoring file (the golden format): {images: [{image_id, references, candidate, domain?}]}
 *  - COCO results [{image_id, caption}] with COCO caption annotations
 *    {images: [{id, domain?}], annotations: [{image_id, caption}]}; nocaps annotations are the
 *    same shape with images[].domain = "in-domain" | "near-domain" | "out-domain".
 */
import { normaliseDomain, readCocoAnnotations, requireCaption, requireImageId } from '../data/coco';
import { InputError, isRecord, JsonNumberText, readJsonFile } from '../util/json';
import { CaptionCase } from './evaluate';

function describeId(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || value instanceof JsonNumberText ? String(value) : '?';
}

/** Reads cckit's scoring file: {images: [{image_id, references: [...], candidate, domain?}]}. */
export function loadScoringFile(file: string): CaptionCase[] {
  const data = readJsonFile(file, { exactNumbers: true });
  if (!isRecord(data) || !Array.isArray(data.images)) throw new InputError(file, 'expected an object with an "images" array');
  if (data.images.length === 0) throw new InputError(file, '"images" is empty: nothing to score');
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
  const annotations = readCocoAnnotations(annotationsFile, { imagesOptional: true });
  const references = new Map<string, string[]>();
  const domains = new Map<string, string>();
  for (const image of annotations.images) {
    const imageId = String(image.id);
    if (image.captions.length > 0) references.set(imageId, image.captions);
    if (image.domain !== undefined) domains.set(imageId, image.domain);
  }

  const results = readJsonFile(resultsFile, { exactNumbers: true });
  if (!Array.isArray(results)) throw new InputError(resultsFile, 'expected COCO results: an array of {image_id, caption}');
  if (results.length === 0) throw new InputError(resultsFile, 'no results (an empty array): nothing to score');
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
