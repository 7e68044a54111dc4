/**
 * The CC12M text stage as a worker-thread batch task (src/util/worker-pool.ts): the text filter
 * and the person-name substitution on a batch of captions. The vocabulary travels once per
 * worker as `token<TAB>count` text.
 */
import { replacePersons } from './persons';
import { PRESETS } from './presets';
import { TextFilter, Vocabulary } from './text';
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
