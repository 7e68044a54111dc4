/**
 * Parquet files through hyparquet (reader) and hyparquet-writer (writer): pure JavaScript, no
 * native build, files pyarrow reads. Both are ES modules, loaded on first use so that
 * `require('cckit')` does not pay for them.
 */
import * as fs from 'fs';
import { commitTemporary, discardTemporary, temporaryPath, writeSynced } from '../util/atomic';
import { importEsm } from '../util/esm';
import { checkPageHeaders, PARQUET_PAGE_LIMITS, type ColumnChunkSpan, type ParquetPageLimits } from './parquet-pages';
import { yieldToEventLoop } from '../util/event-loop';

export type ParquetColumnType = 'STRING' | 'INT32' | 'INT64' | 'DOUBLE' | 'BOOLEAN';

export interface ParquetColumn {
  name: string;
  type: ParquetColumnType;
  data: unknown[];
}

/** The few calls of hyparquet-writer used here. */
interface ParquetWriter {
  parquetWriteBuffer(options: { columnData: { name: string; type: string; data: unknown[] }[]; createdBy?: string }): ArrayBuffer;
}

/** hyparquet's reader, the calls used here. */
interface AsyncBuffer {
  byteLength: number;
  slice(start: number, end?: number): ArrayBuffer | Promise<ArrayBuffer>;
}
interface ParquetMetadata {
  num_rows: bigint | number;
  schema: { name: string; repetition_type?: string }[];
  row_groups: { num_rows: bigint | number; columns: { meta_data?: ColumnChunkMetadata }[] }[];
}
interface ColumnChunkMetadata {
  path_in_schema: string[];
  num_values: bigint | number;
  total_compressed_size: bigint | number;
  data_page_offset: bigint | number;
  dictionary_page_offset?: bigint | number;
}
/** One decoded page of one leaf column: rows [rowStart, rowEnd) of the file (it may reach outside the rows asked for). */
interface ParquetPage {
  pathInSchema: string[];
  rowStart: number;
  rowEnd: number;
}
interface ParquetReader {
  asyncBufferFromFile(file: string): Promise<AsyncBuffer>;
  parquetMetadataAsync(file: AsyncBuffer): Promise<ParquetMetadata>;
  parquetReadObjects(options: {
    file: AsyncBuffer;
    metadata?: ParquetMetadata;
    columns?: string[];
    rowStart?: number;
    rowEnd?: number;
    onPage?: (page: ParquetPage) => void;
  }): Promise<Record<string, unknown>[]>;
}

/** A row group's place in the file: rows [start, end). */
interface RowGroupSpan {
  index: number;
  start: number;
  end: number;
}

/** Writes columns (all the same length) to `file` atomically. */
export async function writeParquetFile(file: string, columns: readonly ParquetColumn[], createdBy = 'cckit'): Promise<void> {
  const writer = await importEsm<ParquetWriter>('hyparquet-writer');
  const rows = columns[0]?.data.length ?? 0;
  for (const column of columns)
    if (column.data.length !== rows) throw new Error(`${file}: column ${column.name} has ${column.data.length} values, expected ${rows}`);
  const buffer = writer.parquetWriteBuffer({ columnData: columns.map((c) => ({ name: c.name, type: c.type, data: c.data })), createdBy });
  const temporary = temporaryPath(file);
  try {
    writeSynced(temporary, new Uint8Array(buffer), 'wx');
    commitTemporary(temporary, file);
  } catch (err) {
    discardTemporary(temporary);
    throw err;
  }
}

/**
 * An open parquet file: its column names and row count, read in row ranges (bounded memory).
 *
 * A list file is untrusted input, and its footer's row counts are only claims: `open` refuses a footer
 * whose total disagrees with its row groups, or a row group whose columns declare another number of
 * values; `read` refuses a row group whose pages hold fewer or more rows than it declares. So a file
 * that overstates its rows fails at once instead of yielding empty batches for ever, and one that
 * understates them fails instead of silently dropping the rest. Errors name the file and the row group.
 */
export class ParquetFile {
  private constructor(
    readonly file: string,
    private readonly buffer: AsyncBuffer,
    private readonly metadata: ParquetMetadata,
    private readonly reader: ParquetReader,
    private readonly groups: readonly RowGroupSpan[],
    readonly rowCount: number,
  ) {}

  /**
   * Opens `file` and checks its footer's row counts and every page header against `limits` (see
   * parquet-pages.ts) before any page is decoded.
   */
  static async open(file: string, limits: ParquetPageLimits = PARQUET_PAGE_LIMITS): Promise<ParquetFile> {
    const reader = await importEsm<ParquetReader>('hyparquet');
    if (!fs.existsSync(file)) throw new Error(`${file}: no such file`);
    let buffer: AsyncBuffer;
    let metadata: ParquetMetadata;
    try {
      buffer = await reader.asyncBufferFromFile(file);
      metadata = await reader.parquetMetadataAsync(buffer);
    } catch (err) {
      throw new Error(`${file}: not a readable parquet file (${(err as Error).message})`);
    }
    const { groups, rows } = checkRowCounts(file, metadata);
    await checkPageHeaders(file, buffer, columnChunkSpans(file, metadata), limits);
    return new ParquetFile(file, buffer, metadata, reader, groups, rows);
  }

  /** Top-level column names (the schema's root is left out). */
  get columns(): string[] {
    return this.metadata.schema.slice(1).map((element) => element.name);
  }

  /**
   * Rows [start, end) as objects of the given columns (all columns when omitted). Throws where a row
   * group's pages do not hold the rows it declares.
   */
  async read(start: number, end: number, columns?: string[]): Promise<Record<string, unknown>[]> {
    end = Math.min(end, this.rowCount);
    if (end <= start) return [];
    // rows of [start, end) found in the pages of each (row group, leaf column)
    const found = new Map<string, number>();
    let overflow: string | undefined;
    const rows = await this.reader.parquetReadObjects({
      file: this.buffer,
      metadata: this.metadata,
      columns,
      rowStart: start,
      rowEnd: end,
      onPage: (page) => {
        const group = this.groupAt(page.rowStart);
        const leaf = page.pathInSchema.join('.');
        if (!group || page.rowEnd > group.end) {
          overflow ??= group
            ? `row group ${group.index} declares ${group.end - group.start} rows, but column ${leaf} holds at least ${page.rowEnd - group.start}`
            : `column ${leaf} holds rows past the ${this.rowCount} the file declares`;
          return;
        }
        const key = `${group.index} ${leaf}`;
        found.set(key, (found.get(key) ?? 0) + Math.max(0, Math.min(page.rowEnd, end) - Math.max(page.rowStart, start)));
      },
    });
    if (overflow) throw new Error(`${this.file}: ${overflow}`);
    for (const group of this.groups) {
      const wanted = Math.min(group.end, end) - Math.max(group.start, start);
      if (wanted <= 0) continue;
      for (const leaf of this.leaves(group.index, columns)) {
        const got = found.get(`${group.index} ${leaf}`) ?? 0;
        if (got !== wanted)
          throw new Error(
            `${this.file}: row group ${group.index} declares ${group.end - group.start} rows, but column ${leaf} holds fewer (${got} of rows ${Math.max(group.start, start)}–${Math.min(group.end, end) - 1})`,
          );
      }
    }
    if (rows.length !== end - start) throw new Error(`${this.file}: rows ${start}–${end - 1} read as ${rows.length} rows`);
    return rows;
  }

  /**
   * Every row, `batch` at a time. Between batches the event loop runs, so a long file never keeps
   * Ctrl-C or SIGTERM from being handled.
   */
  async *batches(batch = 10_000, columns?: string[]): AsyncGenerator<Record<string, unknown>[]> {
    for (let start = 0; start < this.rowCount; start += batch) {
      yield await this.read(start, start + batch, columns);
      await yieldToEventLoop();
    }
  }

  /** The row group holding row `row` (groups without rows hold none). */
  private groupAt(row: number): RowGroupSpan | undefined {
    let low = 0;
    let high = this.groups.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const group = this.groups[middle]!;
      if (row < group.start) high = middle - 1;
      else if (row >= group.end) low = middle + 1;
      else return group;
    }
    return undefined;
  }

  /** The leaf columns of row group `index` under the given top-level columns (all when omitted). */
  private leaves(index: number, columns?: readonly string[]): string[] {
    const paths = this.metadata.row_groups[index]!.columns.flatMap((chunk) => (chunk.meta_data ? [chunk.meta_data.path_in_schema] : []));
    return paths.filter((p) => !columns || columns.includes(p[0]!)).map((p) => p.join('.'));
  }
}

/** A footer row count as a number, refused when negative or past 2^53 (no file holds that many rows). */
function rowNumber(file: string, value: bigint | number, what: string): number {
  const n = typeof value === 'bigint' ? value : BigInt(Number.isInteger(value) ? value : -1);
  if (n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${file}: ${what} declares ${String(value)} rows, not a row count`);
  return Number(n);
}

/**
 * The footer's claims checked against each other: its total is the sum of its row groups', and every
 * leaf column of a row group declares a value per row (a top-level column not repeated exactly one,
 * the others at least one: each row has a value or a null, a list at least its level).
 */
function checkRowCounts(file: string, metadata: ParquetMetadata): { groups: RowGroupSpan[]; rows: number } {
  const total = rowNumber(file, metadata.num_rows, 'its footer');
  const repeated = new Set(metadata.schema.filter((element) => element.repetition_type === 'REPEATED').map((element) => element.name));
  const groups: RowGroupSpan[] = [];
  let start = 0;
  metadata.row_groups.forEach((group, index) => {
    const rows = rowNumber(file, group.num_rows, `row group ${index}`);
    for (const chunk of group.columns) {
      if (!chunk.meta_data) continue;
      const values = Number(chunk.meta_data.num_values);
      const leaf = chunk.meta_data.path_in_schema;
      const single = leaf.length === 1 && !repeated.has(leaf[0]!);
      if (values < rows || (single && values !== rows))
        throw new Error(
          `${file}: row group ${index} declares ${rows} rows, but its column ${leaf.join('.')} declares ${String(chunk.meta_data.num_values)} values`,
        );
    }
    groups.push({ index, start, end: start + rows });
    start += rows;
  });
  if (start !== total) throw new Error(`${file}: the footer declares ${total} rows, but its ${groups.length} row groups declare ${start}`);
  return { groups: groups.filter((group) => group.end > group.start), rows: total };
}

/** Where each column chunk's pages lie, from the footer (offsets past 2^53 are refused). */
function columnChunkSpans(file: string, metadata: ParquetMetadata): ColumnChunkSpan[] {
  const spans: ColumnChunkSpan[] = [];
  metadata.row_groups.forEach((group, rowGroup) => {
    for (const chunk of group.columns) {
      const meta = chunk.meta_data;
      if (!meta) continue;
      const leaf = meta.path_in_schema.join('.');
      const offsets = [meta.data_page_offset, meta.dictionary_page_offset]
        .filter((offset): offset is bigint | number => offset !== undefined && Number(offset) > 0)
        .map((offset) => byteCount(file, offset, `row group ${rowGroup}, column ${leaf}: a page offset`));
      spans.push({
        rowGroup,
        leaf,
        start: offsets.length ? Math.min(...offsets) : 0,
        length: byteCount(file, meta.total_compressed_size, `row group ${rowGroup}, column ${leaf}: its size`),
        values: Number(meta.num_values),
      });
    }
  });
  return spans;
}

/** A footer byte count or offset as a number, refused when negative or past 2^53. */
function byteCount(file: string, value: bigint | number, what: string): number {
  const n = BigInt(value);
  if (n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${file}: ${what} is ${String(value)} bytes`);
  return Number(n);
}

/** All rows of a small parquet file (a shard's metadata). */
export async function readParquetFile(file: string, columns?: string[]): Promise<Record<string, unknown>[]> {
  const parquet = await ParquetFile.open(file);
  // in batches: a row count that lies is caught on its first batch, before rows are made for all it claims
  const rows: Record<string, unknown>[] = [];
  for await (const batch of parquet.batches(10_000, columns)) for (const row of batch) rows.push(row);
  return rows;
}
