/** `cckit split`: a COCO-format train / val / test split of any kept set (src/data/split.ts). */
import * as fs from 'fs';
import * as path from 'path';
import { Command } from 'commander';
import { DEFAULT_COCO_SPLIT_FRACTIONS, describeSplit, SPLIT_KEYS, writeSplit, type SplitKey } from '../data/split';
import type { TsvLayout } from '../data/tsv';
import { quoteInput } from '../util/untrusted-text';
import { maxMemberBytesOption, parseChoice, parseMaxMemberBytes } from './options';

export interface SplitFlags {
  in: string;
  out: string;
  shards?: string;
  val: string;
  test: string;
  by: string;
  layout: string;
  maxMemberBytes?: string;
  json: boolean;
  allowLocalFiles?: boolean;
}

/** Rejections named on stderr; all of them are in OUT/rejects.jsonl. */
const REJECTS_SHOWN = 5;

/** A share in [0, 1) written as a plain decimal. */
function parseShare(flag: string, value: string): number {
  const n = /^(0(\.\d+)?|\.\d+)$/.test(value.trim()) ? Number(value) : NaN;
  if (!(n >= 0 && n < 1)) throw new Error(`${flag}: "${value}" is not a share in [0, 1) (e.g. 0.1)`);
  return n;
}

export async function runSplit(flags: SplitFlags): Promise<void> {
  const summary = await writeSplit({
    input: flags.in,
    out: flags.out,
    shards: flags.shards,
    fractions: { val: parseShare('--val', flags.val), test: parseShare('--test', flags.test) },
    by: parseChoice<SplitKey>('--by', flags.by, SPLIT_KEYS),
    layout: parseChoice<TsvLayout | 'auto'>('--layout', flags.layout, ['auto', 'caption-url', 'url-caption']),
    maxMemberBytes: parseMaxMemberBytes(flags.maxMemberBytes),
    localFiles: flags.allowLocalFiles ? 'any' : 'inside-list',
  });
  if (flags.json) {
    process.stdout.write(JSON.stringify(summary) + '\n');
    return;
  }
  for (const line of describeSplit(summary)) console.log(line);
  if (summary.rejected > 0) {
    const rejects = fs.readFileSync(path.join(flags.out, 'rejects.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, REJECTS_SHOWN);
    for (const line of rejects) {
      const r = JSON.parse(line) as { where: string; reason: string };
      process.stderr.write(`cckit: rejected ${quoteInput(r.where)}: ${quoteInput(r.reason)}\n`);
    }
    if (summary.rejected > REJECTS_SHOWN)
      process.stderr.write(`cckit: … and ${summary.rejected - REJECTS_SHOWN} more (every one in ${path.join(flags.out, 'rejects.jsonl')})\n`);
  }
}

export function registerSplitCommand(program: Command): Command {
  return program
    .command('split')
    .description('write a COCO-format train/val/test split (images/, train.json, val.json, test.json) of a kept set, sides chosen by hash')
    .requiredOption('-i, --in <source>', 'a shard folder (cckit download), a filter output folder (its kept.tsv) or a TSV')
    .requiredOption('-o, --out <dir>', 'output folder (new, empty, or an earlier split: replaced whole at the end)')
    .option('--shards <dir>', "the shard folder whose images a TSV's rows name by URL (without it, a TSV's URLs must be local image files)")
    .option('--val <share>', 'share of the images for val', String(DEFAULT_COCO_SPLIT_FRACTIONS.val))
    .option('--test <share>', 'share of the images for test', String(DEFAULT_COCO_SPLIT_FRACTIONS.test))
    .option('--by <key>', 'what stays on one side: url, image (identical bytes) or caption (equal captions: no test caption seen in training)', 'url')
    .option('--layout <layout>', 'TSV column order: auto, caption-url (CC3M) or url-caption (CC12M)', 'auto')
    .addOption(maxMemberBytesOption())
    .option('--json', 'print the summary as JSON', false)
    .option(
      '--allow-local-files',
      "read rows that name any local path or file:// URL (a list you wrote yourself); by default only relative paths inside the TSV's folder",
      false,
    )
    .action(runSplit);
}
