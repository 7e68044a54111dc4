/**
 * The one scaling rule for the papers' count thresholds: a threshold stated for the paper's corpus
 * (`atPairs` pairs) applied to a corpus of `pairs` pairs is max(floor, round(threshold × pairs /
 * atPairs)). Each rule states its floor where its preset is defined (src/filters/presets.ts): the
 * rare-word rule never goes below 2 (a word seen once stays rare), the concept pruning below 1.
 */
export function scaledThreshold(threshold: number, pairs: number, atPairs: number, floor: number): number {
  return Math.max(floor, Math.round((threshold * pairs) / atPairs));
}
