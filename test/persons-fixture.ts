/**
 * The labelled person-name fixtures (test/fixtures/persons-real.tsv, persons-web.tsv) and how the <PERSON> detector is
 * scored on them; shared by test/filters-persons.test.ts, test/filters-persons-web.test.ts and scripts/persons-score.ts.
 *
 * A fixture line is `source<TAB>text<TAB>persons[<TAB>places]`, persons (and places) being JSON lists of names in the
 * text, left to right, exactly as written. A name's span is its first occurrence on word boundaries after the
 * previous name of its list.
 *
 * Span level: a detected span counts when it is exactly a labelled span. Token level: a word (a run of letters, marks
 * and digits) is a person word when it overlaps a span, labelled or detected. Places untouched: the share of labelled
 * places no character of which is inside a detected span.
 */
import * as fs from 'fs';
import * as path from 'path';

import { findPersons } from '../src/filters/persons';

export interface Labelled {
  source: string;
  text: string;
  spans: Array<[number, number]>;
  /** Places, organisations and other named things that are not persons (persons-web.tsv's fourth column). */
  places: Array<[number, number]>;
}

export const FIXTURES = {
  real: path.join(__dirname, 'fixtures', 'persons-real.tsv'),
  web: path.join(__dirname, 'fixtures', 'persons-web.tsv'),
  /** Written by an annotator who never saw the detector, after the web cues were done; scored once, never tuned on. */
  blind: path.join(__dirname, 'fixtures', 'persons-web-blind.tsv'),
  /** The second such set, written while the second round of cues was developed on the first; scored once, never tuned on. */
  blind2: path.join(__dirname, 'fixtures', 'persons-web-blind2.tsv'),
  /** The third, written after the second round's fix; scored once, never tuned on. */
  blind3: path.join(__dirname, 'fixtures', 'persons-web-blind3.tsv'),
} as const;

const wordChar = /[\p{L}\p{N}]/u;

/** Where `names` are in `text`: each the first occurrence on word boundaries after the previous one. */
export function spansOf(text: string, names: readonly string[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let at = 0;
  for (const name of names) {
    let k = text.indexOf(name, at);
    while (k >= 0 && (wordChar.test(text.charAt(k - 1)) || wordChar.test(text.charAt(k + name.length)))) k = text.indexOf(name, k + 1);
    if (k < 0) throw new Error(`"${name}" is not a word sequence of "${text}"`);
    out.push([k, k + name.length]);
    at = k + name.length;
  }
  return out;
}

/** A fixture's lines (comments and blank lines skipped); `columns` is 3 (persons-real.tsv) or 4 (persons-web.tsv). */
export function readFixture(file: string, columns: 3 | 4): Labelled[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const cols = line.split('\t');
      if (cols.length !== columns) throw new Error(`${path.basename(file)}: ${columns} columns expected: ${line}`);
      const [source, text, persons, places] = cols as [string, string, string, string | undefined];
      return {
        source,
        text,
        spans: spansOf(text, JSON.parse(persons) as string[]),
        places: places === undefined ? [] : spansOf(text, JSON.parse(places) as string[]),
      };
    });
}

/** FNV-1a (32-bit) of the UTF-8 bytes, as scripts/persons-sample.ts computes it. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h;
}

/** The 30% of a fixture's lines held out from development. */
export const heldOut = (text: string): boolean => fnv1a(text) % 10 < 3;

export interface Scores {
  lines: number;
  spans: number;
  spanPrecision: number;
  spanRecall: number;
  tokenPrecision: number;
  tokenRecall: number;
  /** Labelled places, and the share of them that no detected span overlaps (1 when there are none). */
  places: number;
  placesUntouched: number;
  missed: string[];
  wrong: string[];
  /** Labelled places a detected span overlaps. */
  touched: string[];
}

const overlaps = (spans: ReadonlyArray<[number, number]>, a: number, b: number): boolean => spans.some(([c, d]) => a < d && c < b);

export function score(rows: readonly Labelled[]): Scores {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let ttp = 0;
  let tfp = 0;
  let tfn = 0;
  let untouched = 0;
  let places = 0;
  const missed: string[] = [];
  const wrong: string[] = [];
  const touched: string[] = [];
  for (const row of rows) {
    const truth = row.spans;
    const found = findPersons(row.text).map((p): [number, number] => [p.start, p.end]);
    const key = ([a, b]: [number, number]): string => `${a}:${b}`;
    const truthKeys = new Set(truth.map(key));
    const foundKeys = new Set(found.map(key));
    const where = `(in "${row.text.slice(0, 80)}")`;
    for (const s of found) {
      if (truthKeys.has(key(s))) tp++;
      else {
        fp++;
        wrong.push(`${row.text.slice(s[0], s[1])} ${where}`);
      }
    }
    for (const s of truth) {
      if (foundKeys.has(key(s))) continue;
      fn++;
      missed.push(`${row.text.slice(s[0], s[1])} ${where}`);
    }
    for (const m of row.text.matchAll(/[\p{L}\p{M}\p{N}]+/gu)) {
      const a = m.index!;
      const b = a + m[0].length;
      const inTruth = overlaps(truth, a, b);
      const inFound = overlaps(found, a, b);
      if (inTruth && inFound) ttp++;
      else if (inFound) tfp++;
      else if (inTruth) tfn++;
    }
    for (const [a, b] of row.places) {
      places++;
      if (overlaps(found, a, b)) touched.push(`${row.text.slice(a, b)} ${where}`);
      else untouched++;
    }
  }
  return {
    lines: rows.length,
    spans: tp + fn,
    spanPrecision: tp + fp === 0 ? 1 : tp / (tp + fp),
    spanRecall: tp + fn === 0 ? 1 : tp / (tp + fn),
    tokenPrecision: ttp + tfp === 0 ? 1 : ttp / (ttp + tfp),
    tokenRecall: ttp + tfn === 0 ? 1 : ttp / (ttp + tfn),
    places,
    placesUntouched: places === 0 ? 1 : untouched / places,
    missed,
    wrong,
    touched,
  };
}

/** One line of numbers: "N lines, M names: span P … R …; token P … R …; places untouched …". */
export function formatScores(s: Scores): string {
  const f = (x: number): string => x.toFixed(3);
  const places = s.places > 0 ? `; places untouched ${f(s.placesUntouched)} of ${s.places}` : '';
  return `${s.lines} lines, ${s.spans} names: span P ${f(s.spanPrecision)} R ${f(s.spanRecall)}; token P ${f(s.tokenPrecision)} R ${f(s.tokenRecall)}${places}`;
}
