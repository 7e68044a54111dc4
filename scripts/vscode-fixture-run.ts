/**
 * Writes test/fixtures/runs/sample/: a small run in the layout of src/runs/layout.ts for the VS Code
 * extension's tests and screenshots. Images and references come from the embedded world (tiny preset,
 * nocaps-val); the "predictions" are made-up captions of varying quality (a reference kept, shuffled,
 * truncated, or replaced by a generic one), scored for real with CIDEr-D and BLEU-4.
 *
 *   npx tsx scripts/vscode-fixture-run.ts
 */
import * as path from 'path';
import sharp from 'sharp';
import { evaluate, evaluateByDomain } from '../src/metrics/evaluate';
import { FIXTURES_DIR } from '../src/paths';
import { type PredictionsFile, type RunInfo, type ScoresFile } from '../src/runs/layout';
import { World } from '../src/world/world';
import { writeFileAtomic, writeJsonAtomic } from '../src/util/atomic';

const RUN = 'sample';
const SPLIT = 'nocaps-val';
const COUNT = 12;
const CREATED = '2026-12-01T12:00:00.000Z';

function prediction(refs: string[], i: number): string {
  const first = refs[0] ?? 'an image';
  const words = first.split(' ');
  switch (i % 4) {
    case 0:
      return refs[1] ?? first; // a close paraphrase: high CIDEr
    case 1:
      return words.slice(0, Math.max(3, Math.ceil(words.length * 0.6))).join(' '); // truncated
    case 2:
      return ['a picture of', ...words.slice(-3)].join(' '); // generic start, a few right words
    default:
      return 'a close up of a table with a plate of food'; // wrong: near zero
  }
}

/**
 * Scores a fixture run's predictions for real (CIDEr-D, BLEU-4, CIDEr by nocaps domain) and writes its run.json,
 * predictions and scores in the run layout; returns the scores file. Also used by test/fixtures/runs/make-sample-b.ts.
 */
export function writeScoredFixtureRun(runDir: string, run: { id: string; name: string; created: string }, items: PredictionsFile['items']): ScoresFile {
  const cases = items.map((it) => ({
    imageId: String(it.image_id),
    candidate: it.caption,
    references: it.references!,
    ...(it.domain ? { domain: it.domain } : {}),
  }));
  const ev = evaluate(cases, { metrics: ['CIDEr', 'BLEU'] });
  for (const it of items) it.scores = { CIDEr: ev.per_image.CIDEr![String(it.image_id)]!, 'BLEU-4': ev.per_image.Bleu_4![String(it.image_id)]! };
  const byDomain = evaluateByDomain(cases, { metrics: ['CIDEr'] });
  const info: RunInfo = {
    id: run.id,
    name: run.name,
    status: 'done',
    config: { fixture: true, world: { seed: 7 }, split: SPLIT },
    backend: 'none',
    created: run.created,
    updated: run.created,
  };
  const preds: PredictionsFile = { version: 1, run: run.id, split: SPLIT, decoder: 'fixture', created: run.created, items };
  const scores: ScoresFile = {
    version: 1,
    run: run.id,
    split: SPLIT,
    corpus: { CIDEr: ev.corpus.CIDEr!, 'BLEU-4': ev.corpus.Bleu_4! },
    domains: Object.fromEntries(Object.entries(byDomain).map(([d, e]) => [d === 'entire' ? 'overall' : d, { CIDEr: e.corpus.CIDEr! }])),
    created: run.created,
  };
  writeJsonAtomic(path.join(runDir, 'run.json'), info, { readable: true });
  writeJsonAtomic(path.join(runDir, 'predictions', `${SPLIT}.json`), preds, { readable: true });
  writeJsonAtomic(path.join(runDir, 'scores', `${SPLIT}.json`), scores, { readable: true });
  return scores;
}

async function main(): Promise<void> {
  const world = new World({ seed: 7 });
  const runDir = path.join(FIXTURES_DIR, 'runs', RUN);
  const items: PredictionsFile['items'] = [];
  for (let id = 0; id < COUNT; id++) {
    const img = world.captionedImage(SPLIT, id);
    const png = await world.render(SPLIT, id);
    const thumb = `thumbs/${id}.jpg`;
    writeFileAtomic(path.join(runDir, thumb), await sharp(png).resize({ width: 160 }).jpeg({ quality: 70 }).toBuffer());
    items.push({
      image_id: id,
      caption: prediction(img.references, id),
      references: img.references.slice(0, 5),
      ...(img.domain ? { domain: img.domain } : {}),
      thumb,
      url: img.url,
    });
  }
  const scores = writeScoredFixtureRun(runDir, { id: RUN, name: 'sample predictions (fixture)', created: CREATED }, items);
  console.log(`wrote ${runDir}: ${items.length} predictions, CIDEr ${scores.corpus.CIDEr!.toFixed(3)}`);
}

if (require.main === module) void main();
