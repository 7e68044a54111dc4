/**
 * The filter's shard contract (docs/scale.md). Shard i of N (`cckit filter … --shard i/N`) runs the per-pair
 * stages over a contiguous slice of the input (src/util/shard.ts sliceRange) into OUT/.shards/i-of-N/, whose
 * summary.json is its done-marker. The merge (`--merge-shards N`) checks that every shard is done, concatenates
 * their outputs in index order, runs the dataset-wide stages (CC3M's concept pruning) over all survivors, and
 * writes OUT/ as one process would have: kept.tsv in input order, rejects.jsonl (the shards' rejections in
 * order, then the dataset stages'), funnel.jsonl (summed), summary.json last.
 */
import * as fs from 'fs';
import * as path from 'path';
import { TsvLayout, TsvWriter } from '../data/tsv';
import { commitTemporary, temporaryPath, writeFileAtomic } from '../util/atomic';
import { missingShards, shardFolder, type ShardSpec } from '../util/shard';
import { filterOutputState, finishFilterOutput, startFilterOutput } from './outputs';
import { Funnel } from './funnel';
import { applyDatasetStages, readSurvivors, rejectLine, writeAudit, type DatasetStage, type PipelineResult, type RejectRecord } from './pipeline';
import type { SizeSource } from './image';

export interface MergeFilterOptions {
  out: string;
  count: number;
  /** The kept.tsv column order (the one-process run's: the input's, url-caption for shard folders). */
  layout: TsvLayout;
  datasetStages: readonly DatasetStage[];
  label?: string;
  input: string;
}

export async function mergeFilterShards(options: MergeFilterOptions): Promise<PipelineResult> {
  const started = Date.now();
  const { out, count } = options;
  const missing = missingShards(out, count);
  if (missing.length > 0)
    throw new Error(`merge: ${missing.length} of ${count} filter shards are not done (${missing.slice(0, 10).join(', ')}) in ${out}/.shards`);
  const folders = Array.from({ length: count }, (_, index) => shardFolder(out, { index, count } satisfies ShardSpec));
  for (const folder of folders) {
    const state = filterOutputState(folder);
    if (!state.done) throw new Error(`merge: ${folder} is not one finished filter run: ${state.reason}`);
  }
  startFilterOutput(out);
  const deferred = options.datasetStages.length > 0;
  for (const folder of folders) {
    const has = fs.existsSync(path.join(folder, deferred ? 'survivors.jsonl' : 'kept.tsv'));
    if (!has) throw new Error(`merge: ${folder} has no ${deferred ? 'survivors.jsonl' : 'kept.tsv'}: its shard ran with other stages than this merge`);
  }
  const funnel = Funnel.sum(
    folders.map((folder) => Funnel.parseJsonl(fs.readFileSync(path.join(folder, 'funnel.jsonl'), 'utf8'))),
    options.datasetStages.map((s) => s.name),
  );
  const files = {
    kept: path.join(out, 'kept.tsv'),
    rejects: path.join(out, 'rejects.jsonl'),
    funnel: path.join(out, 'funnel.jsonl'),
    summary: path.join(out, 'summary.json'),
    audit: path.join(out, 'audit.json'),
  };
  const rejectsTemporary = temporaryPath(files.rejects);
  const rejects = fs.openSync(rejectsTemporary, 'w');
  try {
    for (const folder of folders) fs.writeSync(rejects, fs.readFileSync(path.join(folder, 'rejects.jsonl')));
    if (deferred) {
      const kept = TsvWriter.create(files.kept, { layout: options.layout });
      const survivors = folders.flatMap((folder) => readSurvivors(path.join(folder, 'survivors.jsonl')));
      const recordReject = (reject: RejectRecord) => {
        funnel.rejected(reject.stage, reject.reason);
        fs.writeSync(rejects, rejectLine(reject));
      };
      for (const record of applyDatasetStages(survivors, options.datasetStages, funnel, recordReject)) {
        const pending = kept.write(record);
        if (pending) await pending;
      }
      await kept.close();
    } else {
      // the shards' kept.tsv are already in the final layout: concatenated in index order
      const temporary = temporaryPath(files.kept);
      const fd = fs.openSync(temporary, 'w');
      for (const folder of folders) fs.writeSync(fd, fs.readFileSync(path.join(folder, 'kept.tsv')));
      fs.closeSync(fd);
      commitTemporary(temporary, files.kept);
    }
  } finally {
    fs.closeSync(rejects);
  }
  commitTemporary(rejectsTemporary, files.rejects);
  funnel.check();
  writeFileAtomic(files.funnel, funnel.toJsonl());
  const audit = await writeAudit(files.kept, options.layout, files.audit);
  const imageSizesJudged = sumShardSizes(folders);
  const seconds = (Date.now() - started) / 1000;
  writeFileAtomic(
    files.summary,
    JSON.stringify(
      {
        label: options.label,
        input: options.input,
        rows: funnel.input,
        kept: funnel.kept,
        rejected: funnel.rejectedTotal,
        ...(imageSizesJudged ? { imageSizesJudged } : {}),
        seconds,
        shards: count,
        files: finishFilterOutput(out, ['kept.tsv', 'rejects.jsonl', 'funnel.jsonl', 'audit.json']),
      },
      null,
      2,
    ) + '\n',
  );
  return { funnel, input: funnel.input, kept: funnel.kept, seconds, files, audit, ...(imageSizesJudged ? { imageSizesJudged } : {}) };
}

/** The shards' image sizes judged (their summary.json), summed; undefined when none has the field. */
function sumShardSizes(folders: readonly string[]): Record<SizeSource, number> | undefined {
  let total: Record<SizeSource, number> | undefined;
  for (const folder of folders) {
    const summary = JSON.parse(fs.readFileSync(path.join(folder, 'summary.json'), 'utf8')) as { imageSizesJudged?: Partial<Record<SizeSource, number>> };
    const sizes = summary.imageSizesJudged;
    if (!sizes) continue;
    total ??= { original: 0, decoded: 0 };
    total.original += sizes.original ?? 0;
    total.decoded += sizes.decoded ?? 0;
  }
  return total;
}
