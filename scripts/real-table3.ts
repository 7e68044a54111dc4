/**
 * Helpers of scripts/real-table3.sh (a small CC12M Table 3 on real data): the run configs, derived from the
 * repository's own configs, and the report.
 *
 *   node --import tsx scripts/real-table3.ts config scratch|pretrain|finetune FILE [--name N] [--pool TSV [--layout L]] [--from RUN]
 *   node --import tsx scripts/real-table3.ts report OUT
 *
 * Configs (paths relative to OUT, where the script runs `cckit train`):
 *  - scratch:  configs/tuxpaint-mobilenet-tiny.json as it is (the walk-through's captioner, docs/real-data.md), or, with
 *              --name, the fine-tuning recipe below from a random start (same steps and rates as the fine-tuned rows);
 *  - pretrain: configs/pretrain-cc12m-tiny.json (the tiny Table 3 pre-training stage: 1,500 steps, Adam 1e-3, warm-up
 *              100, batch 32) on a filtered pool (--pool);
 *  - finetune: configs/finetune-coco-tiny.json (the tiny Table 3 fine-tuning stage: 250 steps, Adam 5e-4, warm-up 10,
 *              the pre-training vocabulary kept and extended) from a pre-training run (--from), on the tuxpaint train split.
 * Every one takes the tuxpaint config's visual features (NSFWJS MobileNetV2, global vector, no tags: real images have
 * no world-CNN labels) and validates on split/val.json (logged only; the last checkpoint is the one tested).
 */
import * as fs from 'fs';
import * as path from 'path';

import { fastTokenize } from '../src/text/fast-tokenizer';

const ROOT = path.join(__dirname, '..');
const readConfig = (name: string): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(ROOT, 'configs', name), 'utf8')) as Record<string, unknown>;

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

function config(kind: string, file: string, args: string[]): void {
  const tuxpaint = readConfig('tuxpaint-mobilenet-tiny.json');
  const features = tuxpaint.features;
  const val = { path: 'split/val.json' };
  const train = [{ kind: 'coco', path: 'split/train.json' }];
  let out: Record<string, unknown>;
  if (kind === 'scratch' && option(args, '--name') === undefined) out = tuxpaint;
  else if (kind === 'scratch' || kind === 'finetune') {
    const finetune = readConfig('finetune-coco-tiny.json');
    const from = option(args, '--from');
    if (kind === 'finetune' && !from) throw new Error('finetune: --from RUN');
    const { init: _init, ...rest } = finetune;
    out = {
      ...rest,
      name: option(args, '--name') ?? finetune.name,
      features,
      data: { ...(finetune.data as object), train },
      val: { ...(finetune.val as object), ...val, limit: undefined },
      ...(kind === 'finetune' ? { init: { fromRun: from, vocab: 'keep' } } : {}),
    };
  } else if (kind === 'pretrain') {
    const pretrain = readConfig('pretrain-cc12m-tiny.json');
    const pool = option(args, '--pool');
    if (!pool) throw new Error('pretrain: --pool TSV');
    out = {
      ...pretrain,
      name: option(args, '--name') ?? pretrain.name,
      features,
      // the pipelines keep the input's column order: openclipart's TSV is CC3M's (caption, then the image's path)
      data: { ...(pretrain.data as object), train: [{ kind: 'tsv', path: pool, layout: option(args, '--layout') ?? 'caption-url' }] },
      val: { ...(pretrain.val as object), ...val, limit: undefined },
    };
  } else throw new Error(`config: scratch, pretrain or finetune, not ${kind}`);
  fs.writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
}

interface Row {
  label: string;
  /** Pre-training pool folder (a `cckit filter` output), if any. */
  pool?: string;
  run: string;
  preds: string;
  scores: string;
}

const lines = (file: string): string[] => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
const json = <T>(file: string): T => JSON.parse(fs.readFileSync(file, 'utf8')) as T;

/** The rows the script wrote (OUT/rows.tsv: label, pool folder or -, run, predictions, scores). */
function readRows(out: string): Row[] {
  return lines(path.join(out, 'rows.tsv')).map((line) => {
    const [label, pool, run, preds, scores] = line.split('\t') as [string, string, string, string, string];
    return { label, ...(pool !== '-' ? { pool } : {}), run, preds, scores };
  });
}

function trainedSteps(run: string): { steps: number; parent?: string } {
  const record = json<{ config: { steps: number; init?: { fromRun: string } } }>(path.join(run, 'run.json'));
  return { steps: record.config.steps, ...(record.config.init ? { parent: record.config.init.fromRun } : {}) };
}

function pad(cells: string[][]): string {
  const widths = cells[0]!.map((_, c) => Math.max(...cells.map((row) => row[c]!.length)));
  return cells
    .map((row) =>
      row
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function report(out: string): void {
  const rows = readRows(path.join(out));
  const test = json<{ images: { id: number }[]; annotations: { image_id: number; caption: string }[] }>(path.join(out, 'split', 'test.json'));
  const human = new Map(test.annotations.map((a) => [a.image_id, a.caption]));
  // the test descriptions' tokens (the filters' PTB-like tokenizer) that a run's vocabulary holds: what it could say
  const testTokens = test.annotations.flatMap((a) => fastTokenize(a.caption));
  const table: string[][] = [
    [
      'pre-training',
      'pool pairs',
      'pre-train steps',
      'tuxpaint steps',
      'CIDEr',
      'BLEU-4',
      'METEOR',
      'test captions with <unk>',
      'distinct captions',
      'vocabulary',
      'test tokens in it',
    ],
  ];
  const captions: Map<number, string>[] = [];
  for (const row of rows) {
    const scores = json<{ corpus: Record<string, number> }>(path.join(out, row.scores)).corpus;
    const preds = json<{ image_id: number; caption: string }[]>(path.join(out, row.preds));
    const { steps, parent } = trainedSteps(path.join(out, row.run));
    // run.json records the parent as the config named it (runs/ID, relative to OUT)
    const pretrainSteps = parent ? trainedSteps(path.join(out, 'runs', path.basename(parent))).steps : 0;
    const unk = preds.filter((p) => p.caption.includes('<unk>')).length;
    const vocabulary = new Set(json<{ words: string[] }>(path.join(out, row.run, 'vocab.json')).words);
    const pool = row.pool ? lines(path.join(out, row.pool, 'kept.tsv')).length : undefined;
    table.push([
      row.label,
      pool === undefined ? '—' : String(pool),
      pretrainSteps ? String(pretrainSteps) : '—',
      String(steps),
      (100 * scores.CIDEr!).toFixed(1),
      (100 * scores.Bleu_4!).toFixed(1),
      (100 * scores.METEOR!).toFixed(1),
      `${unk} of ${preds.length} (${((100 * unk) / preds.length).toFixed(0)}%)`,
      String(new Set(preds.map((p) => p.caption)).size),
      String(vocabulary.size),
      `${((100 * testTokens.filter((t) => vocabulary.has(t)).length) / testTokens.length).toFixed(0)}%`,
    ]);
    captions.push(new Map(preds.map((p) => [p.image_id, p.caption])));
  }
  console.log(
    `Table 3 on real data: tuxpaint test split, ${test.images.length} images, one human description each (scores ×100; beam 5, α 0.6; last checkpoint)`,
  );
  console.log(pad(table));

  // pool audit: how much of each pool is its most repeated caption (docs/real-data.md discusses it)
  for (const row of rows.filter((r) => r.pool)) {
    const audit = path.join(out, row.pool!, 'audit.json');
    if (!fs.existsSync(audit)) continue;
    const { kept, distinctCaptions, repeated } = json<{ kept: number; distinctCaptions: number | null; repeated: { caption: string; count: number }[] }>(audit);
    const first = repeated[0];
    console.log(
      `${row.label} pool: ${kept} pairs, ${distinctCaptions ?? 'many'} distinct captions` +
        (first
          ? `; most repeated ${JSON.stringify(first.caption.length > 80 ? `${first.caption.slice(0, 79)}…` : first.caption)} × ${first.count} (${((100 * first.count) / kept).toFixed(0)}%)`
          : ''),
    );
  }

  // caption grid: every eighth test image, by its file in the Debian package (the URL's name: folders joined by '-')
  const sources = new Map(
    lines(path.join(out, 'split', 'images.jsonl'))
      .map((l) => JSON.parse(l) as { id: number; url: string })
      .map((s) => [s.id, s.url]),
  );
  const grid: string[][] = [['image (tuxpaint-stamps-default)', 'human', ...rows.map((r) => r.label)]];
  test.images
    .filter((_, i) => i % 8 === 0)
    .forEach((image) => {
      const name = (sources.get(image.id) ?? String(image.id)).replace(/^.*\//, '');
      grid.push([name, human.get(image.id) ?? '', ...captions.map((c) => c.get(image.id) ?? '')]);
    });
  console.log('\nCaptions of every eighth test image:');
  console.log(pad(grid));
}

function main(): void {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'config' && args[0] && args[1]) config(args[0], args[1], args.slice(2));
  else if (command === 'report' && args[0]) report(args[0]);
  else throw new Error('usage: real-table3.ts config scratch|pretrain|finetune FILE [--name N] [--pool TSV] [--from RUN] | report OUT');
}

main();
