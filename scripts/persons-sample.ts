/**
 * Draws the sample behind test/fixtures/persons-real.tsv: real human-written captions from two Debian
 * packages, for measuring the `<PERSON>` detector (src/filters/persons.ts) on text nobody wrote for cckit.
 *
 *  - `tuxpaint-stamps-default`: each stamp's description, the first line of its .txt that is not a
 *    translation (`xx.utf8=…`);
 *  - `openclipart-svg`: each SVG's work title and description (dc:title / dc:description outside the
 *    cc:Agent blocks, which name the creator, publisher and rights holder).
 *
 * Lines are de-duplicated by text. Every line with a capitalised multi-word sequence (two capitalised
 * words side by side: the hard cases) is taken, one per series ("Naval Semaphore Flag h", "… Flag o" are
 * one series: digits, single letters and parentheses ignored); then REST lines without one, the REST
 * smallest FNV-1a hashes of their text (a fixed pseudo-random choice).
 *
 *   apt-get install tuxpaint-stamps-default openclipart-svg
 *   node --import tsx scripts/persons-sample.ts [REST] > draft.tsv
 *
 * The draft is `source<TAB>text<TAB>?`; the third column is filled by hand with the JSON list of the
 * person names in the text (see the fixture's header for the annotation guide). With `--merge FIXTURE`
 * rows already labelled there keep their labels.
 */
import * as fs from 'fs';
import * as path from 'path';
import { decodeXmlText, filesUnder, OPENCLIPART_SVG, TUXPAINT_STAMPS } from './lib/debian-packages';

const TUXPAINT = TUXPAINT_STAMPS;
const OPENCLIPART = OPENCLIPART_SVG;
const files = filesUnder;
const decode = decodeXmlText;

interface Line {
  source: string;
  text: string;
}

function tuxpaintLines(): Line[] {
  const out: Line[] = [];
  for (const file of files(TUXPAINT, '.txt')) {
    const line = fs
      .readFileSync(file, 'utf8')
      .split(/\r?\n/)
      .find((l) => l.trim() !== '' && !/^[\w@]+\.utf8=/.test(l));
    if (line !== undefined) out.push({ source: `tuxpaint:${path.relative(TUXPAINT, file)}`, text: decode(line) });
  }
  return out;
}

function openclipartLines(): Line[] {
  const out: Line[] = [];
  for (const file of files(OPENCLIPART, '.svg')) {
    const svg = fs.readFileSync(file, 'utf8').replace(/<cc:Agent>[\s\S]*?<\/cc:Agent>/g, '');
    const rel = path.relative(OPENCLIPART, file);
    for (const field of ['title', 'description']) {
      const m = new RegExp(`<dc:${field}>([^<]*)</dc:${field}>`).exec(svg);
      const text = decode(m?.[1] ?? '');
      if (text !== '') out.push({ source: `openclipart:${rel}#${field}`, text });
    }
  }
  return out;
}

/** FNV-1a (32-bit) of the UTF-8 bytes. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h;
}

const HARD = /(?:^|[^\p{L}])\p{Lu}[\p{L}'’.-]*\s+\p{Lu}[\p{L}'’.-]*/u;

const seriesKey = (text: string): string =>
  text
    .replace(/\d+/g, '0')
    .replace(/\([^)]*\)/g, '()')
    .replace(/\b\p{L}\b/gu, 'x')
    .replace(/[.\s]+$/, '')
    .toLowerCase();

function main(): void {
  const args = process.argv.slice(2);
  const mergeAt = args.indexOf('--merge');
  const labels = new Map<string, string>();
  if (mergeAt >= 0) {
    for (const row of fs.readFileSync(args[mergeAt + 1]!, 'utf8').split('\n')) {
      const cols = row.split('\t');
      if (!row.startsWith('#') && cols.length === 3) labels.set(cols[1]!, cols[2]!);
    }
    args.splice(mergeAt, 2);
  }
  const rest = Number(args[0] ?? 250);
  for (const dir of [TUXPAINT, OPENCLIPART])
    if (!fs.existsSync(dir)) throw new Error(`${dir} not found: apt-get install tuxpaint-stamps-default openclipart-svg`);
  const seen = new Set<string>();
  const lines = [...tuxpaintLines(), ...openclipartLines()].filter((l) => !seen.has(l.text) && seen.add(l.text));
  const series = new Set<string>();
  const hard = lines.filter((l) => HARD.test(l.text)).filter((l) => !series.has(seriesKey(l.text)) && series.add(seriesKey(l.text)));
  const others = lines
    .filter((l) => !HARD.test(l.text))
    .sort((a, b) => fnv1a(a.text) - fnv1a(b.text) || (a.text < b.text ? -1 : 1))
    .slice(0, rest);
  const chosen = [...hard, ...others].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  process.stderr.write(`${lines.length} distinct lines; ${hard.length} hard (one per series), ${others.length} others\n`);
  for (const l of chosen) process.stdout.write(`${l.source}\t${l.text}\t${labels.get(l.text) ?? '?'}\n`);
}

if (require.main === module) main();
