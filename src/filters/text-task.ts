/**
 * The CC12M text stage as a worker-thread batch task (src/util/worker-pool.ts): the text filter
 * and the person-name substitution on a batch of captions. The vocabulary travels once per
 * worker as `token<TAB>count` text.
 */
import { checkImageText } from './image-text';
import { replacePersons } from './persons';
import { PRESETS } from './presets';
import { TextFilter, TextFilterOptions, Vocabulary } from './text';
import { Verdict, keep } from './types';

export interface TextTaskOptions {
  preset: 'cc3m' | 'cc12m';
  vocabulary?: string;
  /** Replace person names by <PERSON> on kept captions (CC12M §2.2). */
  persons: boolean;
}

export function textTask(options: TextTaskOptions): (captions: string[]) => Verdict[] {
  const filter = new TextFilter(PRESETS[options.preset].text, options.vocabulary === undefined ? undefined : Vocabulary.fromFrequencyText(options.vocabulary));
  return (captions) =>
    captions.map((caption) => {
      const verdict = filter.check(caption);
      return verdict.keep && options.persons ? keep(replacePersons(verdict.caption)) : verdict;
    });
}

/** What the pooled stages decided for one pair: the index of the stage that rejected it (−1: none). */
export interface PooledResult {
  rejectedAt: number;
  reason?: string;
  caption: string;
}

export interface PairTaskOptions {
  /** Text filter options (already with the scaled rare-word threshold). */
  text: TextFilterOptions | null;
  vocabulary?: string;
  imageText: boolean;
}

/** The cheap per-pair stages that need no image (text, image–text), as a worker batch task. */
export function pairTask(options: PairTaskOptions): (pairs: { caption: string; tags?: string[] }[]) => PooledResult[] {
  const vocabulary = options.vocabulary === undefined ? undefined : Vocabulary.fromFrequencyText(options.vocabulary);
  const text = options.text ? new TextFilter(options.text, vocabulary) : undefined;
  return (pairs) =>
    pairs.map(({ caption, tags }) => {
      let stage = 0;
      if (text) {
        const verdict = text.check(caption);
        if (!verdict.keep) return { rejectedAt: stage, reason: verdict.reason, caption };
        caption = verdict.caption;
        stage++;
      }
      if (options.imageText) {
        const verdict = checkImageText(caption, tags);
        if (!verdict.keep) return { rejectedAt: stage, reason: verdict.reason, caption };
      }
      return { rejectedAt: -1, caption };
    });
}
