/**
 * The pipeline's cheap per-pair stages (text filter, image–text overlap) as a worker-thread batch
 * task (src/util/worker-pool.ts), as src/filters/presets.ts buildStages runs them with `workers`.
 * The word counts travel once per worker as `token<TAB>count` text (a reference vocabulary as its spec).
 */
import { checkImageText } from './image-text';
import { TextFilter, TextFilterOptions, WordCounts, WordFrequencies } from './text';
import { ReferenceVocabulary, ReferenceVocabularySpec } from './reference-vocabulary';

/** What the pooled stages decided for one pair: the index of the stage that rejected it (−1: none). */
export interface PooledResult {
  rejectedAt: number;
  reason?: string;
  /** What the rejecting check measured (see Verdict). */
  detail?: string;
  caption: string;
}

export interface PairTaskOptions {
  /** Text filter options (already with the scaled rare-word threshold). */
  text: TextFilterOptions | null;
  /** The input's word counts as `token<TAB>count` text … */
  vocabulary?: string;
  /** … or the reference vocabulary's spec (each worker loads its own). */
  referenceVocabulary?: ReferenceVocabularySpec;
  imageText: boolean;
}

/** The cheap per-pair stages that need no image (text, image–text), as a worker batch task. */
export function pairTask(options: PairTaskOptions): (pairs: { caption: string; tags?: string[] }[]) => PooledResult[] {
  const vocabulary: WordFrequencies | undefined = options.referenceVocabulary
    ? new ReferenceVocabulary(options.referenceVocabulary)
    : options.vocabulary === undefined
      ? undefined
      : WordCounts.fromFrequencyText(options.vocabulary);
  const text = options.text ? new TextFilter(options.text, vocabulary) : undefined;
  return (pairs) =>
    pairs.map(({ caption, tags }) => {
      let stage = 0;
      if (text) {
        const verdict = text.check(caption);
        if (!verdict.keep) return { rejectedAt: stage, reason: verdict.reason, detail: verdict.detail, caption };
        caption = verdict.caption;
        stage++;
      }
      if (options.imageText) {
        const verdict = checkImageText(caption, tags);
        if (!verdict.keep) return { rejectedAt: stage, reason: verdict.reason, detail: verdict.detail, caption };
      }
      return { rejectedAt: -1, caption };
    });
}
