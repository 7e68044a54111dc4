/**
 * Shared shapes of the caption metrics. Every metric module exports
 * `score(references, candidates)` (the pycocoevalcap shape) over text that is
 * already tokenised: tokens joined by single spaces.
 */

/** Image id → reference captions (tokenised, space-joined). */
export type References = Record<string, string[]>;

/** Image id → the one candidate caption (tokenised, space-joined). */
export type Candidates = Record<string, string>;

/** One metric's corpus-level value and its value per image. */
export interface MetricScore {
  corpus: number;
  perImage: Record<string, number>;
}

/** A metric module's result: one entry per reported name (BLEU reports four). */
export type MetricScores = Record<string, MetricScore>;

/** Image ids of a scoring call, checked to be the same on both sides. */
export function imageIdsOf(references: References, candidates: Candidates): string[] {
  const ids = Object.keys(candidates);
  for (const id of ids) {
    if (!(id in references)) throw new Error(`image ${id}: candidate has no references`);
  }
  for (const id of Object.keys(references)) {
    if (!(id in candidates)) throw new Error(`image ${id}: references have no candidate`);
  }
  return ids;
}

/** Splits tokenised text the way coco-caption's scorers do (whitespace for BLEU/CIDEr). */
export function splitTokens(text: string): string[] {
  const trimmed = text.trim();
  return trimmed === '' ? [] : trimmed.split(/\s+/);
}
