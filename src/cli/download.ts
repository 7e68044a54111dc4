/** `cckit download`: a URL + caption list into img2dataset-style shards (src/download/). */
import { MAX_LINE_LENGTH } from '../data/tsv';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { download, mergeDownloadShards, type DownloadProgress, type DownloadSummary } from '../download/distributor';
import { DEFAULT_MAX_CAPTION_CHARS } from '../download/downloader';
import { INPUT_FORMATS } from '../download/reader';
import { ENCODE_FORMATS, RESIZE_MODES, type EncodeFormat, type ResizeMode } from '../download/resizer';
import { PRESETS } from '../filters/presets';
import { formatTable } from '../report/table';
import { addFetchOptions, fetchFlags } from './filter';
import { quoteInput } from '../util/untrusted-text';
import { parseChoice, parsePositiveNumber, parseWholeNumber } from './options';
import { ShardFlags, addShardOptions, runOnEngine, shardOptions } from './scale';

export interface DownloadFlags {
  in: string;
  out: string;
  inputFormat: string;
  layout: string;
  urlCol?: string;
  captionCol?: string;
  maxLineChars?: string;
  resizeMode: string;
  imageSize: string;
  resizeOnlyIfBigger: boolean;
  encodeFormat: string;
  encodeQuality?: string;
  reencode: boolean;
  minSize: string;
  maxAspect?: string;
  maxPixels: string;
  imageFilter?: string;
  processes: string;
  concurrency: string;
  perHost: string;
  timeout: string;
  retries: string;
  maxBytes: string;
  samplesPerShard: string;
  maxShards?: string;
  hashes?: string;
  retryFailed: boolean;
  progress: boolean;
  json: boolean;
  allowPrivate?: boolean;
  ignoreRobotsTag?: boolean;
  contact?: string;
  allowLocalFiles: boolean;
  maxCaptionChars: string;
}

export function registerDownloadCommand(program: Command): void {
  const command = program
    .command('download')
    .description('download a URL + caption list (TSV, CSV, JSON lines, parquet) into img2dataset-style webdataset shards, politely and resumably')
    .requiredOption('-i, --in <list>', 'the list: CC3M caption<TAB>url or CC12M url<TAB>caption TSV (order detected), CSV with a header, JSON lines, parquet')
    .requiredOption('-o, --out <dir>', 'output folder: NNNNN.tar, NNNNN.parquet, NNNNN_stats.json per shard')
    .option('--input-format <format>', `${INPUT_FORMATS.join(', ')} or auto (from the extension)`, 'auto')
    .option('--layout <layout>', 'TSV column order: auto, caption-url (CC3M) or url-caption (CC12M)', 'auto')
    .option('--url-col <name>', 'URL column of a CSV / JSON lines / parquet list (default: url, image_url, URL)')
    .option('--caption-col <name>', 'caption column (default: caption, text, TEXT, alt, alt_text, title)')
    .option('--resize-mode <mode>', RESIZE_MODES.join(', ') + ' (as img2dataset)', 'border')
    .option('--image-size <px>', 'target size of the resize', '256')
    .option('--resize-only-if-bigger', 'never enlarge an image', false)
    .option('--encode-format <format>', ENCODE_FORMATS.join(', '), 'jpg')
    .option('--encode-quality <q>', 'JPEG/WebP quality 1-100 (default 95) or PNG compression 0-9 (default 9)')
    .option('--reencode', 'also re-encode images that were not resized (img2dataset does by default; cckit keeps their bytes)', false)
    .option('--min-size <px>', 'reject images whose smaller side is below this', '0')
    .option('--max-aspect <ratio>', 'reject images whose longer / shorter side exceeds this')
    .option('--max-pixels <n>', 'reject images with more pixels than this before decoding (decompression bombs)', '50000000')
    .option('--image-filter <preset>', "the paper's size and aspect rules at download time: cc3m (> 400 px, ≤ 2) or cc12m (> 400 px, ≤ 2.5)")
    .option('--processes <n>', 'download processes', '1')
    .option('--concurrency <n>', 'requests in flight per process', '64')
    .option('--per-host <n>', 'requests in flight to one host, per process', '16')
    .option('--timeout <ms>', 'deadline of one request: DNS, redirects, headers and body', '10000')
    .option('--retries <n>', 'further attempts for failures that may pass (timeouts, resets, 429, 5xx)', '2')
    .option('--max-bytes <n>', 'largest image, checked against Content-Length and while streaming', String(20 * 1024 * 1024))
    .option('--samples-per-shard <n>', 'input rows per shard', '10000')
    .option('--max-shards <n>', 'stop after the first N shards of the list (a sample)')
    .option('--hashes <file>', "expected hashes (CC12M's companion list: url, SHA-256, MD5); a mismatch fails the row")
    .option('--retry-failed', 'fetch again the rows of done shards whose status is not success', false)
    .option(
      '--max-line-chars <n>',
      `a TSV or JSON line, or a CSV record, longer than this is one rejected row (too-long), never held (default ${MAX_LINE_LENGTH})`,
    )
    .option('--max-caption-chars <n>', 'captions longer than this are cut (recorded in caption_changes)', String(DEFAULT_MAX_CAPTION_CHARS))
    .option('--no-progress', 'no progress bar')
    .option('--json', 'print the summary as JSON', false);
  addShardOptions(addFetchOptions(command)).action(runDownload);
}

function progressBar(enabled: boolean): { update(p: DownloadProgress): void; stop(): void } {
  const stream = process.stderr;
  if (!enabled) return { update: () => {}, stop: () => {} };
  let bar: SingleBar | undefined;
  let lastLine = 0;
  const payload = (p: DownloadProgress) => {
    const seconds = p.elapsedMs / 1000;
    const rate = p.rows / Math.max(seconds, 1e-3);
    const left = Math.max(0, p.expectedRows - p.rows);
    return {
      rate: rate.toFixed(1),
      success: p.rows === 0 ? '—' : ((100 * p.successes) / p.rows).toFixed(1),
      eta: rate > 0 ? formatSeconds(left / rate) : '?',
    };
  };
  return {
    update(p) {
      if (stream.isTTY) {
        if (!bar) {
          bar = new SingleBar({ format: 'download [{bar}] {value}/{total} · {rate} img/s · {success}% ok · ETA {eta}', stream, hideCursor: true });
          bar.start(Math.max(p.expectedRows, 1), p.rows, payload(p));
        } else bar.update(p.rows, payload(p));
        return;
      }
      // logs: a line every 10 s
      if (p.elapsedMs - lastLine < 10_000) return;
      lastLine = p.elapsedMs;
      const v = payload(p);
      stream.write(`download: ${p.rows}/${p.expectedRows} rows, ${v.rate} img/s, ${v.success}% ok, ETA ${v.eta}\n`);
    },
    stop: () => bar?.stop(),
  };
}

function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

export async function runDownload(flags: DownloadFlags & ShardFlags, command?: Command): Promise<void> {
  if (command && (await runOnEngine(flags, command))) return;
  const sharding = shardOptions(flags);
  if (sharding.mergeShards !== undefined) {
    const merged = mergeDownloadShards(flags.out, sharding.mergeShards);
    console.log(
      `merged ${sharding.mergeShards} shard runs: ${merged.shards} download shards in ${merged.out}, ${merged.successes} of ${merged.count} rows downloaded (download_summary.json)`,
    );
    return;
  }
  const mode = parseChoice('--resize-mode', flags.resizeMode, RESIZE_MODES) as ResizeMode;
  const encodeFormat = parseChoice('--encode-format', flags.encodeFormat, ENCODE_FORMATS) as EncodeFormat;
  parseChoice('--input-format', flags.inputFormat, ['auto', ...INPUT_FORMATS]);
  parseChoice('--layout', flags.layout, ['auto', 'caption-url', 'url-caption']);
  let minSize = parseWholeNumber('--min-size', flags.minSize);
  let maxAspect = flags.maxAspect === undefined ? Infinity : parsePositiveNumber('--max-aspect', flags.maxAspect);
  if (flags.imageFilter !== undefined) {
    const preset = PRESETS[parseChoice('--image-filter', flags.imageFilter, ['cc3m', 'cc12m'])];
    // "greater than 400 pixels": the smallest allowed side is 401
    minSize = Math.max(minSize, preset.image.minSide + 1);
    maxAspect = Math.min(maxAspect, preset.image.maxAspect);
  }
  const bar = progressBar(flags.progress);
  try {
    const summary = await download({
      input: flags.in,
      out: flags.out,
      read: {
        format: flags.inputFormat as 'auto',
        layout: flags.layout as 'auto',
        ...(flags.urlCol ? { urlColumn: flags.urlCol } : {}),
        ...(flags.captionCol ? { captionColumn: flags.captionCol } : {}),
        ...(flags.maxLineChars !== undefined ? { maxLineChars: parseWholeNumber('--max-line-chars', flags.maxLineChars, 1) } : {}),
      },
      samplesPerShard: parseWholeNumber('--samples-per-shard', flags.samplesPerShard, 1),
      processes: parseWholeNumber('--processes', flags.processes, 1),
      concurrency: parseWholeNumber('--concurrency', flags.concurrency, 1),
      perHost: parseWholeNumber('--per-host', flags.perHost, 1),
      maxShards: flags.maxShards === undefined ? undefined : parseWholeNumber('--max-shards', flags.maxShards, 1),
      fetch: {
        ...fetchFlags(flags),
        localFiles: flags.allowLocalFiles ? 'any' : 'none',
        timeoutMs: parseWholeNumber('--timeout', flags.timeout, 1),
        maxBytes: parseWholeNumber('--max-bytes', flags.maxBytes, 1),
      },
      maxCaptionChars: parseWholeNumber('--max-caption-chars', flags.maxCaptionChars, 1),
      policy: { retries: parseWholeNumber('--retries', flags.retries) },
      resize: {
        mode,
        imageSize: parseWholeNumber('--image-size', flags.imageSize, 1),
        onlyIfBigger: flags.resizeOnlyIfBigger,
        encodeFormat,
        encodeQuality: flags.encodeQuality === undefined ? (encodeFormat === 'png' ? 9 : 95) : parseWholeNumber('--encode-quality', flags.encodeQuality),
        reencode: flags.reencode,
        minSize,
        maxAspect,
        maxPixels: parseWholeNumber('--max-pixels', flags.maxPixels, 1),
      },
      hashesFile: flags.hashes,
      retryFailed: flags.retryFailed,
      ...(sharding.shard ? { shard: sharding.shard } : {}),
      onProgress: (p) => bar.update(p),
    });
    bar.stop();
    if (flags.json) {
      console.log(JSON.stringify(summary, null, 1));
      return;
    }
    const rate = summary.count === 0 ? 0 : (100 * summary.successes) / summary.count;
    console.log(
      `${summary.shards} shards in ${summary.out}: ${summary.written} written, ${summary.retried} retried, ${summary.skipped} already done; ` +
        `${summary.rowsFetched} rows fetched in ${summary.durationS.toFixed(1)} s (${summary.rowsPerSecond.toFixed(1)} rows/s)`,
    );
    console.log(`all shards: ${summary.successes} of ${summary.count} rows downloaded (${rate.toFixed(1)}%)`);
    const reasons = Object.entries(summary.status_dict)
      .filter(([reason]) => reason !== 'success')
      .sort((a, b) => b[1] - a[1]);
    if (reasons.length > 0)
      console.log(
        formatTable(
          ['failure', 'rows', '% of rows'],
          reasons.map(([reason, n]) => [quoteInput(reason, 120), String(n), ((100 * n) / summary.count).toFixed(1)]),
        ),
      );
    for (const hint of downloadHints(summary, flags)) console.log(hint);
  } finally {
    bar.stop();
  }
}

/** Failure reasons (src/data/fetch.ts, src/data/images.ts) that one flag of this command addresses. */
const FLAG_FOR_FAILURE: Readonly<Record<string, { flag: string; why: string }>> = {
  'download:refused-private': {
    flag: '--allow-private',
    why: 'their hosts are loopback or private addresses, refused by default; --allow-private fetches them (a local server or mirror you trust)',
  },
  'download:local-file-refused': {
    flag: '--allow-local-files',
    why: 'they name local paths or file:// URLs, refused by default; --allow-local-files reads them (a list you wrote yourself)',
  },
};

/** A flag's hint when at least this share of the failed rows has its cause. */
const HINT_SHARE = 0.8;

/**
 * The easy mistakes a summary should name: most failures have one cause a flag addresses, or done
 * shards were skipped with failed rows that --retry-failed would fetch again.
 */
export function downloadHints(
  summary: Pick<DownloadSummary, 'count' | 'successes' | 'status_dict' | 'skipped' | 'written' | 'retried'>,
  flags: Pick<DownloadFlags, 'retryFailed'>,
): string[] {
  const hints: string[] = [];
  const failed = summary.count - summary.successes;
  if (failed <= 0) return hints;
  for (const [reason, n] of Object.entries(summary.status_dict)) {
    const fix = FLAG_FOR_FAILURE[reason];
    if (!fix || n < HINT_SHARE * failed) continue;
    const rows = `${failed} failed row${failed === 1 ? '' : 's'}`;
    const share = n === failed ? `${failed === 1 ? 'the' : 'all'} ${rows}` : `${n} of ${rows} (${((100 * n) / failed).toFixed(0)}%)`;
    hints.push(`hint: ${share} ${n === 1 ? 'is' : 'are'} ${reason}: ${fix.why}`);
  }
  if (summary.skipped > 0 && !flags.retryFailed) {
    const shards = `${summary.skipped} shard${summary.skipped === 1 ? ' was' : 's were'} already done and skipped`;
    // nothing written or retried: every failed row is in a skipped shard
    const which =
      summary.written === 0 && summary.retried === 0
        ? `the ${failed} failed row${failed === 1 ? '' : 's'} in ${summary.skipped === 1 ? 'it' : 'them'}`
        : `any failed rows in ${summary.skipped === 1 ? 'it' : 'them'}`;
    hints.push(`hint: ${shards}: ${which} were not fetched again; --retry-failed fetches them again`);
  }
  return hints;
}
