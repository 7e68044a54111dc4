/**
 * The CC3M / CC12M filtering pipeline: one streaming pass over a TSV of candidate pairs through
 * per-pair stages (cheap first: text, image–text, then the image stage that needs the bytes, then
 * the caption transform), then optional dataset-wide stages that need a first pass over all
 * survivors (CC3M's low-count concept pruning). Every input row ends kept or rejected with a
 * reason:
 *
 *   OUT/kept.tsv        kept pairs, in the input's column order, transformed captions
 *   OUT/rejects.jsonl   {line, url, stage, reason, detail?, caption?} per rejected row (unreadable lines
 *                       included): `detail` is what the rule measured, `caption` the caption as read
 *                       (at most MAX_REJECT_CAPTION_CHARS characters)
 *   OUT/funnel.jsonl    per stage: in, out, rejected by reason
 *   OUT/audit.json      the kept set's audit (most repeated captions, a sample, <PERSON> share; audit.ts)
 *   OUT/summary.json    preset, input, counts, image sizes judged, time
 */
import { hasControlCharacters, quoteInput } from '../util/untrusted-text';
import * as fs from 'fs';
import * as path from 'path';
import { detectTsvLayout, readTsv, TsvLayout, TsvWriter, isReject } from '../data/tsv';
import { commitTemporary, discardTemporary, temporaryPath, writeFileAtomic } from '../util/atomic';
import { finishFilterOutput, startFilterOutput } from './outputs';
import { SampleError, ShardSample, countSamples, decodeSample, readSampleRange, type UnreadableShard } from '../data/webdataset';
import { Progress, silentProgress } from '../util/progress';
import { Funnel } from './funnel';
import { ImageSource, type ImageSourceOptions } from '../data/images';
import { CandidatePair, Verdict } from './types';
import { originalSizeOf, type SizeSource } from './image';
import { auditKeptFile, type KeptAudit } from './audit';

/** A per-pair stage. */
export interface PairStage {
  name: string;
  /** The stage reads the image bytes (they are fetched once, when the first such stage runs). */
  needsImage?: boolean;
  check(pair: CandidatePair): Verdict | Promise<Verdict>;
  /** For an image stage: how many images' sizes it judged from the input's original size and from the bytes. */
  sizesJudged?(): Record<SizeSource, number>;
}

/** A stage that must see every surviving caption before it can judge one (two passes). */
export interface DatasetStage {
  name: string;
  observe(caption: string): void;
  check(caption: string): Verdict;
}

/** Cheap stages run on worker threads over batches of pairs, before the in-process stages. */
export interface PooledStages {
  names: readonly string[];
  run(batch: { caption: string; tags?: string[] }[]): Promise<{ rejectedAt: number; reason?: string; detail?: string; caption: string }[]>;
  batchSize: number;
  /** Batches in flight at once. */
  depth: number;
}

/** Members whose being over the cap rejects the sample (decodeSample's; other members are ignored). */
const OVERSIZE_REJECTED: ReadonlySet<string> = new Set(['jpg', 'png', 'gif', 'webp', 'txt', 'json']);

export interface PipelineOptions {
  /** Shard members larger than this are skipped unread and their sample rejected (default: the reader's 20 MiB). */
  maxMemberBytes?: number;
  /** Stages run first, on worker threads (see presets.ts); their names come first in the funnel. */
  pooled?: PooledStages;
  input: string;
  out: string;
  stages: readonly PairStage[];
  datasetStages?: readonly DatasetStage[];
  layout?: TsvLayout | 'auto';
  /** Vision labels of a pair, by URL (world: web/truth.jsonl; real data: a tags file). */
  tags?: (url: string) => string[] | undefined;
  /** The image loader (default: one for this run, with `fetch`'s options and relative paths against the input's folder). */
  images?: ImageSource;
  /** Options of the default image loader (`--allow-private`, `--ignore-robots-tag`, `--contact`). */
  fetch?: Partial<ImageSourceOptions>;
  /** Pairs in flight at once (image fetching and decoding overlap). */
  concurrency?: number;
  progress?: Progress;
  /** Label for summary.json (e.g. the preset name). */
  label?: string;
  /** Only the input items with ordinal start ≤ i < end (0-based, unreadable lines included): one shard's slice. */
  range?: { start: number; end: number };
  /**
   * Leave the dataset stages to a merge step (src/filters/shards.ts): the per-pair survivors are committed as
   * OUT/survivors.jsonl instead of kept.tsv, and the funnel ends before the dataset stages.
   */
  deferDatasetStages?: boolean;
}

export interface PipelineResult {
  funnel: Funnel;
  input: number;
  kept: number;
  seconds: number;
  files: { kept: string; rejects: string; funnel: string; summary: string; audit?: string };
  /** The kept set's audit (absent when the run wrote no kept.tsv: a shard that defers the dataset stages). */
  audit?: KeptAudit;
  /** Images whose size the image stage judged, by source (absent without an image stage). */
  imageSizesJudged?: Record<SizeSource, number>;
}

export const READ_STAGE = 'read';

/** A pair that passed the per-pair stages, as survivors.jsonl holds it. */
export interface SurvivorRecord {
  line: number;
  url: string;
  caption: string;
  /** The caption as read (rejects.jsonl's `caption`, capped; absent in files of older runs). */
  read?: string;
}

/** Longest caption a reject in rejects.jsonl carries (the caption as read, cut here). */
export const MAX_REJECT_CAPTION_CHARS = 1000;

/** One line of rejects.jsonl. */
export interface RejectRecord {
  line: number;
  url: string;
  stage: string;
  reason: string;
  /** What the rule measured: the rare words, a value against its threshold, the tags compared, the fetch error … */
  detail?: string;
  /** The caption as read from the input (at most MAX_REJECT_CAPTION_CHARS characters, then "…"). */
  caption?: string;
}

/** A caption cut to `max` characters for rejects.jsonl (never inside a surrogate pair). */
export function capCaption(caption: string, max = MAX_REJECT_CAPTION_CHARS): string {
  if (caption.length <= max) return caption;
  const end = /[\uD800-\uDBFF]/.test(caption[max - 1]) ? max - 1 : max;
  return `${caption.slice(0, end)}…`;
}

/** The JSON line of a reject: fields in a fixed order, detail and caption only when known. */
export function rejectLine(r: RejectRecord): string {
  const { line, url, stage, reason, detail, caption } = r;
  return JSON.stringify({ line, url, stage, reason, ...(detail ? { detail } : {}), ...(caption !== undefined ? { caption: capCaption(caption) } : {}) }) + '\n';
}

export function readSurvivors(file: string): SurvivorRecord[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as SurvivorRecord);
}

/** The dataset-wide stages over all survivors: each observes every caption, then judges each; returns the kept. */
export function applyDatasetStages(
  records: SurvivorRecord[],
  datasetStages: readonly DatasetStage[],
  funnel: Funnel,
  recordReject: (reject: RejectRecord) => void,
): SurvivorRecord[] {
  let current = records;
  for (const stage of datasetStages) {
    for (const record of current) stage.observe(record.caption);
    const next: SurvivorRecord[] = [];
    for (const record of current) {
      funnel.entered(stage.name);
      const verdict = stage.check(record.caption);
      if (verdict.keep) {
        funnel.passed(stage.name);
        next.push({ ...record, caption: verdict.caption });
      } else recordReject({ line: record.line, url: record.url, stage: stage.name, reason: verdict.reason, detail: verdict.detail, caption: record.read });
    }
    current = next;
  }
  return current;
}

/** Longest caption or URL the pipeline accepts (real alt-text is far shorter; a 10 MB line is garbage). */
export const MAX_FIELD_CHARS = 64 * 1024;

/** Why a readable TSV row is still unusable input, or undefined when it is fine. */
export function inputProblem(url: string, caption: string): string | undefined {
  if (url.length > MAX_FIELD_CHARS || caption.length > MAX_FIELD_CHARS) return 'input:too-long';
  if (url.includes('\0') || caption.includes('\0')) return 'input:nul-byte';
  // a shard's json.url or sample name is input too: kept.tsv holds one row per line, so a URL cannot hold a line break
  if (hasControlCharacters(url)) return 'input:url-control-character';
  if (caption.trim() === '') return 'input:empty-caption';
  // the TSV reader decodes invalid UTF-8 to U+FFFD; real captions practically never contain it
  if (caption.includes('\uFFFD') || url.includes('\uFFFD')) return 'input:invalid-utf8';
  return undefined;
}

type InputItem =
  | { line: number; url: string; reject: string; detail?: string; bytes: number }
  | { line: number; url: string; caption: string; image?: Buffer; tags?: string[]; originalSize?: { width: number; height: number }; bytes: number };

/** Rows of a TSV, or samples of a shard folder / img2dataset output (images and tags included). */
async function* inputItems(input: string, layout: TsvLayout, range?: { start: number; end: number }, maxMemberBytes?: number): AsyncGenerator<InputItem> {
  const start = range?.start ?? 0;
  const end = range?.end ?? Infinity;
  let ordinal = -1;
  if (!fs.statSync(input).isDirectory()) {
    for await (const item of readTsv(input, { layout, malformed: 'reject' })) {
      ordinal++;
      if (ordinal < start) continue;
      if (ordinal >= end) return;
      if (isReject(item)) yield { line: item.line, url: '', reject: `input:${item.reject}`, bytes: item.text.length + 1 };
      else yield { line: item.line, url: item.url, caption: item.caption, bytes: item.url.length + item.caption.length + 2 };
    }
    return;
  }
  // a damaged tar is one rejected item (at its first unread sample) and the run goes on with the next tar
  const unreadable: InputItem[] = [];
  const onUnreadableShard = (shard: UnreadableShard) =>
    unreadable.push({
      line: (shard.position ?? 0) + 1,
      url: path.basename(shard.source),
      reject: 'input:shard-unreadable',
      detail: `${shard.reason} (${shard.read} samples read before)`,
      bytes: 0,
    });
  // a shard's slice of a tar folder skips the tars before it unread (readSampleRange)
  for await (const { raw, position } of readSampleRange(input, range, { maxMemberBytes, onUnreadableShard })) {
    yield* unreadable.splice(0);
    const line = position + 1;
    let sample: ShardSample;
    if (raw.oversized && Object.keys(raw.oversized).some((ext) => OVERSIZE_REJECTED.has(ext))) {
      // one funnel reason for every size; the member and its declared size go to the reject's detail
      yield { line, url: raw.key, reject: 'input:member-too-large', detail: Object.values(raw.oversized).join('; '), bytes: 0 };
      continue;
    }
    try {
      sample = decodeSample(raw);
    } catch (err) {
      if (!(err instanceof SampleError)) throw err;
      yield { line, url: raw.key, reject: `input:${err.reason}`, detail: err.detail, bytes: 0 };
      continue;
    }
    const url = typeof sample.json.url === 'string' ? sample.json.url : `${raw.source}#${sample.key}`;
    const tags = Array.isArray(sample.json.tags) ? sample.json.tags.map(String) : undefined;
    // the web image's size, when the shard's image is a resized copy (img2dataset / cckit download write it)
    const originalSize = originalSizeOf(sample.json);
    yield { line, url, caption: sample.caption, image: sample.image, tags, ...(originalSize ? { originalSize } : {}), bytes: 0 };
  }
  yield* unreadable.splice(0);
}

/** Input items a run would read (the range a shard slices): TSV lines with content, or samples of a shard folder. */
export async function countInputItems(input: string, layout: TsvLayout | 'auto' = 'auto'): Promise<number> {
  if (fs.statSync(input).isDirectory()) return countSamples(input);
  const resolved = layout === 'auto' ? await detectTsvLayout(input) : layout;
  let count = 0;
  for await (const item of readTsv(input, { layout: resolved, malformed: 'reject' })) if (item) count++;
  return count;
}

export async function runPipeline(options: PipelineOptions): Promise<PipelineResult> {
  const started = Date.now();
  const progress = options.progress ?? silentProgress;
  const folderInput = fs.statSync(options.input).isDirectory();
  // relative image paths in a TSV name files beside it, not in whatever folder the run started from
  const images = options.images ?? new ImageSource({ baseDir: folderInput ? undefined : path.dirname(path.resolve(options.input)), ...options.fetch });
  const deferred = options.deferDatasetStages === true;
  const datasetStages = deferred ? [] : (options.datasetStages ?? []);
  const pooledNames = options.pooled?.names ?? [];
  const funnel = new Funnel([READ_STAGE, ...pooledNames, ...options.stages.map((s) => s.name), ...datasetStages.map((s) => s.name)]);
  startFilterOutput(options.out);
  const files = {
    kept: path.join(options.out, 'kept.tsv'),
    rejects: path.join(options.out, 'rejects.jsonl'),
    funnel: path.join(options.out, 'funnel.jsonl'),
    summary: path.join(options.out, 'summary.json'),
    audit: path.join(options.out, 'audit.json'),
  };
  // shard folders are written out as CC12M-style TSV (url<TAB>caption)
  const layout = folderInput ? 'url-caption' : !options.layout || options.layout === 'auto' ? await detectTsvLayout(options.input) : options.layout;
  const totalBytes = folderInput ? 0 : fs.statSync(options.input).size;

  const rejectsTemporary = temporaryPath(files.rejects);
  const rejects = fs.createWriteStream(rejectsTemporary);
  const recordReject = (reject: RejectRecord) => {
    funnel.rejected(reject.stage, reject.reason);
    rejects.write(rejectLine(reject));
  };

  // survivors of the per-pair stages: straight to kept.tsv, or to a first-pass file for dataset stages
  const survivorsFile = datasetStages.length > 0 || deferred ? temporaryPath(path.join(options.out, 'survivors.jsonl')) : '';
  const survivors = survivorsFile ? fs.createWriteStream(survivorsFile) : undefined;
  const kept = deferred ? undefined : TsvWriter.create(files.kept, { layout });

  // `read`: the caption as read, for rejects.jsonl (the stages rewrite pair.caption)
  const runStages = async (pair: CandidatePair, line: number, read: string): Promise<CandidatePair | undefined> => {
    let fetched = false;
    for (const stage of options.stages) {
      funnel.entered(stage.name);
      if (stage.needsImage && !fetched && !pair.image) {
        fetched = true;
        const image = await images.fetch(pair.url);
        if (!image.ok) {
          recordReject({ line, url: pair.url, stage: stage.name, reason: image.reason, detail: image.detail, caption: read });
          return undefined;
        }
        pair.image = image.bytes;
      }
      let verdict: Verdict;
      try {
        verdict = await stage.check(pair);
      } catch (err) {
        verdict = { keep: false, reason: `${stage.name}:error:${(err as Error).message.slice(0, 80)}` };
      }
      if (!verdict.keep) {
        recordReject({ line, url: pair.url, stage: stage.name, reason: verdict.reason, detail: verdict.detail, caption: read });
        return undefined;
      }
      funnel.passed(stage.name);
      pair.caption = verdict.caption;
    }
    pair.image = undefined;
    return pair;
  };

  const concurrency = Math.max(1, options.concurrency ?? 8);
  const inFlight: Promise<{ pair?: CandidatePair; line: number; read: string }>[] = [];
  let input = 0;
  let bytesSeen = 0;
  const emit = async ({ pair, line, read }: { pair?: CandidatePair; line: number; read: string }) => {
    if (!pair) return;
    if (survivors) {
      const record: SurvivorRecord = { line, url: pair.url, caption: pair.caption, read: capCaption(read) };
      if (!survivors.write(JSON.stringify(record) + '\n')) await new Promise<void>((r) => survivors.once('drain', () => r()));
    } else {
      const pending = kept!.write(pair);
      if (pending) await pending;
    }
  };

  const startStages = async (pair: CandidatePair, line: number, read: string) => {
    inFlight.push(runStages(pair, line, read).then((result) => ({ pair: result, line, read })));
    if (inFlight.length >= concurrency) await emit(await inFlight.shift()!);
  };

  // pooled stages: batches go to the workers; their results are accounted in input order
  type Entry = { pair: CandidatePair; line: number };
  let batch: Entry[] = [];
  const batches: Promise<{ entries: Entry[]; results: Awaited<ReturnType<PooledStages['run']>> }>[] = [];
  const drainBatch = async (pending: (typeof batches)[number]) => {
    const { entries, results } = await pending;
    for (let i = 0; i < entries.length; i++) {
      const { pair, line } = entries[i];
      const result = results[i];
      const passedStages = result.rejectedAt < 0 ? pooledNames.length : result.rejectedAt;
      for (let s = 0; s < passedStages; s++) {
        funnel.entered(pooledNames[s]);
        funnel.passed(pooledNames[s]);
      }
      // the workers have not touched pair.caption: it is still the caption as read
      const read = pair.caption;
      if (result.rejectedAt >= 0) {
        funnel.entered(pooledNames[result.rejectedAt]);
        recordReject({ line, url: pair.url, stage: pooledNames[result.rejectedAt], reason: result.reason ?? 'rejected', detail: result.detail, caption: read });
        continue;
      }
      pair.caption = result.caption;
      await startStages(pair, line, read);
    }
  };
  const sendBatch = async () => {
    if (!options.pooled || batch.length === 0) return;
    const entries = batch;
    batch = [];
    batches.push(options.pooled.run(entries.map((e) => ({ caption: e.pair.caption, tags: e.pair.tags }))).then((results) => ({ entries, results })));
    if (batches.length >= options.pooled.depth) await drainBatch(batches.shift()!);
  };

  for await (const item of inputItems(options.input, layout, options.range, options.maxMemberBytes)) {
    input++;
    funnel.input++;
    funnel.entered(READ_STAGE);
    bytesSeen += item.bytes;
    if ('reject' in item) {
      recordReject({ line: item.line, url: item.url, stage: READ_STAGE, reason: item.reject, ...(item.detail ? { detail: item.detail } : {}) });
      continue;
    }
    const problem = inputProblem(item.url, item.caption);
    if (problem) {
      recordReject({
        line: item.line,
        url: item.url.slice(0, 200),
        stage: READ_STAGE,
        reason: problem,
        detail: problem === 'input:url-control-character' ? quoteInput(item.url) : undefined,
        caption: item.caption,
      });
      continue;
    }
    funnel.passed(READ_STAGE);
    const pair: CandidatePair = { id: String(item.line), url: item.url, caption: item.caption, tags: options.tags?.(item.url) ?? item.tags, image: item.image };
    if (item.originalSize) pair.originalSize = item.originalSize;
    if (options.pooled) {
      batch.push({ pair, line: item.line });
      if (batch.length >= options.pooled.batchSize) await sendBatch();
    } else await startStages(pair, item.line, item.caption);
    if (input % 1000 === 0 && totalBytes > 0) progress('filter (input bytes)', Math.min(bytesSeen, totalBytes), totalBytes);
  }
  await sendBatch();
  while (batches.length > 0) await drainBatch(batches.shift()!);
  while (inFlight.length > 0) await emit(await inFlight.shift()!);
  // a shard folder has no byte total: no bar rather than a stray "0/0"
  if (totalBytes > 0) progress('filter (input bytes)', totalBytes, totalBytes);

  if (survivors) await new Promise<void>((resolve, reject) => survivors.end((err?: Error | null) => (err ? reject(err) : resolve())));
  if (deferred) commitTemporary(survivorsFile, path.join(options.out, 'survivors.jsonl'));
  else if (survivors) {
    const records = readSurvivors(survivorsFile);
    for (const record of applyDatasetStages(records, datasetStages, funnel, recordReject)) {
      const pending = kept!.write(record);
      if (pending) await pending;
    }
    discardTemporary(survivorsFile);
  }
  await kept?.close();
  await new Promise<void>((resolve, reject) => rejects.end((err?: Error | null) => (err ? reject(err) : resolve())));
  commitTemporary(rejectsTemporary, files.rejects);
  funnel.check();
  writeFileAtomic(files.funnel, funnel.toJsonl());
  const audit = kept ? await writeAudit(files.kept, layout, files.audit) : undefined;
  const imageSizesJudged = sumSizesJudged(options.stages);
  const seconds = (Date.now() - started) / 1000;
  const written = ['rejects.jsonl', 'funnel.jsonl', ...(deferred ? ['survivors.jsonl'] : ['kept.tsv']), ...(audit ? ['audit.json'] : [])];
  // summary.json is the stage's done-marker: written last, atomically, naming the files it vouches for (outputs.ts).
  writeFileAtomic(
    files.summary,
    JSON.stringify(
      {
        label: options.label,
        input: options.input,
        rows: input,
        kept: funnel.kept,
        rejected: funnel.rejectedTotal,
        ...(imageSizesJudged ? { imageSizesJudged } : {}),
        seconds,
        files: finishFilterOutput(options.out, written),
      },
      null,
      2,
    ) + '\n',
  );
  return {
    funnel,
    input,
    kept: funnel.kept,
    seconds,
    files: audit ? files : { kept: files.kept, rejects: files.rejects, funnel: files.funnel, summary: files.summary },
    ...(audit ? { audit } : {}),
    ...(imageSizesJudged ? { imageSizesJudged } : {}),
  };
}

/** Audits a written kept.tsv into `file` (audit.json). */
export async function writeAudit(keptFile: string, layout: TsvLayout, file: string): Promise<KeptAudit> {
  const audit = await auditKeptFile(keptFile, layout);
  writeFileAtomic(file, JSON.stringify(audit, null, 2) + '\n');
  return audit;
}

/** The image sizes the stages judged, by source (undefined when no stage judges sizes). */
function sumSizesJudged(stages: readonly PairStage[]): Record<SizeSource, number> | undefined {
  const judging = stages.filter((s) => s.sizesJudged);
  if (judging.length === 0) return undefined;
  const total: Record<SizeSource, number> = { original: 0, decoded: 0 };
  for (const stage of judging) for (const [source, n] of Object.entries(stage.sizesJudged!())) total[source as SizeSource] += n;
  return total;
}
