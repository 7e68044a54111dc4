/**
 * Token ids → caption text, and the two result files the benchmarks take: COCO results
 * `[{image_id, caption}]` (coco-caption, `cckit eval`, `cckit score --results`) and the nocaps
 * submission (the same list, image_id the nocaps integer id, one caption per image).
 */
import { BOS_ID, EOS_ID, MASK_ID, PAD_ID } from '../text/tokens';
import { writeJsonAtomic } from '../util/atomic';

/** What the decoders need of a vocabulary. */
export interface Vocabulary {
  idToWord(id: number): string;
}

const SKIPPED = new Set([PAD_ID, BOS_ID, MASK_ID]);

/**
 * Joins the words of `ids` with single spaces, dropping PAD, BOS and MASK; EOS ends the caption
 * (anything after it is ignored). Other words, `<PERSON>` and `<unk>` included, stay as the
 * vocabulary spells them. Same text as src/text/vocab.ts Vocabulary.decode, for any `idToWord`.
 */
export function captionFromIds(ids: readonly number[], vocab: Vocabulary): string {
  const words: string[] = [];
  for (const id of ids) {
    if (id === EOS_ID) break;
    if (SKIPPED.has(id)) continue;
    words.push(vocab.idToWord(id));
  }
  return words.join(' ');
}

/** A caption for one image, as every writer here takes it. */
export interface CaptionPrediction {
  image_id: string | number;
  caption: string;
}

export interface CocoResult {
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
  for (const p of preds) {
    const key = String(p.image_id);
    if (seen.has(key)) throw new Error(`image ${key} has two captions`);
    seen.add(key);
  }
}

/** COCO results: one {image_id, caption} per image, integer-looking ids as numbers. */
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
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) throw new Error(`nocaps image ids are non-negative integers, got ${JSON.stringify(p.image_id)}`);
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

export function writeCocoResults(file: string, preds: readonly CaptionPrediction[]): void {
  writeJsonAtomic(file, toCocoResults(preds), { readable: true });
}

export function writeNocapsSubmission(file: string, preds: readonly CaptionPrediction[], options: NocapsOptions = {}): void {
  writeJsonAtomic(file, toNocapsSubmission(preds, options), { readable: true });
}
