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
import { filesUnder, OPENCLIPART_SVG, openclipartCaption, openclipartMetadata } from './lib/debian-packages';

const ROOT = OPENCLIPART_SVG;

async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error('usage: openclipart-tsv.ts OUT_DIR [LIMIT]');
  if (!fs.existsSync(ROOT)) throw new Error(`${ROOT} not found: apt-get install openclipart-svg`);
  const limit = Number(process.argv[3] ?? Infinity);
  const files = filesUnder(ROOT, '.svg').slice(0, limit);
  fs.mkdirSync(path.join(out, 'images'), { recursive: true });
  const tsv: string[] = [];
  const truth: string[] = [];
  let failed = 0;
  for (let i = 0; i < files.length; i += 4) {
    await Promise.all(
      files.slice(i, i + 4).map(async (file, k) => {
        const svg = fs.readFileSync(file, 'utf8');
        const meta = openclipartMetadata(svg);
        const { title, keywords } = meta;
        const caption = openclipartCaption(meta);
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
