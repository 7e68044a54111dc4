/**
 * A real-data example for the filtering pipelines: Debian's `openclipart-svg` package (8,121 clip-art
 * SVGs whose titles, descriptions and keywords people wrote). Writes a CC3M-style TSV
 * (`caption<TAB>path`) with the description (or the title when there is none) as the alt-text, the
 * images rendered to JPEG (long side 800 px, white background; external references stripped so
 * nothing is fetched), and `truth.jsonl` with the keywords standing in for vision labels.
 *
 *   apt-get install openclipart-svg
 *   node --import tsx scripts/openclipart-tsv.ts OUT_DIR [LIMIT]
 *   npx cckit filter --preset cc3m --layout caption-url --in OUT_DIR/openclipart.tsv --out OUT_DIR/cc3m
 */
import * as fs from 'fs';
import * as path from 'path';
import sharp from 'sharp';

const ROOT = '/usr/share/openclipart/svg';

function svgFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? svgFiles(full) : entry.name.endsWith('.svg') ? [full] : [];
    })
    .sort();
}

const decode = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

function metadata(svg: string): { title: string; description: string; keywords: string[] } {
  const title = decode(/<dc:title>([^<]*)<\/dc:title>/.exec(svg)?.[1] ?? '');
  const description = decode(/<dc:description>([^<]*)<\/dc:description>/.exec(svg)?.[1] ?? '');
  const subject = /<dc:subject>([\s\S]*?)<\/dc:subject>/.exec(svg)?.[1] ?? '';
  const keywords = [...subject.matchAll(/<rdf:li>([^<]*)<\/rdf:li>/g)].map((m) => decode(m[1])).filter((k) => k !== '' && k !== 'unsorted');
  return { title, description, keywords };
}

async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error('usage: openclipart-tsv.ts OUT_DIR [LIMIT]');
  if (!fs.existsSync(ROOT)) throw new Error(`${ROOT} not found: apt-get install openclipart-svg`);
  const limit = Number(process.argv[3] ?? Infinity);
  const files = svgFiles(ROOT).slice(0, limit);
  fs.mkdirSync(path.join(out, 'images'), { recursive: true });
  const tsv: string[] = [];
  const truth: string[] = [];
  let failed = 0;
  for (let i = 0; i < files.length; i += 4) {
    await Promise.all(
      files.slice(i, i + 4).map(async (file, k) => {
        const svg = fs.readFileSync(file, 'utf8');
        const { title, description, keywords } = metadata(svg);
        const caption = (description || title).replace(/[\t\r\n]/g, ' ');
        if (caption === '') return void failed++;
        const image = path.join(out, 'images', `${String(i + k).padStart(5, '0')}.jpg`);
        const safe = svg.replace(/(xlink:)?href\s*=\s*"(?!#|data:)[^"]*"/g, '');
        try {
          await sharp(Buffer.from(safe), { limitInputPixels: 50_000_000 })
            .resize(800, 800, { fit: 'inside' })
            .flatten({ background: '#ffffff' })
            .jpeg({ quality: 85 })
            .toFile(image);
        } catch {
          failed++;
          return;
        }
        tsv[i + k] = `${caption}\t${image}`;
        truth[i + k] = JSON.stringify({ url: image, tags: [...keywords, ...path.relative(ROOT, path.dirname(file)).split(path.sep)], title });
      }),
    );
    if (i % 400 === 0) process.stderr.write(`${i}/${files.length}\n`);
  }
  fs.writeFileSync(path.join(out, 'openclipart.tsv'), tsv.filter(Boolean).join('\n') + '\n');
  fs.writeFileSync(path.join(out, 'truth.jsonl'), truth.filter(Boolean).join('\n') + '\n');
  console.log(`${files.length} SVGs: ${tsv.filter(Boolean).length} pairs written, ${failed} without text or unrenderable`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
