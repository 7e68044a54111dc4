/**
 * Parquet files through hyparquet (reader) and hyparquet-writer (writer): pure JavaScript, no
 * native build, files pyarrow reads. Both are ES modules, loaded on first use so that
 * `require('cckit')` does not pay for them.
 */
import * as fs from 'fs';
import { commitTemporary, discardTemporary, temporaryPath, writeSynced } from '../util/atomic';
import { importEsm } from '../util/esm';

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
  schema: { name: string }[];
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
  }): Promise<Record<string, unknown>[]>;
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

/** An open parquet file: its column names and row count, read in row ranges (bounded memory). */
export class ParquetFile {
  private constructor(
    readonly file: string,
    private readonly buffer: AsyncBuffer,
    private readonly metadata: ParquetMetadata,
    private readonly reader: ParquetReader,
  ) {}

  static async open(file: string): Promise<ParquetFile> {
    const reader = await importEsm<ParquetReader>('hyparquet');
    if (!fs.existsSync(file)) throw new Error(`${file}: no such file`);
    try {
      const buffer = await reader.asyncBufferFromFile(file);
      return new ParquetFile(file, buffer, await reader.parquetMetadataAsync(buffer), reader);
    } catch (err) {
      throw new Error(`${file}: not a readable parquet file (${(err as Error).message})`);
    }
  }

  get rowCount(): number {
    return Number(this.metadata.num_rows);
  }

  /** Top-level column names (the schema's root is left out). */
  get columns(): string[] {
    return this.metadata.schema.slice(1).map((element) => element.name);
  }

  /** Rows [start, end) as objects of the given columns (all columns when omitted). */
  read(start: number, end: number, columns?: string[]): Promise<Record<string, unknown>[]> {
    return this.reader.parquetReadObjects({ file: this.buffer, metadata: this.metadata, columns, rowStart: start, rowEnd: Math.min(end, this.rowCount) });
  }

  /** Every row, `batch` at a time. */
  async *batches(batch = 10_000, columns?: string[]): AsyncGenerator<Record<string, unknown>[]> {
    for (let start = 0; start < this.rowCount; start += batch) yield await this.read(start, start + batch, columns);
  }
}

/** All rows of a small parquet file (a shard's metadata). */
export async function readParquetFile(file: string, columns?: string[]): Promise<Record<string, unknown>[]> {
  const parquet = await ParquetFile.open(file);
  return parquet.read(0, parquet.rowCount, columns);
}
