/**
 * Image format and dimensions from the first bytes of a file, without decoding any pixels.
 *
 * The image filter (CC3M §3, CC12M §2.2) rejects most web images on format, size and aspect
 * alone, so it reads those from the header: a JPEG's SOF segment (after skipping APPn, DQT, DHT
 * … segments), a PNG's IHDR chunk, a GIF's logical screen descriptor. WebP, BMP, TIFF, HEIF/AVIF
 * and SVG are recognised by their magic bytes only (format, no size: the filter rejects them
 * anyway). Anything else is `unknown`.
 *
 * The parsers work on a prefix too (e.g. the first 64 KiB of a download) and never throw: a
 * header that ends too early is `truncated`, one that breaks its format's rules is `corrupt`,
 * each with a short `detail`.
 */

export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'bmp' | 'tiff' | 'heif' | 'svg' | 'unknown';

export interface ImageHeader {
  format: ImageFormat;
  /** Pixel width and height, when the format's header has them and they could be read. */
  width?: number;
  height?: number;
  /** Why the dimensions could not be read: no bytes, too few bytes, or broken structure. */
  problem?: 'empty' | 'truncated' | 'corrupt';
  /** A short human-readable explanation of `problem`. */
  detail?: string;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

function ascii(text: string): number[] {
  return Array.from(text, (c) => c.charCodeAt(0));
}

const u16be = (b: Uint8Array, i: number): number => (b[i]! << 8) | b[i + 1]!;
const u16le = (b: Uint8Array, i: number): number => b[i]! | (b[i + 1]! << 8);
const u32be = (b: Uint8Array, i: number): number => ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) + (b[i + 2]! << 8) + b[i + 3]!;

/**
 * JPEG start-of-frame markers: SOF0–SOF3, SOF5–SOF7, SOF9–SOF11, SOF13–SOF15
 * (0xC4 is DHT, 0xC8 is reserved JPG, 0xCC is DAC: not frames).
 */
function isSof(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** Walks the marker segments of a JPEG up to its first SOF. `bytes` starts with FF D8. */
function jpegHeader(bytes: Uint8Array): ImageHeader {
  const fail = (problem: 'truncated' | 'corrupt', detail: string): ImageHeader => ({ format: 'jpeg', problem, detail });
  let pos = 2; // after SOI
  for (;;) {
    if (pos >= bytes.length) return fail('truncated', 'ends before the frame header (SOF)');
    if (bytes[pos] !== 0xff) return fail('corrupt', `expected a marker at byte ${pos}`);
    // any number of 0xFF fill bytes may precede a marker
    while (pos < bytes.length && bytes[pos] === 0xff) pos++;
    if (pos >= bytes.length) return fail('truncated', 'ends inside a marker');
    const marker = bytes[pos]!;
    pos++;
    if (marker === 0x00) return fail('corrupt', `stuffed byte where a marker was expected at byte ${pos - 1}`);
    // stand-alone markers: TEM, RST0–7 (no length field)
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if (marker === 0xd8) return fail('corrupt', 'second start-of-image marker');
    if (marker === 0xd9) return fail('corrupt', 'end of image before any frame header');
    if (marker === 0xda) return fail('corrupt', 'scan data before any frame header');
    if (pos + 2 > bytes.length) return fail('truncated', 'ends inside a segment length');
    const length = u16be(bytes, pos); // counts its own two bytes
    if (length < 2) return fail('corrupt', `segment length ${length} < 2`);
    if (isSof(marker)) {
      // length(2) precision(1) height(2) width(2) components(1)
      if (length < 8) return fail('corrupt', `frame header length ${length} < 8`);
      if (pos + 7 > bytes.length) return fail('truncated', 'ends inside the frame header');
      const height = u16be(bytes, pos + 3);
      const width = u16be(bytes, pos + 5);
      // height 0 means "defined later by a DNL marker": legal in theory, unseen on the web, and no
      // decoder we use supports it, so it is treated as broken
      if (width === 0 || height === 0) return { format: 'jpeg', width, height, problem: 'corrupt', detail: 'zero width or height in the frame header' };
      return { format: 'jpeg', width, height };
    }
    pos += length; // APPn, COM, DQT, DHT, DRI, DAC, …
  }
}

function pngHeader(bytes: Uint8Array): ImageHeader {
  // signature(8) length(4) "IHDR"(4) width(4) height(4)
  if (bytes.length < 16) return { format: 'png', problem: 'truncated', detail: 'ends before the IHDR chunk' };
  if (!startsWith(bytes, ascii('IHDR'), 12)) return { format: 'png', problem: 'corrupt', detail: 'first chunk is not IHDR' };
  if (bytes.length < 24) return { format: 'png', problem: 'truncated', detail: 'ends inside the IHDR chunk' };
  const width = u32be(bytes, 16);
  const height = u32be(bytes, 20);
  if (width === 0 || height === 0 || width > 0x7fffffff || height > 0x7fffffff) {
    return { format: 'png', width, height, problem: 'corrupt', detail: 'IHDR dimensions out of range' };
  }
  return { format: 'png', width, height };
}

function gifHeader(bytes: Uint8Array): ImageHeader {
  // "GIF87a"/"GIF89a"(6) logical screen width(2, LE) height(2, LE)
  if (bytes.length < 10) return { format: 'gif', problem: 'truncated', detail: 'ends inside the logical screen descriptor' };
  const width = u16le(bytes, 6);
  const height = u16le(bytes, 8);
  if (width === 0 || height === 0) return { format: 'gif', width, height, problem: 'corrupt', detail: 'zero logical screen size' };
  return { format: 'gif', width, height };
}

/** SVG: XML text whose first element is `<svg`, possibly after a BOM, an XML declaration, comments or a DOCTYPE. */
function looksLikeSvg(bytes: Uint8Array): boolean {
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4096)).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // skip the prolog: whitespace, <?…?>, <!--…-->, <!DOCTYPE …>
  for (;;) {
    text = text.trimStart();
    if (text.startsWith('<?')) {
      const end = text.indexOf('?>');
      if (end < 0) return false;
      text = text.slice(end + 2);
    } else if (text.startsWith('<!--')) {
      const end = text.indexOf('-->');
      if (end < 0) return false;
      text = text.slice(end + 3);
    } else if (/^<!doctype/i.test(text)) {
      const end = text.indexOf('>');
      if (end < 0) return false;
      text = text.slice(end + 1);
    } else break;
  }
  return /^<(?:[A-Za-z_][\w.-]*:)?svg[\s>/]/.test(text);
}

/**
 * Format and (for JPEG, PNG, GIF) dimensions from an image's first bytes. Never throws; reads
 * nothing beyond the bytes given.
 */
export function readImageHeader(bytes: Uint8Array): ImageHeader {
  if (bytes.length === 0) return { format: 'unknown', problem: 'empty', detail: 'zero bytes' };
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return jpegHeader(bytes);
  if (startsWith(bytes, PNG_SIGNATURE)) return pngHeader(bytes);
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return gifHeader(bytes);
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return { format: 'webp' };
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return { format: 'tiff' };
  // ISO BMFF with an image brand: "ftyp" at 4, major brand at 8
  if (startsWith(bytes, ascii('ftyp'), 4) && bytes.length >= 12) {
    const brand = Buffer.from(bytes.buffer, bytes.byteOffset + 8, 4).toString('latin1');
    if (['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1', 'avif', 'avis'].includes(brand)) return { format: 'heif' };
  }
  // "BM" plus a plausible DIB header size at byte 14 (12, 40, 52, 56, 64, 108, 124)
  if (startsWith(bytes, ascii('BM'))) {
    if (bytes.length < 18) return { format: 'bmp', problem: 'truncated', detail: 'ends before the DIB header' };
    const dib = bytes[14]! | (bytes[15]! << 8) | (bytes[16]! << 16) | (bytes[17]! << 24);
    if ([12, 40, 52, 56, 64, 108, 124].includes(dib)) return { format: 'bmp' };
  }
  if (looksLikeSvg(bytes)) return { format: 'svg' };
  if (bytes.length === 2 && bytes[0] === 0xff && bytes[1] === 0xd8)
    return { format: 'jpeg', problem: 'truncated', detail: 'ends after the start-of-image marker' };
  return { format: 'unknown' };
}
