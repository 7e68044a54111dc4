/** The papers' reported numbers (copied from the team's shared folder into notebooks/paper-numbers.json). */
import * as path from 'path';

import { PACKAGE_ROOT } from '../paths';
import { readJsonFile } from '../util/json';

export const PAPER_NUMBERS_FILE = path.join(PACKAGE_ROOT, 'notebooks', 'paper-numbers.json');

export interface PaperNumbers {
  cc12m: {
    table1_stats: Record<
      'cc3m' | 'cc12m',
      { pairs: number; token_type_ratio: number; caption_len_mean: number; caption_len_std: number; precision: number }
    > & {
      rare_word_counts_cc3m_to_cc12m: Record<string, [number, number]>;
    };
    table3_nocaps_val_overall_cider: { finetuned_on_coco: Record<string, number>; zero_shot: Record<string, number> };
    table11_masking: { ic: number; best_masked_lm_at_highest_rate: number };
    table12_objectives: Record<string, number>;
    figure6_subsample: string;
    [key: string]: unknown;
  };
  cc3m: Record<string, unknown>;
}

let cached: PaperNumbers | undefined;

export function paperNumbers(): PaperNumbers {
  cached ??= readJsonFile(PAPER_NUMBERS_FILE) as PaperNumbers;
  return cached;
}
