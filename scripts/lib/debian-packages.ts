/**
 * The real images with human text that Debian ships, read one way for every script and test that uses them:
 * tuxpaint-stamps-default (a PNG with a `.txt` beside it whose first line that is not a `LANG.utf8=` translation
 * is a person's English description) and openclipart-svg (an SVG whose Dublin Core metadata holds the title,
 * description and keywords its author wrote).
 */
import * as fs from 'fs';
import * as path from 'path';

export const TUXPAINT_STAMPS = '/usr/share/tuxpaint/stamps';
export const OPENCLIPART_SVG = '/usr/share/openclipart/svg';

/** Every file under `dir` whose name ends with `ext`, sorted by path. */
export function filesUnder(dir: string, ext: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? filesUnder(full, ext) : entry.name.endsWith(ext) ? [full] : [];
    })
    .sort();
}

/** XML text as written: the five entities decoded, white space collapsed. */
export function decodeXmlText(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&(apos|#39);/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A tuxpaint stamp's English description (`stamp.png` → the first description line of `stamp.txt`), if it has one. */
export function tuxpaintDescription(png: string): string | undefined {
  const txt = png.replace(/\.png$/, '.txt');
  if (!fs.existsSync(txt)) return undefined;
  const line = fs
    .readFileSync(txt, 'utf8')
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .find((l) => l !== '' && !/^[A-Za-z_@]+\.utf8=/.test(l));
  return line === undefined || line === '' ? undefined : line;
}

/** An openclipart SVG's metadata: title, description and keywords ("unsorted" dropped). */
export function openclipartMetadata(svg: string): { title: string; description: string; keywords: string[] } {
  const title = decodeXmlText(/<dc:title>([^<]*)<\/dc:title>/.exec(svg)?.[1] ?? '');
  const description = decodeXmlText(/<dc:description>([^<]*)<\/dc:description>/.exec(svg)?.[1] ?? '');
  const subject = /<dc:subject>([\s\S]*?)<\/dc:subject>/.exec(svg)?.[1] ?? '';
  const keywords = [...subject.matchAll(/<rdf:li>([^<]*)<\/rdf:li>/g)].map((m) => decodeXmlText(m[1]!)).filter((k) => k !== '' && k !== 'unsorted');
  return { title, description, keywords };
}

/** The caption the pipelines get from an openclipart SVG: its description, else its title (tabs and newlines as spaces). */
export function openclipartCaption(meta: { title: string; description: string }): string {
  return (meta.description || meta.title).replace(/[\t\r\n]/g, ' ');
}
