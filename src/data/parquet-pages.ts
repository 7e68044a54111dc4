/**
 * Parquet page headers, read and checked before any page is decoded.
 *
 * A page header is only a claim: a 379-byte file whose data page declares 30M values made the decoder
 * allocate 568 MB before the row-count checks could run, and one declaring 1G values exhausted the heap.
 * `checkPageHeaders` walks every column chunk's page headers (Thrift compact protocol, read here with a
 * depth and size bound) and refuses, before decoding, a page that reaches outside its chunk, a page larger
 * than `PARQUET_PAGE_LIMITS`, or a chunk whose data pages hold another number of values than it declares.
 * Only the headers are read (a few bytes a page), so an honest file pays one short read per page.
 */

/** Bounds on one page of an untrusted parquet file, checked before decoding it. */
export interface ParquetPageLimits {
  /** Largest uncompressed page, in bytes. */
  pageBytes: number;
  /** Most values one page may declare (dictionary or data). */
  pageValues: number;
}

/**
 * pyarrow writes pages of about 1 MB and, since version 13, of at most 20,000 rows; these bounds leave
 * room for older writers while a decoded page stays within tens of megabytes.
 */
export const PARQUET_PAGE_LIMITS: ParquetPageLimits = { pageBytes: 64 << 20, pageValues: 1 << 22 };

/** The bytes of one column chunk as the footer places them. */
export interface ColumnChunkSpan {
  rowGroup: number;
  leaf: string;
  /** Offset of the chunk's first page (its dictionary page where it has one). */
  start: number;
  /** Bytes of the chunk's pages, headers included, as the footer declares them. */
  length: number;
  /** Values the footer declares for the chunk. */
  values: number;
}

interface ByteSource {
  byteLength: number;
  slice(start: number, end?: number): ArrayBuffer | Promise<ArrayBuffer>;
}

/** The fields of a page header checked here. */
interface PageHeaderFacts {
  type: number;
  uncompressedBytes: number;
  compressedBytes: number;
  /** Values a data page (v1 or v2) declares; undefined for other pages. */
  dataValues?: number;
  /** Rows a v2 data page declares. */
  dataRows?: number;
  /** Values a dictionary page declares. */
  dictionaryValues?: number;
  /** Bytes the header itself takes. */
  headerBytes: number;
}

/** A header that does not fit in this many bytes is refused (real ones take tens of bytes plus statistics). */
const MAX_HEADER_BYTES = 1 << 20;
/** Nesting deeper than this is refused (a page header nests three levels). */
const MAX_DEPTH = 16;

/** Walks every chunk's page headers; throws an error naming the file, row group, column and byte offset. */
export async function checkPageHeaders(
  file: string,
  source: ByteSource,
  chunks: readonly ColumnChunkSpan[],
  limits: ParquetPageLimits = PARQUET_PAGE_LIMITS,
): Promise<void> {
  for (const chunk of chunks) {
    const where = `${file}: row group ${chunk.rowGroup}, column ${chunk.leaf}`;
    const end = chunk.start + chunk.length;
    if (chunk.start < 4 || chunk.length < 0 || end > source.byteLength)
      throw new Error(`${where}: its pages (bytes ${chunk.start}–${end}) lie outside the file's ${source.byteLength} bytes`);
    let position = chunk.start;
    let values = 0;
    while (position < end) {
      const window = new Uint8Array(await source.slice(position, Math.min(end, position + MAX_HEADER_BYTES)));
      let header: PageHeaderFacts;
      try {
        header = readPageHeader(window);
      } catch (err) {
        throw new Error(`${where}: the page header at byte ${position} is unreadable (${(err as Error).message})`);
      }
      const page = `${where}: the page at byte ${position}`;
      if (header.compressedBytes < 0 || header.uncompressedBytes < 0) throw new Error(`${page} declares a negative size`);
      if (position + header.headerBytes + header.compressedBytes > end)
        throw new Error(`${page} declares ${header.compressedBytes} bytes, past the end of its column chunk (byte ${end})`);
      if (header.uncompressedBytes > limits.pageBytes)
        throw new Error(`${page} declares ${header.uncompressedBytes} bytes uncompressed, over the ${limits.pageBytes}-byte page limit`);
      const declared = header.dataValues ?? header.dictionaryValues;
      for (const [count, what] of [
        [declared, 'values'],
        [header.dataRows, 'rows'],
      ] as const) {
        if (count === undefined) continue;
        if (count < 0) throw new Error(`${page} declares ${count} ${what}`);
        if (count > limits.pageValues) throw new Error(`${page} declares ${count} ${what}, over the ${limits.pageValues}-value page limit`);
      }
      if (header.dataValues !== undefined) {
        values += header.dataValues;
        if (values > chunk.values) throw new Error(`${page} brings its column's values to ${values}, but the column declares ${chunk.values}`);
      }
      position += header.headerBytes + header.compressedBytes;
    }
    if (values !== chunk.values) throw new Error(`${where}: its pages hold ${values} values, but the column declares ${chunk.values}`);
  }
}

// Thrift compact protocol types (https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md).
const enum Compact {
  True = 1,
  False = 2,
  Byte = 3,
  I16 = 4,
  I32 = 5,
  I64 = 6,
  Double = 7,
  Binary = 8,
  List = 9,
  Set = 10,
  Map = 11,
  Struct = 12,
}

/** A bounded reader over one window of bytes. */
class CompactReader {
  position = 0;
  constructor(private readonly bytes: Uint8Array) {}

  byte(): number {
    if (this.position >= this.bytes.length) throw new Error('the header runs past the bytes available');
    return this.bytes[this.position++]!;
  }

  /** An unsigned varint of at most 64 bits, as a number (exact to 2^53; larger values are refused later as too large). */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new Error('a varint longer than 10 bytes');
  }

  zigzag(): number {
    const n = this.varint();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  skip(bytes: number): void {
    if (bytes < 0 || this.position + bytes > this.bytes.length) throw new Error('a field runs past the bytes available');
    this.position += bytes;
  }

  /** Reads one value of `type`; integers are returned, everything else skipped (undefined). */
  value(type: number, depth: number): number | undefined {
    switch (type) {
      case Compact.True:
      case Compact.False:
        return undefined;
      case Compact.Byte:
        this.skip(1);
        return undefined;
      case Compact.I16:
      case Compact.I32:
      case Compact.I64:
        return this.zigzag();
      case Compact.Double:
        this.skip(8);
        return undefined;
      case Compact.Binary:
        this.skip(this.varint());
        return undefined;
      case Compact.List:
      case Compact.Set: {
        const head = this.byte();
        const size = head >> 4 === 15 ? this.varint() : head >> 4;
        const element = head & 0x0f;
        if (size > this.bytes.length - this.position) throw new Error(`a list of ${size} elements in a short header`);
        for (let i = 0; i < size; i++) {
          if (element === Compact.True || element === Compact.False) this.skip(1);
          else this.value(element, depth + 1);
        }
        return undefined;
      }
      case Compact.Map: {
        const size = this.varint();
        if (size === 0) return undefined;
        const kinds = this.byte();
        if (size > this.bytes.length - this.position) throw new Error(`a map of ${size} entries in a short header`);
        for (let i = 0; i < size; i++) {
          this.value(kinds >> 4, depth + 1);
          this.value(kinds & 0x0f, depth + 1);
        }
        return undefined;
      }
      case Compact.Struct:
        this.struct(depth + 1, () => undefined);
        return undefined;
      default:
        throw new Error(`unknown field type ${type}`);
    }
  }

  /** Reads a struct, calling `field` for each field id; it returns true when it consumed the value itself. */
  struct(depth: number, field: (id: number, type: number) => boolean | undefined): void {
    if (depth > MAX_DEPTH) throw new Error(`nested deeper than ${MAX_DEPTH}`);
    let id = 0;
    for (;;) {
      const head = this.byte();
      if (head === 0) return;
      const type = head & 0x0f;
      const delta = head >> 4;
      id = delta === 0 ? this.zigzag() : id + delta;
      if (!field(id, type)) this.value(type, depth);
    }
  }

  /** An integer field's value (a non-integer type where an integer belongs is an error). */
  integer(type: number): number {
    if (type !== Compact.I16 && type !== Compact.I32 && type !== Compact.I64) throw new Error(`an integer field of type ${type}`);
    return this.zigzag();
  }
}

/** The checked fields of the page header at the start of `bytes`. */
function readPageHeader(bytes: Uint8Array): PageHeaderFacts {
  const reader = new CompactReader(bytes);
  const facts: Partial<PageHeaderFacts> = {};
  // field 1 of DataPageHeader, DictionaryPageHeader and DataPageHeaderV2 is num_values; field 3 of V2 is num_rows
  const counts = (depth: number, v2: boolean): { values?: number; rows?: number } => {
    const found: { values?: number; rows?: number } = {};
    reader.struct(depth, (id, type) => {
      if (id === 1) found.values = reader.integer(type);
      else if (id === 3 && v2) found.rows = reader.integer(type);
      else return false;
      return true;
    });
    return found;
  };
  reader.struct(0, (id, type) => {
    if (id === 1) facts.type = reader.integer(type);
    else if (id === 2) facts.uncompressedBytes = reader.integer(type);
    else if (id === 3) facts.compressedBytes = reader.integer(type);
    else if ((id === 5 || id === 8 || id === 7) && type === Compact.Struct) {
      const { values, rows } = counts(1, id === 8);
      if (values === undefined) throw new Error(`a page header without num_values`);
      if (id === 7) facts.dictionaryValues = values;
      else facts.dataValues = values;
      if (rows !== undefined) facts.dataRows = rows;
    } else return false;
    return true;
  });
  if (facts.type === undefined || facts.uncompressedBytes === undefined || facts.compressedBytes === undefined)
    throw new Error('a page header without its type or sizes');
  return { ...(facts as PageHeaderFacts), headerBytes: reader.position };
}
