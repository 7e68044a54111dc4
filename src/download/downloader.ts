/**
 * Downloader: one shard's rows fetched through the safe fetcher (data/images.ts → data/fetch.ts)
 * under the host scheduler's politeness, retried with backoff when the failure may pass, checked
 * against expected hashes, resized, and written into the shard as each finishes. Failed URLs are
 * rows with a status, never exceptions: a shard always completes.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { readParquetFile } from '../data/parquet';
import { ImageSource } from '../data/images';
import type { FetchFailure } from '../data/fetch';
import { DEFAULT_MAX_MEMBER_BYTES, OpenShard, readTarShard, shardName, statsProblem, type FailureInput, type ShardStats } from '../data/webdataset';
import { hasControlCharacters } from '../util/untrusted-text';
import { HashTable } from './hashes';
import { HostScheduler } from './politeness';
import type { InputRow } from './reader';
import { resizeImage, type ResizeOptions } from './resizer';

export interface FetchPolicy {
  /** Attempts after the first, for failures that may pass (timeouts, resets, 429, 5xx). */
  retries: number;
  /** First backoff in ms; doubled each attempt, with ±50% jitter. */
  retryBaseMs: number;
  /** The longest Retry-After honoured; a longer one ends the row as failed. */
  maxRetryAfterMs: number;
}

export interface ShardContext {
  out: string;
  samplesPerShard: number;
  oomShardCount: number;
  source: ImageSource;
  scheduler: HostScheduler;
  policy: FetchPolicy;
  resize: ResizeOptions;
  hashes?: HashTable;
  /** Longest caption written; longer ones are cut (default DEFAULT_MAX_CAPTION_CHARS). */
  maxCaptionChars?: number;
  /** Called once per finished row. */
  onRow?: (success: boolean) => void;
  /** Sleep (tests may shorten it). */
  sleep?: (ms: number) => Promise<void>;
}

/** Reasons worth another attempt: the server or the path may be fine a moment later. */
const TRANSIENT = /^download:(timeout|connection-reset|network|unreachable|http-(408|425|429|500|502|503|504))$/;
/** Reasons that mean the host itself asks for fewer requests: it rests, not just this URL. */
const HOST_BUSY = /^download:http-(429|503)$/;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Fetches one URL with retries and hands the bytes to `use` while the request's slot is still
 * held: a slot is free again only once its image is written, so images never pile up in memory
 * when resizing or the disk is slower than the network.
 */
async function fetchWithRetries<T>(url: string, context: ShardContext, use: (bytes: Buffer) => Promise<T>): Promise<{ ok: true; value: T } | FetchFailure> {
  const host = HostScheduler.hostOf(url);
  const sleep = context.sleep ?? defaultSleep;
  for (let attempt = 0; ; attempt++) {
    const result = await context.scheduler.run(host, async (): Promise<{ ok: true; value: T } | FetchFailure> => {
      const fetched = await context.source.fetch(url);
      if (fetched.ok) return { ok: true, value: await use(fetched.bytes) };
      if (HOST_BUSY.test(fetched.reason)) {
        // the host asked to wait: nothing else goes to it meanwhile, from any shard of this process
        const wait = fetched.retryAfterMs ?? context.policy.retryBaseMs * 2 ** attempt;
        if (wait <= context.policy.maxRetryAfterMs) context.scheduler.rest(host, wait);
      }
      return fetched;
    });
    if (result.ok || attempt >= context.policy.retries || !TRANSIENT.test(result.reason)) return result;
    if (result.retryAfterMs !== undefined && result.retryAfterMs > context.policy.maxRetryAfterMs) {
      return { ...result, detail: `Retry-After ${Math.round(result.retryAfterMs / 1000)} s is longer than ${context.policy.maxRetryAfterMs / 1000} s` };
    }
    if (!HOST_BUSY.test(result.reason)) await sleep(context.policy.retryBaseMs * 2 ** attempt * (0.5 + Math.random()));
  }
}

/**
 * Captions longer than this many characters are cut at download time. Not from the papers: CC12M's text filter
 * keeps captions of at most 256 words (about 1,500 characters), so 4,096 never cuts one a pipeline would keep,
 * while a list's 10 MB "caption" is not written twice (.txt and .json) into every shard.
 */
export const DEFAULT_MAX_CAPTION_CHARS = 4096;

// eslint-disable-next-line no-control-regex -- control characters are what is replaced
const CAPTION_CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * A caption as the shard stores it: control characters (tabs, line breaks, escapes, NUL) become spaces, runs of
 * whitespace one space, ends trimmed, at most `maxChars` characters. `changes` says what was done, for the
 * sample's `caption_changes` field, so a changed caption can always be told from the list's.
 */
export function normaliseCaption(caption: string, maxChars = DEFAULT_MAX_CAPTION_CHARS): { caption: string; changes?: string } {
  const changes: string[] = [];
  let text = caption.replace(CAPTION_CONTROL, ' ').replace(/\s+/g, ' ').trim();
  if (text !== caption) changes.push(hasControlCharacters(caption) ? 'control characters to spaces' : 'whitespace collapsed');
  if (text.length > maxChars) {
    changes.push(`cut from ${text.length} to ${maxChars} characters`);
    text = text.slice(0, maxChars);
  }
  return changes.length === 0 ? { caption: text } : { caption: text, changes: changes.join('; ') };
}

/** Fetches, verifies and resizes one row into the shard. */
async function downloadRow(shard: OpenShard, index: number, input: InputRow, context: ShardContext): Promise<boolean> {
  const normalised = normaliseCaption(input.caption, context.maxCaptionChars);
  const row = { ...input, caption: normalised.caption };
  const meta = normalised.changes ? { caption_changes: normalised.changes } : undefined;
  const failed = (status: FailureInput['status'], error: string): boolean => {
    shard.fail(index, { url: row.url, caption: row.caption, status, error, ...(meta ? { meta } : {}) });
    return false;
  };
  if (row.invalid !== undefined) return failed('failed_to_download', `input: ${row.invalid}`);
  const outcome = await fetchWithRetries(row.url, context, async (bytes) => {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const check = context.hashes?.verify(row.url, bytes, sha256);
    if (check && !check.ok) return failed('failed_to_download', 'hash mismatch');
    const resized = await resizeImage(bytes, context.resize);
    if (!resized.ok) return failed('failed_to_resize', resized.error);
    await shard.write(index, {
      image: resized.image,
      imageExt: resized.ext,
      caption: row.caption,
      url: row.url,
      width: resized.width,
      height: resized.height,
      originalWidth: resized.originalWidth,
      originalHeight: resized.originalHeight,
      sha256,
      ...(meta ? { meta } : {}),
    });
    return true;
  });
  return outcome.ok ? outcome.value : failed('failed_to_download', outcome.reason);
}

function openShard(context: ShardContext, id: number): OpenShard {
  return new OpenShard(context.out, id, {
    samplesPerShard: context.samplesPerShard,
    oomShardCount: context.oomShardCount,
    mtime: new Date(Date.UTC(2000, 0, 1)),
    now: Date.now,
  });
}

/** Runs rows into a shard, all at once under the scheduler; the shard is removed if anything throws. */
async function fill(shard: OpenShard, rows: { index: number; row: InputRow }[], context: ShardContext): Promise<ShardStats> {
  try {
    await Promise.all(
      rows.map(async ({ index, row }) => {
        const ok = await downloadRow(shard, index, row, context);
        context.onRow?.(ok);
      }),
    );
    return await shard.close();
  } catch (err) {
    await shard.abort();
    throw err;
  }
}

/** Downloads shard `id` (its rows in input order) into `NNNNN.tar`, `.parquet` and `_stats.json`. */
export function downloadShard(id: number, rows: readonly InputRow[], context: ShardContext): Promise<ShardStats> {
  return fill(
    openShard(context, id),
    rows.map((row, index) => ({ index, row })),
    context,
  );
}

export type DoneCheck = { done: true; stats: ShardStats } | { done: false; problem?: string };

/**
 * Whether shard `id` is done. Its stats file is the done-marker, written last; but a marker is input like any
 * other (a copied folder, a crash, a hand edit), so it counts only when it parses to a shard's stats, the tar
 * and parquet beside it exist, and the parquet holds the rows and successes the stats claim. A shard that
 * fails the check is not done (it is downloaded again) and `problem` says why.
 */
export async function checkDoneShard(out: string, id: number, oomShardCount = 5): Promise<DoneCheck> {
  const name = shardName(id, oomShardCount);
  const statsFile = path.join(out, `${name}_stats.json`);
  if (!fs.existsSync(statsFile)) return { done: false };
  const notDone = (why: string): DoneCheck => ({ done: false, problem: `${statsFile}: ${why}` });
  let stats: unknown;
  try {
    stats = JSON.parse(fs.readFileSync(statsFile, 'utf8'));
  } catch (err) {
    return notDone(`not JSON (${(err as Error).message})`);
  }
  const problem = statsProblem(stats);
  if (problem) return notDone(problem);
  const claimed = stats as ShardStats;
  const tar = path.join(out, `${name}.tar`);
  const tarStat = fs.statSync(tar, { throwIfNoEntry: false });
  // a tar holds 512-byte blocks and ends with two empty ones
  if (!tarStat?.isFile() || tarStat.size < 1024 || tarStat.size % 512 !== 0) return notDone(`${name}.tar is missing or not a whole tar`);
  let statuses: Record<string, unknown>[];
  try {
    statuses = await readParquetFile(path.join(out, `${name}.parquet`), ['status']);
  } catch (err) {
    return notDone(`${name}.parquet cannot be read (${(err as Error).message})`);
  }
  const successes = statuses.filter((r) => r.status === 'success').length;
  if (statuses.length !== claimed.count || successes !== claimed.successes)
    return notDone(`${name}.parquet holds ${statuses.length} rows, ${successes} successes; the stats claim ${claimed.count}, ${claimed.successes}`);
  return { done: true, stats: claimed };
}

/**
 * Re-fetches the rows of a done shard whose status is not success, keeping every sample it has:
 * a new shard is built from the old tar's samples plus the new successes and replaces the old
 * one (tar, parquet, then stats). A key already in the tar counts as a success whatever the
 * parquet says (a run killed between the renames leaves the tar ahead of the parquet).
 */
export async function retryFailedRows(id: number, context: ShardContext): Promise<{ stats: ShardStats; retried: number }> {
  const name = shardName(id, context.oomShardCount);
  const records = await readParquetFile(path.join(context.out, `${name}.parquet`));
  const shard = openShard(context, id);
  const indexOf = (key: string) => Number(BigInt(key) - BigInt(shard.key(0)));
  const kept = new Set<number>();
  try {
    const byKey = new Map(records.map((r) => [String(r.key), r]));
    // our own shard: its images may be as large as this run's --max-bytes allowed, and none may be dropped
    const maxMemberBytes = Math.max(context.source.options.maxBytes, DEFAULT_MAX_MEMBER_BYTES);
    for await (const sample of readTarShard(path.join(context.out, `${name}.tar`), { maxMemberBytes })) {
      // a member over even that cap (a hand-edited tar): fetched again rather than copied without its image
      if (sample.oversized) continue;
      const record = byKey.get(sample.key);
      const json = sample.files.json ? (JSON.parse(sample.files.json.toString('utf8')) as Record<string, unknown>) : {};
      const index = indexOf(sample.key);
      await shard.copy(index, sample.files, { ...json, ...(record?.status === 'success' ? record : {}), status: 'success', error_message: null });
      kept.add(index);
    }
  } catch (err) {
    await shard.abort();
    throw err;
  }
  const again = records
    .map((r) => ({
      index: indexOf(String(r.key)),
      row: { url: String(r.url ?? ''), caption: String(r.caption ?? ''), where: `${name}.parquet key ${String(r.key)}` } as InputRow,
    }))
    .filter(({ index }) => !kept.has(index));
  for (const entry of again) if (entry.row.url === '') entry.row.invalid = 'empty url';
  const stats = await fill(shard, again, context);
  return { stats, retried: again.length };
}
