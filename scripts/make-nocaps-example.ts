/**
 * Writes test/fixtures/nocaps-example/: the golden scoring cases re-cast in nocaps's file
 * formats (COCO-style annotations with images[].domain, and COCO results), as raw text
 * (first letter capitalised, final period) so that the PTB tokenizer has work to do.
 * Domains are assigned by image index in roughly nocaps val's proportions
 * (648 / 2938 / 914 of 4500 ≈ 15% / 65% / 20%). Run: node --import tsx scripts/make-nocaps-example.ts
 */
import * as fs from 'fs';
import * as path from 'path';
import { FIXTURES_DIR } from '../src/paths';
import { loadScoringFile } from '../src/metrics/inputs';

const asRawText = (caption: string) => (caption === '' ? '' : caption[0].toUpperCase() + caption.slice(1) + '.');
const domainOf = (index: number) => (index % 20 < 3 ? 'in-domain' : index % 20 < 16 ? 'near-domain' : 'out-domain');

const cases = loadScoringFile(path.join(FIXTURES_DIR, 'caption-metrics-public.json'));
const outDir = path.join(FIXTURES_DIR, 'nocaps-example');
fs.mkdirSync(outDir, { recursive: true });
const annotations = {
  info: { description: 'cckit example in nocaps format, derived from caption-metrics-public.json' },
  images: cases.map((c, i) => ({ id: i, file_name: `${c.imageId}.jpg`, domain: domainOf(i) })),
  annotations: cases.flatMap((c, i) => c.references.map((ref) => ({ image_id: i, caption: asRawText(ref) }))).map((a, id) => ({ id, ...a })),
};
const results = cases.map((c, i) => ({ image_id: i, caption: asRawText(c.candidate) }));
fs.writeFileSync(path.join(outDir, 'annotations.json'), JSON.stringify(annotations, null, 1) + '\n');
fs.writeFileSync(path.join(outDir, 'results.json'), JSON.stringify(results, null, 1) + '\n');
console.log(`wrote ${cases.length} images to ${outDir}`);
