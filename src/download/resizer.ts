/**
 * Resizer: img2dataset's resize modes on sharp (libvips), with the image filters the papers run
 * (smallest side, aspect ratio) available at download time and a pixel limit judged on the header
 * before anything is decoded (a decompression bomb never reaches the decoder).
 *
 * Modes, as img2dataset's resizer: `no` (as downloaded), `keep_ratio` (smallest side = size),
 * `center_crop` (smallest side = size, then the centre size×size), `keep_ratio_largest` (largest
 * side = size), `border` (largest side = size, then padded to size×size with white). Alpha is
 * flattened onto white when encoding, as img2dataset mattes it.
 *
 * One deliberate difference: an image that is not resized keeps its downloaded bytes unless
 * `reencode` is set (img2dataset re-encodes by default; its `skip_reencode` is cckit's default),
 * so `--resize-mode no` never decodes and the stored image's SHA-256 is the downloaded one's.
 */
import type { ImageExt } from '../data/webdataset';
import { loadSharp } from '../util/sharp';

export type ResizeMode = 'no' | 'border' | 'keep_ratio' | 'keep_ratio_largest' | 'center_crop';
export const RESIZE_MODES: readonly ResizeMode[] = ['no', 'border', 'keep_ratio', 'keep_ratio_largest', 'center_crop'];
export type EncodeFormat = 'jpg' | 'png' | 'webp';
export const ENCODE_FORMATS: readonly EncodeFormat[] = ['jpg', 'png', 'webp'];

export interface ResizeOptions {
  mode: ResizeMode;
  /** Target size in pixels (img2dataset's image_size, default 256). */
  imageSize: number;
  /** Only shrink, never enlarge (img2dataset's resize_only_if_bigger). */
  onlyIfBigger: boolean;
  encodeFormat: EncodeFormat;
  /** JPEG/WebP quality 1–100 (default 95, img2dataset's); PNG compression level 0–9. */
  encodeQuality: number;
  /** Re-encode images that were not resized too (img2dataset's default; cckit's is to keep the bytes). */
  reencode: boolean;
  /** Reject when the smaller side is below this (img2dataset's min_image_size; CC3M/CC12M: 400). */
  minSize: number;
  /** Reject when the longer side over the shorter exceeds this (max_aspect_ratio; CC3M: 2, CC12M: 2.5); Infinity or 0: no limit. */
  maxAspect: number;
  /** Reject before decoding when width × height exceeds this (decompression bombs). */
  maxPixels: number;
}

export const DEFAULT_RESIZE: Readonly<ResizeOptions> = Object.freeze({
  mode: 'border',
  imageSize: 256,
  onlyIfBigger: false,
  encodeFormat: 'jpg',
  encodeQuality: 95,
  reencode: false,
  minSize: 0,
  maxAspect: Infinity,
  // the image filters' decompression-bomb limit (filters/image.ts)
  maxPixels: 50_000_000,
});

export type ResizeResult =
  { ok: true; image: Buffer; ext: ImageExt; width: number; height: number; originalWidth: number; originalHeight: number } | { ok: false; error: string };

const FORMAT_EXT: Record<string, ImageExt> = { jpeg: 'jpg', png: 'png', webp: 'webp', gif: 'gif' };

/** Checks the options (the CLI's messages name the flags). */
export function validateResize(options: ResizeOptions): void {
  if (!RESIZE_MODES.includes(options.mode)) throw new Error(`resize mode must be one of ${RESIZE_MODES.join(', ')}, got ${options.mode}`);
  if (!ENCODE_FORMATS.includes(options.encodeFormat)) throw new Error(`encode format must be one of ${ENCODE_FORMATS.join(', ')}`);
  if (!Number.isInteger(options.imageSize) || options.imageSize < 1) throw new Error(`image size must be a positive integer, got ${options.imageSize}`);
  const [low, high] = options.encodeFormat === 'png' ? [0, 9] : [1, 100];
  if (!Number.isInteger(options.encodeQuality) || options.encodeQuality < low || options.encodeQuality > high)
    throw new Error(`encode quality for ${options.encodeFormat} must be an integer in ${low}..${high}, got ${options.encodeQuality}`);
}

/** Whether this mode, at this original size, changes the pixel size. */
function resizes(options: ResizeOptions, width: number, height: number): boolean {
  if (options.mode === 'no') return false;
  const side = options.mode === 'keep_ratio' || options.mode === 'center_crop' ? Math.min(width, height) : Math.max(width, height);
  if (options.onlyIfBigger && side <= options.imageSize) return false;
  return true;
}

/** Resizes (or keeps) one downloaded image; failures carry img2dataset's error messages where it has one. */
export async function resizeImage(bytes: Buffer, options: ResizeOptions): Promise<ResizeResult> {
  const sharp = loadSharp();
  let meta: { width?: number; height?: number; format?: string; orientation?: number; hasAlpha?: boolean };
  try {
    // header only: sizes and format before a single pixel is decoded
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    return { ok: false, error: 'image decoding error' };
  }
  const format = meta.format ?? 'unknown';
  if (format === 'svg' || format === 'pdf' || format === 'magick') return { ok: false, error: `unsupported format ${format}` };
  let width = meta.width ?? 0;
  let height = meta.height ?? 0;
  if (width <= 0 || height <= 0) return { ok: false, error: 'image decoding error' };
  if (width * height > options.maxPixels) return { ok: false, error: 'image area too large' };
  // EXIF orientations 5–8 swap the axes once the image is turned upright
  if ((meta.orientation ?? 1) >= 5) [width, height] = [height, width];
  if (Math.min(width, height) < options.minSize) return { ok: false, error: 'image too small' };
  if (options.maxAspect > 0 && Math.max(width, height) / Math.min(width, height) > options.maxAspect) return { ok: false, error: 'aspect ratio too large' };

  const sized = resizes(options, width, height);
  const ext = FORMAT_EXT[format];
  if (!sized && !options.reencode && ext !== undefined && (meta.orientation ?? 1) === 1) {
    return { ok: true, image: bytes, ext, width, height, originalWidth: width, originalHeight: height };
  }
  try {
    let pipeline = sharp(bytes, { limitInputPixels: options.maxPixels, failOn: 'error' }).rotate();
    const size = options.imageSize;
    const white = { r: 255, g: 255, b: 255, alpha: 1 };
    if (sized) {
      if (options.mode === 'keep_ratio') pipeline = pipeline.resize(size, size, { fit: 'outside' });
      else if (options.mode === 'center_crop') pipeline = pipeline.resize(size, size, { fit: 'cover', position: 'centre' });
      else if (options.mode === 'keep_ratio_largest') pipeline = pipeline.resize(size, size, { fit: 'inside' });
      else pipeline = pipeline.resize(size, size, { fit: 'contain', background: white });
    }
    pipeline = pipeline.flatten({ background: white });
    if (options.encodeFormat === 'jpg') pipeline = pipeline.jpeg({ quality: options.encodeQuality });
    else if (options.encodeFormat === 'png') pipeline = pipeline.png({ compressionLevel: options.encodeQuality });
    else pipeline = pipeline.webp({ quality: options.encodeQuality });
    const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
    return { ok: true, image: data, ext: options.encodeFormat, width: info.width, height: info.height, originalWidth: width, originalHeight: height };
  } catch (err) {
    const message = (err as Error).message;
    if (/pixel limit/i.test(message)) return { ok: false, error: 'image area too large' };
    return { ok: false, error: 'image decoding error' };
  }
}
