import * as fs from 'fs';
import { CaptionStatistics, DEFAULT_RARE_WORDS, shardStats, tsvStats } from '../data/stats';
import { formatTable } from '../report/table';
import { quoteInput } from '../util/untrusted-text';
import { parseChoice, parseMaxMemberBytes } from './options';

export interface StatsFlags {
  layout: string;
  tokenizer: string;
  rareWords: string;
  malformed: string;
  json: boolean;
  /** Shard folders: largest member read (`maxMemberBytesOption`); default 20 MiB. */
  maxMemberBytes?: string;
}

/** Rejected rows or samples named on stderr (the rest are only counted). */
const REJECTS_SHOWN = 10;

/** CC12M Table 1 statistics of a TSV file or a folder of shards. */
export async function runStats(source: string, flags: StatsFlags): Promise<void> {
  if (!fs.existsSync(source)) throw new Error(`${source}: no such file or folder`);
  parseChoice('--layout', flags.layout, ['auto', 'caption-url', 'url-caption']);
  parseChoice('--tokenizer', flags.tokenizer, ['fast', 'ptb']);
  parseChoice('--malformed', flags.malformed, ['throw', 'reject']);
  const rareWords = flags.rareWords
    .split(',')
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean);
  const maxMemberBytes = parseMaxMemberBytes(flags.maxMemberBytes);
  let shown = 0;
  const onReject = (where: string, reason: string) => {
    // an unreadable shard is always named: it holds many rows
    if (reason.startsWith('shard:unreadable') || shown++ < REJECTS_SHOWN) process.stderr.write(`cckit: skipped ${quoteInput(where)}: ${quoteInput(reason)}\n`);
  };
  const options = { tokenizer: flags.tokenizer as 'fast' | 'ptb', rareWords, malformed: flags.malformed as 'throw' | 'reject', onReject };
  const started = Date.now();
  const stats: CaptionStatistics = fs.statSync(source).isDirectory()
    ? await shardStats(source, { ...options, maxMemberBytes })
    : await tsvStats(source, { ...options, layout: flags.layout as 'auto' });
  if (shown > REJECTS_SHOWN) process.stderr.write(`cckit: … and ${shown - REJECTS_SHOWN} more skipped\n`);
  if (flags.json) {
    process.stdout.write(JSON.stringify(stats) + '\n');
    return;
  }
  console.log(
    formatTable(
      ['statistic', 'value'],
      [
        ['pairs', String(stats.pairs)],
        ['token/type ratio', stats.tokenTypeRatio.toFixed(1)],
        ['caption length (tokens)', `${stats.lengthMean.toFixed(1)} ± ${stats.lengthStd.toFixed(1)}`],
        ...Object.entries(stats.rareWords).map(([word, count]): [string, string] => [`"${word}"`, String(count)]),
        ['malformed rows skipped', String(stats.rejects)],
        ...(stats.unreadableShards > 0 ? [['unreadable shards skipped', String(stats.unreadableShards)] as [string, string]] : []),
      ],
    ),
  );
  console.log(`\n(${stats.tokenizer} tokenizer, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

export const DEFAULT_RARE_WORD_LIST = DEFAULT_RARE_WORDS.join(',');
