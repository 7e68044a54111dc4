/**
 * English Wikipedia's word types, as the npm package `popular-english-words` (1.0.2, ISC) ships them: 225,555
 * lower-case words ranked by their count in the English Wikipedia of early 2021 (all ~20 million pages, ~80 GB of
 * text). Its README states how the list was made: a word is a maximal run of the letters a–z (case-folded; no
 * apostrophes, hyphens or accented letters), and a word with fewer than 100 occurrences in all of those pages was
 * left out. So a listed word occurs ≥ 100 times in English Wikipedia; an unlisted one may still occur up to 99 times.
 * The list holds ranks only, no counts.
 *
 * It was evidently counted over the pages' wikitext: the names of HTML entities and table markup are on it ("nbsp"
 * is 50th, "quot", "cellpadding", "wikitable"). Those never appear as words in an article's text, and caption text
 * with an escaping mistake ("the &quot;required&quot; bubbles") must not pass on them. `WIKITEXT_MARKUP` names
 * the ones on the list that are not also English words ("amp", "times", "span" are words: they stay).
 *
 * The package is an ES module with the list as one array literal in `words.js`; it is read as text (not imported)
 * so that the synchronous rare-word lookup works on every Node version this project supports.
 */
import * as fs from 'fs';

/** The list's inclusion floor, as its README gives it: words seen fewer than 100 times were left out. */
export const WIKIPEDIA_LIST_MIN_COUNT = 100;

/** The package version this reading was checked against (its format and size). */
export const WIKIPEDIA_LIST_PACKAGE = 'popular-english-words 1.0.2';

/** The words of `words.js`, in rank order (most frequent first); throws when the file is not the expected array. */
export function parseWikipediaWordList(source: string): string[] {
  const open = source.indexOf('[');
  const close = source.lastIndexOf(']');
  if (open < 0 || close < open) throw new Error('popular-english-words: words.js has no array literal');
  const body = source.slice(open + 1, close);
  const words: string[] = [];
  for (const item of body.split(',')) {
    const quoted = /^\s*'([a-z]+)'\s*$/.exec(item);
    if (quoted === null) throw new Error(`popular-english-words: unexpected entry ${JSON.stringify(item.slice(0, 40))} in words.js`);
    words.push(quoted[1]!);
  }
  return words;
}

/** Markup names on the list that are no English word (HTML entities, wikitext table attributes): left out. */
export const WIKITEXT_MARKUP: ReadonlySet<string> = new Set(
  `nbsp thinsp zwj quot apos rsquo ldquo rdquo laquo raquo hellip mdash middot eacute
  nowiki reflist wikitable colspan rowspan cellpadding`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

let listed: Set<string> | undefined;

/**
 * The listed words less WIKITEXT_MARKUP (loaded once per process): each occurs ≥ WIKIPEDIA_LIST_MIN_COUNT
 * times in English Wikipedia.
 */
export function wikipediaWords(): ReadonlySet<string> {
  if (listed === undefined) {
    const file = require.resolve('popular-english-words/words.js');
    listed = new Set(parseWikipediaWordList(fs.readFileSync(file, 'utf8')).filter((word) => !WIKITEXT_MARKUP.has(word)));
  }
  return listed;
}
