/**
 * Streaming reader and writer for the Conceptual Captions TSV files (no header, two columns):
 *  - CC3M (`Train_GCC-training.tsv`, `Validation_GCC-1.1.0-Validation.tsv`): `caption<TAB>url`
 *  - CC12M (`cc12m.tsv`): `url<TAB>caption`
 * The two real files use opposite column orders, so the reader auto-detects the order from
 * which column looks like a URL (http://, https://, world://) unless told the layout.
 *
 * Reading never loads the file: it decodes fixed-size chunks and splits lines itself (faster
 * than readline on 10M+ rows). "\n" and "\r\n" endings, a final line without a newline and a
 * UTF-8 byte-order mark are accepted, in linear time; a line longer than `maxLineLength` (default
 * `MAX_LINE_LENGTH`, 1 Mi characters) is malformed ("too-long …") and never held in memory. A malformed line (not
 * exactly two columns, an empty field, too long) throws a TsvError naming the file and the 1-based line, or, with
 * `malformed: 'reject'`, is yielded as a TsvReject with the reason, so no row is lost silently.
 * A header row (line 1 naming the columns, such as `caption<TAB>url` or `image_url<TAB>alt_text`) is
 * skipped, whatever the layout; an empty file reads as zero rows.
 *
 * Escaping on write (the real files contain no tabs or newlines inside captions):
 *  - `escape: 'space'` (default): every TAB, CR and LF inside a caption becomes one space.
 *    Lossy, but the output is plain CC-style TSV that any consumer (img2dataset, pandas, cut)
 *    reads as-is.
 *  - `escape: 'backslash'`: `\` → `\\`, TAB → `\t`, LF → `\n`, CR → `\r`; reversible when the
 *    file is read back with `unescape: true` (off by default, because real CC captions may
 *    contain literal backslashes that must be read verbatim).
 * A URL containing a TAB, CR or LF, or an empty URL or caption, is refused with an error
 * naming the row. Writes go to a temporary file beside the target, renamed over it on close.
 */
import * as fs from 'fs';
import { releaseTemporary, temporaryPath } from '../util/atomic';

/** Column order: CC3M is caption-url, CC12M is url-caption. */
export type TsvLayout = 'caption-url' | 'url-caption';

export interface TsvRow {
  /** 1-based line number in the file. */
  line: number;
  url: string;
  caption: string;
}

/** A malformed line, yielded instead of thrown in `malformed: 'reject'` mode. */
export interface TsvReject {
  line: number;
  /** Why the line was rejected ("expected 2 tab-separated columns, found 3", …). */
  reject: string;
  /** The raw line, without its line ending. */
  text: string;
}

export type TsvItem = TsvRow | TsvReject;

export function isReject(item: TsvItem): item is TsvReject {
  return (item as TsvReject).reject !== undefined;
}

export class TsvError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    detail: string,
  ) {
    super(line === undefined ? `${file}: ${detail}` : `${file}:${line}: ${detail}`);
    this.name = 'TsvError';
  }
}

export interface ReadTsvOptions {
  /** Column order, or 'auto' (default) to detect it from the first `detectLines` lines. */
  layout?: TsvLayout | 'auto';
  /** 'throw' (default): a malformed line throws TsvError. 'reject': it is yielded as a TsvReject. */
  malformed?: 'throw' | 'reject';
  /** Undo the writer's `escape: 'backslash'` in captions (default false). */
  unescape?: boolean;
  /** How many well-formed lines auto-detection looks at (default 1000). */
  detectLines?: number;
  /** Read chunk size in bytes (default 1 MiB). */
  chunkBytes?: number;
  /** Longest line kept (default `MAX_LINE_LENGTH`); a longer one is malformed ("line of N characters, longer than …"). */
  maxLineLength?: number;
}

const URL_PATTERN = /^(?:https?|world):\/\//i;

/** Whether a field looks like a URL for layout detection: http://, https:// or world://. */
export function looksLikeUrl(field: string): boolean {
  return URL_PATTERN.test(field);
}

const BACKSLASH_ESCAPES: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r' };

function unescapeCaption(caption: string): string {
  if (caption.indexOf('\\') < 0) return caption;
  return caption.replace(/\\([\\tnr])/g, (_, c: string) => BACKSLASH_ESCAPES[c]);
}

/** The longest line (in UTF-16 code units) the line readers keep by default: a longer one is rejected, not held. */
export const MAX_LINE_LENGTH = 1 << 20;

/** A batch of a file's raw lines: the 1-based number of the first, and the lines longer than the cap (index → length). */
export interface LineBatch {
  first: number;
  /** The lines; an over-long one is '' here, its length in `overlong`. */
  lines: string[];
  overlong?: Map<number, number>;
}

/** The reject reason of a line longer than the cap (its first word the code the filter funnel counts, `input:too-long`). */
export const overlongReason = (length: number, cap: number): string => `too-long (a line of ${length} characters, more than the ${cap} allowed)`;

/**
 * Raw lines of a file, in batches (one batch per decoded chunk), each with its 1-based number.
 * The final line is included even without a trailing newline; "\r\n" loses its "\r". Linear time and bounded memory:
 * each chunk is searched once, and a line longer than `maxLineLength` is not held but counted and reported in
 * `overlong` (its text ''), so one huge line costs neither quadratic time nor its size in memory.
 */
export async function* readLineBatches(file: string, chunkBytes = 1 << 20, maxLineLength = MAX_LINE_LENGTH): AsyncGenerator<LineBatch> {
  const stream = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: chunkBytes });
  // the line being read across chunks: its pieces and length; past the cap only its length is kept
  let pieces: string[] = [];
  let length = 0;
  let lineNo = 1;
  let first = true;
  const finish = (tail: string, lines: string[], overlong: Map<number, number>): void => {
    const total = length + tail.length;
    if (total > maxLineLength) {
      // a trailing "\r" of an over-long line is part of its ending, not its length
      overlong.set(lines.length, total);
      lines.push('');
    } else {
      let text = pieces.length === 0 ? tail : pieces.join('') + tail;
      if (text.charCodeAt(text.length - 1) === 13) text = text.slice(0, -1);
      lines.push(text);
    }
    pieces = [];
    length = 0;
  };
  const hold = (piece: string): void => {
    length += piece.length;
    if (length > maxLineLength) pieces = [];
    else pieces.push(piece);
  };
  try {
    for await (let chunk of stream as AsyncIterable<string>) {
      if (first) {
        if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
        first = false;
      }
      const lines: string[] = [];
      const overlong = new Map<number, number>();
      let start = 0;
      for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
        finish(chunk.slice(start, nl), lines, overlong);
        start = nl + 1;
      }
      if (start < chunk.length) hold(start === 0 ? chunk : chunk.slice(start));
      if (lines.length > 0) {
        yield { first: lineNo, lines, ...(overlong.size > 0 ? { overlong } : {}) };
        lineNo += lines.length;
      }
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TsvError(file, undefined, `cannot read: ${code ?? (err as Error).message}`);
  }
  if (length > 0) {
    const lines: string[] = [];
    const overlong = new Map<number, number>();
    finish('', lines, overlong);
    yield { first: lineNo, lines, ...(overlong.size > 0 ? { overlong } : {}) };
  }
}

/** Splits one line into its two fields, or returns the reason it is malformed. */
function splitLine(text: string): [string, string] | string {
  if (text === '') return 'empty line';
  const tab = text.indexOf('\t');
  if (tab < 0) return 'expected 2 tab-separated columns, found 1';
  if (text.indexOf('\t', tab + 1) >= 0) return `expected 2 tab-separated columns, found ${text.split('\t').length}`;
  return [text.slice(0, tab), text.slice(tab + 1)];
}

const URL_COLUMN_NAMES = new Set(['url', 'imageurl', 'imgurl', 'image', 'link', 'src', 'uri', 'key', 'path', 'file', 'filename', 'imagepath']);
const CAPTION_COLUMN_NAMES = new Set(['caption', 'text', 'alt', 'alttext', 'title', 'description', 'label', 'sentence', 'captions']);

/**
 * Whether line 1 names the columns rather than holding a pair: one field a URL column name (url,
 * image_url, …), the other a caption column name (caption, text, alt_text, …). The real CC files
 * have no header, but exports often add one.
 */
export function isHeaderRow(fields: readonly [string, string]): boolean {
  const [a, b] = fields.map((f) =>
    f
      .trim()
      .toLowerCase()
      .replace(/[\s_-]+/g, ''),
  );
  return (URL_COLUMN_NAMES.has(a!) && CAPTION_COLUMN_NAMES.has(b!)) || (CAPTION_COLUMN_NAMES.has(a!) && URL_COLUMN_NAMES.has(b!));
}

function toItem(fields: [string, string], layout: TsvLayout, line: number, text: string, unescape: boolean): TsvItem {
  const [url, caption] = layout === 'url-caption' ? fields : [fields[1], fields[0]];
  if (url.trim() === '') return { line, reject: 'empty url', text };
  if (caption.trim() === '') return { line, reject: 'empty caption', text };
  return { line, url, caption: unescape ? unescapeCaption(caption) : caption };
}

/**
 * Decides the column order from sample lines: the column that more often looks like a URL is
 * the URL column. Returns undefined when neither column looks like a URL or they tie.
 */
export function detectLayout(samples: readonly (readonly [string, string])[]): TsvLayout | undefined {
  let first = 0;
  let second = 0;
  for (const [a, b] of samples) {
    if (looksLikeUrl(a)) first++;
    if (looksLikeUrl(b)) second++;
  }
  if (first > second) return 'url-caption';
  if (second > first) return 'caption-url';
  return undefined;
}

/**
 * Reads a TSV in batches of rows (and rejects, in reject mode). This is the fast path used by
 * the statistics pass; `readTsv` flattens it into single rows.
 */
export async function* readTsvBatches(file: string, options: ReadTsvOptions = {}): AsyncGenerator<TsvItem[]> {
  const rejectMode = (options.malformed ?? 'throw') === 'reject';
  const unescape = options.unescape ?? false;
  const detectLines = options.detectLines ?? 1000;
  let layout: TsvLayout | undefined = options.layout === 'auto' ? undefined : options.layout;

  const cap = options.maxLineLength ?? MAX_LINE_LENGTH;
  /** Turns a batch of raw lines into items, throwing on malformed lines unless in reject mode. */
  const convert = ({ first, lines, overlong }: LineBatch, chosen: TsvLayout): TsvItem[] => {
    const items: TsvItem[] = [];
    for (let i = 0; i < lines.length; i++) {
      const text = lines[i];
      const long = overlong?.get(i);
      const split = long !== undefined ? overlongReason(long, cap) : splitLine(text);
      if (first + i === 1 && typeof split !== 'string' && isHeaderRow(split)) continue;
      const item: TsvItem = typeof split === 'string' ? { line: first + i, reject: split, text } : toItem(split, chosen, first + i, text, unescape);
      if (!rejectMode && (item as TsvReject).reject !== undefined) throw new TsvError(file, item.line, (item as TsvReject).reject);
      items.push(item);
    }
    return items;
  };

  // Until the layout is known, hold batches back and collect well-formed lines as samples.
  const pending: LineBatch[] = [];
  const samples: [string, string][] = [];
  const decide = (): TsvLayout => {
    const found = detectLayout(samples);
    if (found === undefined) {
      throw new TsvError(
        file,
        undefined,
        `cannot tell the column order: in the first ${samples.length} well-formed lines neither column looks more like a URL ` +
          `(http://, https://, world://); pass layout 'caption-url' (CC3M) or 'url-caption' (CC12M)`,
      );
    }
    return found;
  };

  for await (const batch of readLineBatches(file, options.chunkBytes, cap)) {
    if (layout === undefined) {
      pending.push(batch);
      for (const [i, text] of batch.lines.entries()) {
        if (samples.length >= detectLines) break;
        if (batch.overlong?.has(i)) continue;
        const split = splitLine(text);
        if (typeof split !== 'string' && !(batch.first + i === 1 && isHeaderRow(split))) samples.push(split);
      }
      if (samples.length < detectLines) continue;
      layout = decide();
      for (const held of pending.splice(0)) yield convert(held, layout);
      continue;
    }
    yield convert(batch, layout);
  }
  if (layout === undefined && pending.length > 0) {
    // A short file: decide from what there is (a file of only malformed lines still yields rejects).
    layout = samples.length === 0 ? 'caption-url' : decide();
    for (const held of pending) yield convert(held, layout);
  }
}

/** Reads a CC3M- or CC12M-style TSV row by row. */
export function readTsv(file: string, options: ReadTsvOptions & { malformed: 'reject' }): AsyncGenerator<TsvItem>;
export function readTsv(file: string, options?: ReadTsvOptions & { malformed?: 'throw' }): AsyncGenerator<TsvRow>;
export function readTsv(file: string, options?: ReadTsvOptions): AsyncGenerator<TsvItem>;
export async function* readTsv(file: string, options: ReadTsvOptions = {}): AsyncGenerator<TsvItem> {
  for await (const batch of readTsvBatches(file, options)) for (const item of batch) yield item;
}

/**
 * Detects a TSV file's column order from its first well-formed lines (reads only as far as needed).
 * A file with no pair at all (empty, header only) has no order to get wrong: caption-url, as readTsv.
 */
export async function detectTsvLayout(file: string, detectLines = 1000): Promise<TsvLayout> {
  const samples: [string, string][] = [];
  for await (const batch of readLineBatches(file)) {
    for (const [i, text] of batch.lines.entries()) {
      if (batch.overlong?.has(i)) continue;
      const split = splitLine(text);
      if (typeof split !== 'string' && !(batch.first + i === 1 && isHeaderRow(split))) samples.push(split);
      if (samples.length >= detectLines) break;
    }
    if (samples.length >= detectLines) break;
  }
  if (samples.length === 0) return 'caption-url';
  const found = detectLayout(samples);
  if (found === undefined) {
    throw new TsvError(file, undefined, `cannot tell the column order: in the first ${samples.length} well-formed lines neither column looks more like a URL`);
  }
  return found;
}

// ---------------------------------------------------------------------------
// Writing

export interface WriteTsvOptions {
  /** Column order to write. */
  layout: TsvLayout;
  /** How TAB/CR/LF inside captions are written (see the file comment); default 'space'. */
  escape?: 'space' | 'backslash';
}

const CONTROL = /[\t\r\n]/;

/** A caption as the writer puts it in the file. */
export function escapeCaption(caption: string, escape: 'space' | 'backslash' = 'space'): string {
  if (escape === 'backslash') {
    if (!/[\\\t\r\n]/.test(caption)) return caption;
    return caption.replace(/[\\\t\r\n]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
  }
  return CONTROL.test(caption) ? caption.replace(/\r\n|[\t\r\n]/g, ' ') : caption;
}

/**
 * Writes a TSV atomically: rows go to a temporary file next to the target, which is renamed
 * over the target by `close()`. `abort()` (or an error in `writeTsv`) removes the temporary file
 * and leaves any existing target untouched.
 */
export class TsvWriter {
  private readonly stream: fs.WriteStream;
  private readonly escape: 'space' | 'backslash';
  private buffer = '';
  private rows = 0;
  private failed: Error | undefined;
  private done = false;

  private constructor(
    readonly file: string,
    readonly temporary: string,
    private readonly layout: TsvLayout,
    escape: 'space' | 'backslash',
  ) {
    this.escape = escape;
    this.stream = fs.createWriteStream(temporary, { flags: 'wx' });
    this.stream.on('error', (err) => {
      this.failed ??= err;
    });
  }

  static create(file: string, options: WriteTsvOptions): TsvWriter {
    if (options.layout !== 'caption-url' && options.layout !== 'url-caption') {
      throw new TsvError(file, undefined, `unknown layout ${JSON.stringify(options.layout)} (expected 'caption-url' or 'url-caption')`);
    }
    return new TsvWriter(file, temporaryPath(file), options.layout, options.escape ?? 'space');
  }

  /** Number of rows written so far. */
  get count(): number {
    return this.rows;
  }

  /** Adds one row; await it to respect back-pressure (it resolves at once while buffering). */
  write(row: { url: string; caption: string }): Promise<void> | undefined {
    if (this.done) throw new TsvError(this.file, undefined, 'write after close');
    if (this.failed) throw this.failed;
    const position = `row ${this.rows + 1}`;
    if (typeof row.url !== 'string' || row.url === '') throw new TsvError(this.file, undefined, `${position}: empty url`);
    if (CONTROL.test(row.url)) throw new TsvError(this.file, undefined, `${position}: url contains a tab or line break: ${JSON.stringify(row.url)}`);
    if (typeof row.caption !== 'string' || row.caption.trim() === '') throw new TsvError(this.file, undefined, `${position}: empty caption`);
    const caption = escapeCaption(row.caption, this.escape);
    this.buffer += this.layout === 'url-caption' ? `${row.url}\t${caption}\n` : `${caption}\t${row.url}\n`;
    this.rows++;
    if (this.buffer.length >= 1 << 20) return this.flush();
    return undefined;
  }

  private flush(): Promise<void> | undefined {
    if (this.buffer === '') return undefined;
    const ok = this.stream.write(this.buffer);
    this.buffer = '';
    if (ok) return undefined;
    return new Promise((resolve, reject) => {
      const onDrain = () => {
        this.stream.off('error', onError);
        resolve();
      };
      const onError = (err: Error) => {
        this.stream.off('drain', onDrain);
        reject(err);
      };
      this.stream.once('drain', onDrain);
      this.stream.once('error', onError);
    });
  }

  /** Flushes, syncs and renames the temporary file over the target. */
  async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    try {
      await this.flush();
      await new Promise<void>((resolve, reject) => {
        this.stream.end((err?: Error | null) => (err ? reject(err) : resolve()));
      });
      if (this.failed) throw this.failed;
      const fd = await fs.promises.open(this.temporary, 'r+');
      try {
        await fd.sync();
      } finally {
        await fd.close();
      }
      await fs.promises.rename(this.temporary, this.file);
      releaseTemporary(this.temporary);
    } catch (err) {
      await fs.promises.rm(this.temporary, { force: true });
      releaseTemporary(this.temporary);
      throw err;
    }
  }

  /** Discards everything written; the target is left as it was. */
  async abort(): Promise<void> {
    this.done = true;
    await new Promise<void>((resolve) => {
      if (this.stream.closed) resolve();
      else {
        this.stream.destroy();
        this.stream.once('close', () => resolve());
      }
    });
    await fs.promises.rm(this.temporary, { force: true });
    releaseTemporary(this.temporary);
  }
}

/** Writes rows to `file` atomically; on any error the target is untouched and no temporary file is left. */
export async function writeTsv(
  file: string,
  rows: Iterable<{ url: string; caption: string }> | AsyncIterable<{ url: string; caption: string }>,
  options: WriteTsvOptions,
): Promise<number> {
  const writer = TsvWriter.create(file, options);
  try {
    for await (const row of rows) {
      const pending = writer.write(row);
      if (pending) await pending;
    }
    await writer.close();
    return writer.count;
  } catch (err) {
    await writer.abort();
    throw err;
  }
}
