/**
 * CC3M §3 image–text filter (kept by CC12M §2.2): keep a pair when at least one caption token
 * matches one of the image's vision labels after morphological stemming. Both sides are split
 * into lower-case word tokens, function words are dropped, and every token is reduced with the
 * Porter2 (Snowball English) stemmer, so "durians" matches "durian" and "fishing" matches "fish".
 * A multi-word label ("still life photography") matches through any of its content words.
 */
import { Verdict, keep, reject } from './types';

const porter2: (word: string) => string = require('wink-porter2-stemmer');

/** Words too common to count as a match between a caption and a label. */
const FUNCTION_WORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'in',
  'on',
  'at',
  'by',
  'for',
  'with',
  'from',
  'to',
  'and',
  'or',
  'is',
  'are',
  'was',
  'be',
  'this',
  'that',
  'it',
  'its',
  'his',
  'her',
  'their',
  'as',
  'into',
  'over',
  'under',
  'near',
  'next',
  'there',
  'some',
]);

const WORD = /[\p{L}\p{N}]+/gu;

export function contentStems(text: string): string[] {
  const stems: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const word = match[0];
    if (FUNCTION_WORDS.has(word)) continue;
    stems.push(porter2(word));
  }
  return stems;
}

/** At most `max` items, then how many more. */
function listed(items: readonly string[], max = 20): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')}, … (${items.length - max} more)`;
}

/**
 * The stage: tags missing is its own reason, so real data without labels is visible in the funnel. A
 * rejection's detail names what was compared: the caption's stems and the tags (with their stems).
 */
export function checkImageText(caption: string, tags: readonly string[] | undefined): Verdict {
  if (!tags || tags.length === 0) return reject('image-text:no-tags', 'the pair has no vision labels (a tags file, truth.jsonl or the shard JSON tags)');
  const labelStems = new Set(tags.flatMap(contentStems));
  const captionStems = contentStems(caption);
  for (const stem of captionStems) if (labelStems.has(stem)) return keep(caption);
  return reject(
    'image-text:no-match',
    `no caption stem among the tags' stems (overlap 0): caption stems [${listed([...new Set(captionStems)])}]; tags [${listed([...tags])}] → stems [${listed([...labelStems])}]`,
  );
}
