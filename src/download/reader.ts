/**
 * Reader: the URL + caption list, streamed (a 12.4M-row list is never held whole) and cut into
 * shards of `samplesPerShard` input rows. TSV (CC3M's `caption<TAB>url` or CC12M's
 * `url<TAB>caption`, detected as `cckit filter` does), CSV with a header, JSON lines and parquet.
 * A row that cannot be read still takes its index (and so its key): the downloader records it as
 * a failure naming the file and line, so no row is lost silently.
 */
import * as fs from 'fs';
import * as path from 'path';
import { ParquetFile } from '../data/parquet';
import { isReject, MAX_LINE_LENGTH, overlongReason, readLineBatches, readTsvBatches, type TsvLayout } from '../data/tsv';
import { InputError } from '../util/json';
import { yieldToEventLoop } from '../util/event-loop';

export type InputFormat = 'tsv' | 'csv' | 'jsonl' | 'parquet';
export const INPUT_FORMATS: readonly InputFormat[] = ['tsv', 'csv', 'jsonl', 'parquet'];

export interface InputRow {
  url: string;
  caption: string;
  /** `file:line` (text formats) or `file#row` (parquet), for error messages. */
  where: string;
  /** Why the row could not be read; url/caption are then whatever was found (maybe empty). */
  invalid?: string;
}

export interface ReadInputOptions {
  /** Default: from the file's extension (.tsv/.txt, .csv, .jsonl/.json/.ndjson, .parquet). */
  format?: InputFormat | 'auto';
  /** TSV column order (default: detected). */
  layout?: TsvLayout | 'auto';
  /** Column / field holding the URL (CSV, JSON lines, parquet); default: the first of url, image_url, URL. */
  urlColumn?: string;
  /** Column / field holding the caption; default: the first of caption, text, TEXT, alt, alt_text. */
  captionColumn?: string;
  /** Longest TSV / JSON line or CSV record kept, in characters (default `MAX_LINE_LENGTH`, 1 Mi); a longer one is one rejected row. */
  maxLineChars?: number;
}

const URL_COLUMNS = ['url', 'image_url', 'URL', 'img_url'];
const CAPTION_COLUMNS = ['caption', 'text', 'TEXT', 'alt', 'alt_text', 'title'];

export function detectFormat(file: string): InputFormat {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.gz' || ext === '.zst' || ext === '.bz2') throw new InputError(file, 'compressed lists are not read directly: decompress it first (gunzip -k)');
  if (ext === '.csv') return 'csv';
  if (ext === '.jsonl' || ext === '.json' || ext === '.ndjson') return 'jsonl';
  if (ext === '.parquet') return 'parquet';
  return 'tsv';
}

function pickColumn(file: string, names: readonly string[], wanted: string | undefined, candidates: readonly string[], what: string): string {
  if (wanted !== undefined) {
    if (!names.includes(wanted)) throw new InputError(file, `no ${what} column "${wanted}" (columns: ${names.join(', ')})`);
    return wanted;
  }
  const found = candidates.find((c) => names.includes(c));
  if (!found)
    throw new InputError(file, `no ${what} column: expected one of ${candidates.join(', ')} (columns: ${names.join(', ')}); name it with --${what}-col`);
  return found;
}

function row(url: unknown, caption: unknown, where: string): InputRow {
  const u = typeof url === 'string' ? url.trim() : url === null || url === undefined ? '' : String(url);
  const c = typeof caption === 'string' ? caption : caption === null || caption === undefined ? '' : String(caption);
  if (u === '') return { url: '', caption: c, where, invalid: 'empty url' };
  return { url: u, caption: c, where };
}

async function* tsvRows(file: string, options: ReadInputOptions): AsyncGenerator<InputRow[]> {
  for await (const batch of readTsvBatches(file, {
    layout: options.layout ?? 'auto',
    malformed: 'reject',
    maxLineLength: options.maxLineChars ?? MAX_LINE_LENGTH,
  })) {
    yield batch.map((item) =>
      isReject(item)
        ? { url: '', caption: '', where: `${file}:${item.line}`, invalid: item.reject }
        : { url: item.url, caption: item.caption, where: `${file}:${item.line}` },
    );
  }
}

async function* jsonlRows(file: string, options: ReadInputOptions): AsyncGenerator<InputRow[]> {
  const cap = options.maxLineChars ?? MAX_LINE_LENGTH;
  for await (const { first, lines, overlong } of readLineBatches(file, 1 << 20, cap)) {
    const rows: InputRow[] = [];
    for (const [i, text] of lines.entries()) {
      const where = `${file}:${first + i}`;
      const long = overlong?.get(i);
      if (long !== undefined) {
        rows.push({ url: '', caption: '', where, invalid: overlongReason(long, cap) });
        continue;
      }
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        rows.push({ url: '', caption: '', where, invalid: `malformed JSON: ${(err as Error).message}` });
        continue;
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        rows.push({ url: '', caption: '', where, invalid: 'not a JSON object' });
        continue;
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      const urlKey = options.urlColumn ?? URL_COLUMNS.find((k) => k in record) ?? 'url';
      const captionKey = options.captionColumn ?? CAPTION_COLUMNS.find((k) => k in record) ?? 'caption';
      const r = row(record[urlKey], record[captionKey], where);
      rows.push(r.invalid && !(urlKey in record) ? { ...r, invalid: `no "${urlKey}" field (fields: ${keys.join(', ')})` } : r);
    }
    if (rows.length > 0) yield rows;
  }
}

/**
 * RFC 4180 records (quoted fields may hold commas, quotes and newlines), each with the line it starts on. A record
 * longer than `maxLength` characters is not held: from the cap on it is only scanned (quotes still tracked, so a
 * quoted field that closes past the cap ends where it should) to its end, and reported as one over-long record
 * (`overlong`, its length). A quote that never closes before the end of the file is an error naming the line it
 * opened on (the rest of the file cannot be split into records), never a swallowed file.
 */
async function* csvRecords(file: string, maxLength = MAX_LINE_LENGTH): AsyncGenerator<{ line: number; fields: string[]; overlong?: number }[]> {
  const stream = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  let field = '';
  let fields: string[] = [];
  let recordLength = 0;
  let holding = true; // false once the record passed the cap: scanned, not kept
  let quoted = false;
  let afterQuote = false;
  let line = 1;
  let recordLine = 1;
  let first = true;
  let pendingQuote = false; // a '"' inside quotes at the end of a chunk: an escaped quote or the closing one
  const keep = (ch: string) => {
    if (holding) field += ch;
  };
  for await (const chunk of stream as AsyncIterable<string>) {
    const out: { line: number; fields: string[]; overlong?: number }[] = [];
    let text = chunk;
    if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    first = false;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (++recordLength > maxLength && holding) {
        holding = false;
        fields = [];
        field = '';
      }
      if (pendingQuote) {
        pendingQuote = false;
        if (ch === '"') {
          keep('"');
          continue;
        }
        quoted = false;
        afterQuote = true;
      }
      if (quoted) {
        if (ch === '"') {
          if (i + 1 < text.length) {
            if (text[i + 1] === '"') {
              keep('"');
              i++;
              recordLength++;
            } else {
              quoted = false;
              afterQuote = true;
            }
          } else pendingQuote = true;
        } else {
          if (ch === '\n') line++;
          keep(ch);
        }
        continue;
      }
      if (ch === '"' && (holding ? field === '' : true) && !afterQuote) quoted = true;
      else if (ch === ',') {
        if (holding) fields.push(field);
        field = '';
        afterQuote = false;
      } else if (ch === '\n') {
        if (holding) {
          fields.push(field.endsWith('\r') && !afterQuote ? field.slice(0, -1) : field);
          out.push({ line: recordLine, fields });
        } else out.push({ line: recordLine, fields: [], overlong: recordLength - 1 });
        fields = [];
        field = '';
        afterQuote = false;
        holding = true;
        recordLength = 0;
        line++;
        recordLine = line;
      } else if (ch === '\r' && afterQuote) continue;
      else keep(ch);
    }
    if (out.length > 0) yield out;
  }
  if (quoted && !pendingQuote)
    throw new InputError(file, `line ${recordLine}: a quoted field opened on this line never closes (an unmatched '"'?); the records after it cannot be read`);
  if (!holding) yield [{ line: recordLine, fields: [], overlong: recordLength }];
  else if (field !== '' || fields.length > 0) {
    fields.push(field);
    yield [{ line: recordLine, fields }];
  }
}

async function* csvRows(file: string, options: ReadInputOptions): AsyncGenerator<InputRow[]> {
  let urlIndex = -1;
  let captionIndex = -1;
  let width = 0;
  const cap = options.maxLineChars ?? MAX_LINE_LENGTH;
  for await (const records of csvRecords(file, cap)) {
    const rows: InputRow[] = [];
    for (const { line, fields, overlong } of records) {
      const where = `${file}:${line}`;
      if (overlong !== undefined) {
        if (urlIndex < 0) throw new InputError(file, `line ${line}: a header of ${overlong} characters, longer than the ${cap} allowed (--max-line-chars)`);
        rows.push({ url: '', caption: '', where, invalid: overlongReason(overlong, cap) });
        continue;
      }
      if (urlIndex < 0) {
        const names = fields.map((f) => f.trim());
        urlIndex = names.indexOf(pickColumn(file, names, options.urlColumn, URL_COLUMNS, 'url'));
        captionIndex = names.indexOf(pickColumn(file, names, options.captionColumn, CAPTION_COLUMNS, 'caption'));
        width = names.length;
        continue;
      }
      if (fields.length === 1 && fields[0] === '') continue;
      if (fields.length !== width) rows.push({ url: '', caption: '', where, invalid: `expected ${width} columns, found ${fields.length}` });
      else rows.push(row(fields[urlIndex], fields[captionIndex], where));
    }
    if (rows.length > 0) yield rows;
  }
  if (urlIndex < 0) return; // an empty file: no header, no rows
}

async function* parquetRows(file: string, options: ReadInputOptions): AsyncGenerator<InputRow[]> {
  const parquet = await ParquetFile.open(file);
  const urlColumn = pickColumn(file, parquet.columns, options.urlColumn, URL_COLUMNS, 'url');
  const captionColumn = pickColumn(file, parquet.columns, options.captionColumn, CAPTION_COLUMNS, 'caption');
  let index = 0;
  for await (const batch of parquet.batches(10_000, [urlColumn, captionColumn])) {
    yield batch.map((record) => row(record[urlColumn], record[captionColumn], `${file}#${index++}`));
  }
}

/** The list's rows in order, in batches. */
export function readInputRows(file: string, options: ReadInputOptions = {}): AsyncGenerator<InputRow[]> {
  if (!fs.existsSync(file)) throw new InputError(file, 'no such file');
  const format = options.format === undefined || options.format === 'auto' ? detectFormat(file) : options.format;
  if (format === 'csv') return csvRows(file, options);
  if (format === 'jsonl') return jsonlRows(file, options);
  if (format === 'parquet') return parquetRows(file, options);
  return tsvRows(file, options);
}

/**
 * The list cut into shards: shard `s` holds input rows s·n … s·n + n − 1. The event loop runs between
 * batches, so however the list is read (and whatever the consumer does with rows that fail at once), a
 * long list never keeps Ctrl-C or SIGTERM from being handled.
 */
export async function* inputShards(file: string, samplesPerShard: number, options: ReadInputOptions = {}): AsyncGenerator<{ shard: number; rows: InputRow[] }> {
  let shard = 0;
  let rows: InputRow[] = [];
  for await (const batch of readInputRows(file, options)) {
    await yieldToEventLoop();
    for (const r of batch) {
      rows.push(r);
      if (rows.length === samplesPerShard) {
        yield { shard: shard++, rows };
        rows = [];
      }
    }
  }
  if (rows.length > 0) yield { shard, rows };
}

/**
 * About how many rows the list has, for the progress bar: parquet from its metadata, text formats
 * by counting line ends (a header or a multi-line CSV field makes it a little high).
 */
export async function estimateInputRows(file: string, options: ReadInputOptions = {}): Promise<number> {
  const format = options.format === undefined || options.format === 'auto' ? detectFormat(file) : options.format;
  if (format === 'parquet') return (await ParquetFile.open(file)).rowCount;
  let lines = 0;
  let last = 10;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
    last = chunk[chunk.length - 1] ?? last;
  }
  return lines + (last === 10 ? 0 : 1) - (format === 'csv' ? 1 : 0);
}
