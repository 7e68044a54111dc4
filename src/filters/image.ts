/**
 * The image-based filter of both papers.
 *
 * CC3M (Sharma et al. 2018), §3 "Image-based Filtering": keep only JPEG images whose both
 * dimensions are greater than 400 pixels and whose ratio of larger to smaller dimension is no
 * more than 2; exclude images that trigger pornography or profanity detectors.
 * CC12M (Changpinyo et al. 2021), §2.2: the same filter relaxed — JPEG only, size larger than
 * 400 pixels (the paper does not say which side), aspect ratio no more than 2.5, pornography
 * detector kept.
 *
 * Two layers, cheapest first:
 * 1. `checkImage` (synchronous, header only, see image-header.ts): empty input, format by magic
 *    bytes (never by URL or Content-Type), header dimensions, pixel count (decompression bombs),
 *    minimum size, aspect ratio. An SVG is rejected here as a non-JPEG, so it is never rendered
 *    and any external reference in it is never fetched.
 * 2. `ImageFilter.check` (async), only for images that passed 1: one full decode with sharp to
 *    the detector's input size, which both proves the JPEG decodes (truncated downloads and
 *    corrupt scans are `image:corrupt`) and feeds the pornography detector (nsfw.ts).
 *    Decision: the decode check is on by default (`verifyDecode`). It costs a few ms per kept
 *    image thanks to JPEG shrink-on-load, it is done anyway when the detector runs, and a corrupt
 *    image that reaches training would break the feature extractor later; it is never run on
 *    images the header already rejected.
 *
 * Reasons are short stable strings: `image:empty`, `image:format:<png|gif|webp|bmp|tiff|heif|svg|unknown>`,
 * `image:corrupt`, `image:pixels`, `image:too-small`, `image:aspect`, `image:nsfw`, and
 * `image:missing` (a pair without bytes, `verdict` only).
 */
import { ImageFormat, readImageHeader } from './image-header';
import { DEFAULT_NSFW_MODEL, DecodeOptions, NSFW_INPUT_SIZE, NsfwBackend, NsfwDetector, NsfwModelName, NsfwStats, decodeRgb, sharedNsfwDetector } from './nsfw';
import { CandidatePair, Verdict, keep, reject } from './types';

/**
 * Which side must exceed `minSide`. `both` and `shorter` are the same rule (both sides > N ⇔ the
 * shorter side > N); `longer` only asks the larger side to exceed N.
 */
export type SizeRule = 'both' | 'shorter' | 'longer';

export interface ImageFilterOptions {
  /** Formats kept, judged by magic bytes. CC3M §3 and CC12M §2.2: JPEG only. */
  formats: readonly ImageFormat[];
  /** A side must be strictly greater than this many pixels. CC3M §3 and CC12M §2.2: 400. */
  minSide: number;
  /** Which side `minSide` applies to (CC3M §3: both; CC12M §2.2 does not say, see the preset). */
  sizeRule: SizeRule;
  /** Largest allowed larger/smaller side ratio (inclusive). CC3M §3: 2; CC12M §2.2: 2.5. */
  maxAspect: number;
  /**
   * Decompression-bomb limit: images whose header claims more pixels are rejected before any
   * decode, and sharp refuses to decode more. Not in the papers (cckit's safety limit).
   */
  maxPixels: number;
  /** Decode every image that passes the header checks and reject those that fail (cckit's choice, see above). */
  verifyDecode: boolean;
  /**
   * What the decode check rejects (sharp `failOn`): `truncated` only cut-off files; `error` also
   * decoder errors; `warning` also any libjpeg warning (corrupt entropy data, a scan that ends
   * early and leaves the image grey, extraneous bytes between segments). cckit's default is
   * `warning`, sharp's own default: a caption dataset loses little by dropping a garbled image.
   */
  decodeFailOn: 'truncated' | 'error' | 'warning';
  /** Run the pornography detector (CC3M §3, CC12M §2.2). `false` for fast runs and tests of other stages. */
  nsfw: boolean;
  /**
   * Reject when P(porn) + P(hentai) ≥ this. The papers use an internal detector and give no
   * threshold; 0.5 means the explicit classes together outweigh all others (cckit's choice).
   */
  nsfwThreshold: number;
  /** NSFWJS bundled model (default MobileNetV2Mid, see nsfw.ts). */
  nsfwModel?: NsfwModelName;
  /** tfjs backends to try in order (default tensorflow, wasm, cpu). */
  nsfwBackends?: NsfwBackend[];
}

/** CC3M §3: JPEG, both sides > 400 px, aspect ≤ 2, pornography detector. */
export const CC3M_IMAGE_FILTER: Readonly<ImageFilterOptions> = Object.freeze({
  formats: Object.freeze(['jpeg'] as ImageFormat[]), // §3 "only keep JPEG images"
  minSide: 400, // §3 "both dimensions are greater than 400 pixels"
  sizeRule: 'both' as SizeRule, // §3 "both dimensions"
  maxAspect: 2, // §3 "ratio of larger to smaller dimension is no more than 2"
  maxPixels: 50_000_000, // cckit: decompression-bomb limit
  verifyDecode: true, // cckit: truncated / corrupt JPEGs out
  decodeFailOn: 'warning' as const, // cckit: any decoder warning is corruption
  nsfw: true, // §3 "excludes images that trigger pornography … detectors"
  nsfwThreshold: 0.5, // cckit: the paper's detector and threshold are internal
});

/**
 * CC12M §2.2: JPEG, size > 400 px, aspect ≤ 2.5, pornography detector.
 *
 * The paper says the image size must be larger than 400 pixels without naming the side. The
 * default reads it as the shorter side (`shorter`, the same rule as CC3M's "both dimensions"):
 * §2.2 presents CC12M's image filter as CC3M's with only the aspect ratio relaxed, and a
 * 1600×300 banner is not the kind of image either dataset keeps. `sizeRule: 'longer'` gives the
 * permissive reading.
 */
export const CC12M_IMAGE_FILTER: Readonly<ImageFilterOptions> = Object.freeze({
  formats: Object.freeze(['jpeg'] as ImageFormat[]), // §2.2 JPEG only, as CC3M
  minSide: 400, // §2.2 "larger than 400 pixels"
  sizeRule: 'shorter' as SizeRule, // §2.2 does not say which side: cckit's reading, see above
  maxAspect: 2.5, // §2.2 "ratio of larger to smaller dimension is no more than 2.5"
  maxPixels: 50_000_000, // cckit: decompression-bomb limit
  verifyDecode: true, // cckit: truncated / corrupt JPEGs out
  decodeFailOn: 'warning' as const, // cckit: any decoder warning is corruption
  nsfw: true, // §2.2 keeps the pornography filter
  nsfwThreshold: 0.5, // cckit: the paper's detector and threshold are internal
});

/** The outcome of checking one image. */
export interface ImageCheck {
  keep: boolean;
  /** Why it was rejected (absent when kept). */
  reason?: string;
  /** More detail on some rejections (which header rule broke, the decoder's message). */
  detail?: string;
  format: ImageFormat;
  /** Dimensions from the header, when it has them. */
  width?: number;
  height?: number;
  /** P(porn) + P(hentai), when the detector ran. */
  nsfwScore?: number;
}

function sideOk(width: number, height: number, options: Pick<ImageFilterOptions, 'minSide' | 'sizeRule'>): boolean {
  const side = options.sizeRule === 'longer' ? Math.max(width, height) : Math.min(width, height);
  return side > options.minSide;
}

/**
 * The cheap checks, from the header alone: empty, format, corrupt/truncated header, pixel
 * limit, minimum size, aspect ratio (in that order). Never decodes and never throws.
 */
export function checkImage(bytes: Uint8Array, options: Readonly<ImageFilterOptions> = CC3M_IMAGE_FILTER): ImageCheck {
  if (bytes.length === 0) return { keep: false, reason: 'image:empty', format: 'unknown' };
  const header = readImageHeader(bytes);
  const { format, width, height } = header;
  const base: ImageCheck = { keep: false, format };
  if (width !== undefined) base.width = width;
  if (height !== undefined) base.height = height;
  if (!options.formats.includes(format)) return { ...base, reason: `image:format:${format}` };
  if (header.problem !== undefined || width === undefined || height === undefined) {
    return { ...base, reason: 'image:corrupt', detail: header.detail ?? 'no dimensions in the header' };
  }
  if (width * height > options.maxPixels) return { ...base, reason: 'image:pixels', detail: `${width}×${height} > ${options.maxPixels} pixels` };
  if (!sideOk(width, height, options))
    return { ...base, reason: 'image:too-small', detail: `${width}×${height}, ${options.sizeRule} side must be > ${options.minSide}` };
  const aspect = Math.max(width, height) / Math.min(width, height);
  if (aspect > options.maxAspect) return { ...base, reason: 'image:aspect', detail: `${aspect.toFixed(3)} > ${options.maxAspect}` };
  return { ...base, keep: true };
}

export interface ImageFilterStats {
  checked: number;
  kept: number;
  /** Rejections per reason. */
  rejected: Record<string, number>;
  /** Images decoded (passed the header checks) and their mean decode wall time, ms (includes waiting when checks run concurrently). */
  decoded: number;
  decodeMeanMs: number;
  /** The detector's backend, load time and per-image time, once it has been loaded. */
  nsfw?: NsfwStats;
}

/** The full image filter: header checks, then one decode and the pornography detector for survivors. */
export class ImageFilter {
  readonly options: Readonly<ImageFilterOptions>;
  private detector: NsfwDetector | undefined;
  private counts = { checked: 0, kept: 0, decoded: 0, decodeMs: 0 };
  private rejected: Record<string, number> = {};

  constructor(options: Partial<ImageFilterOptions> = {}, base: Readonly<ImageFilterOptions> = CC3M_IMAGE_FILTER) {
    this.options = Object.freeze({ ...base, ...options });
  }

  /** Checks one image's bytes. Never throws on bad input (a detector that cannot load does throw). */
  async check(bytes: Uint8Array): Promise<ImageCheck> {
    const result = await this.checkInner(bytes);
    this.counts.checked++;
    if (result.keep) this.counts.kept++;
    else this.rejected[result.reason!] = (this.rejected[result.reason!] ?? 0) + 1;
    return result;
  }

  private async checkInner(bytes: Uint8Array): Promise<ImageCheck> {
    const cheap = checkImage(bytes, this.options);
    const { verifyDecode, nsfw } = this.options;
    if (!cheap.keep || (!verifyDecode && !nsfw)) return cheap;
    const size = NSFW_INPUT_SIZE[this.options.nsfwModel ?? DEFAULT_NSFW_MODEL];
    const decode: DecodeOptions = { maxPixels: this.options.maxPixels, failOn: this.options.decodeFailOn };
    let rgb: Uint8Array;
    const start = performance.now();
    try {
      const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
      rgb = await decodeRgb(buffer, size, decode);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ...cheap, keep: false, reason: 'image:corrupt', detail: message.split('\n')[0] };
    } finally {
      this.counts.decoded++;
      this.counts.decodeMs += performance.now() - start;
    }
    if (!nsfw) return cheap;
    this.detector ??= await sharedNsfwDetector({ model: this.options.nsfwModel, backends: this.options.nsfwBackends });
    const { score } = await this.detector.classifyRgb(rgb, size, size);
    if (score >= this.options.nsfwThreshold) return { ...cheap, keep: false, reason: 'image:nsfw', nsfwScore: score };
    return { ...cheap, nsfwScore: score };
  }

  /** The pipeline form: keeps the caption unchanged or rejects with the reason. */
  async verdict(pair: CandidatePair): Promise<Verdict> {
    if (pair.image === undefined) return reject('image:missing');
    const result = await this.check(pair.image);
    return result.keep ? keep(pair.caption) : reject(result.reason!);
  }

  stats(): ImageFilterStats {
    const stats: ImageFilterStats = {
      checked: this.counts.checked,
      kept: this.counts.kept,
      rejected: { ...this.rejected },
      decoded: this.counts.decoded,
      decodeMeanMs: this.counts.decoded ? this.counts.decodeMs / this.counts.decoded : 0,
    };
    if (this.detector) stats.nsfw = this.detector.stats();
    return stats;
  }
}
