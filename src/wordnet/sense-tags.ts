/**
 * SemCor tag counts from the dict's index.sense (noun senses only): how often each noun synset,
 * and each noun lemma over all its senses, was tagged in the semantic concordance. Used as a
 * frequency signal ("common" vs. "rare" nouns) by the world's concept catalog (src/world) and by
 * the CC3M hypernymiser (src/filters). Loaded once, on first query.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { wordnetDictPath } from './index';

interface SenseTags {
  /** SemCor tag count per noun synset id. */
  bySynset: Map<string, number>;
  /** SemCor tag count per noun lemma (all senses). */
  byLemma: Map<string, number>;
}

let senseTags: SenseTags | null = null;

function tags(): SenseTags {
  if (senseTags !== null) return senseTags;
  const bySynset = new Map<string, number>();
  const byLemma = new Map<string, number>();
  const file = path.join(wordnetDictPath(), 'index.sense');
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'latin1') : '';
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const pct = text.indexOf('%', start);
    // sense_key = lemma%ss_type:lex_filenum:lex_id:head_word:head_id; ss_type 1 = noun
    if (pct > start && pct < end && text.charCodeAt(pct + 1) === 49 /* '1' */) {
      const fields = text.slice(start, end).split(' ');
      const count = Number(fields[3]);
      if (count > 0) {
        const id = 'n' + fields[1];
        bySynset.set(id, (bySynset.get(id) ?? 0) + count);
        const lemma = text.slice(start, pct);
        byLemma.set(lemma, (byLemma.get(lemma) ?? 0) + count);
      }
    }
    start = end + 1;
  }
  senseTags = { bySynset, byLemma };
  return senseTags;
}

/** SemCor tag count of a noun synset (0 when untagged). */
export function synsetTagCount(id: string): number {
  return tags().bySynset.get(id) ?? 0;
}

/** SemCor tag count of a noun lemma over all its senses (underscores for spaces; 0 when untagged). */
export function lemmaTagCount(lemma: string): number {
  return tags().byLemma.get(lemma) ?? 0;
}
