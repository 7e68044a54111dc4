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
 * Which size is judged. The papers filter the image on the web. A shard written by `cckit download
 * --resize-mode border --image-size 256` (or img2dataset) holds a 256-px copy, and its `KEY.json`
 * records the web image's `original_width` / `original_height`: the size and aspect rules judge
 * that original size where the input gives it (`checkImage(bytes, options, original)`,
 * `CandidatePair.originalSize`), and the image's own header otherwise. Format, pixel limit and the
 * decode check always judge the bytes at hand. `ImageCheck.judged` and the reject's detail say
 * which size was judged; `ImageFilter.stats().sizesJudged` counts both.
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
  /**
   * The size the size and aspect rules judged: the web image's (`original`, from the shard's JSON)
   * or the bytes' own header (`decoded`). Absent when an earlier check rejected the image.
   */
  judged?: { width: number; height: number; from: SizeSource };
  /** P(porn) + P(hentai), when the detector ran. */
  nsfwScore?: number;
}

/** Where a judged size came from: the input's record of the web image, or the image bytes themselves. */
export type SizeSource = 'original' | 'decoded';

/** A positive whole number of pixels, or undefined (a shard's JSON is input: anything else is ignored). */
function pixels(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** The original size a shard's `KEY.json` records (`original_width`, `original_height`), when both are there. */
export function originalSizeOf(json: Record<string, unknown>): { width: number; height: number } | undefined {
  const width = pixels(json.original_width);
  const height = pixels(json.original_height);
  return width !== undefined && height !== undefined ? { width, height } : undefined;
}

function sideOk(width: number, height: number, options: Pick<ImageFilterOptions, 'minSide' | 'sizeRule'>): boolean {
  const side = options.sizeRule === 'longer' ? Math.max(width, height) : Math.min(width, height);
  return side > options.minSide;
}

const SIZE_SOURCE_NOTE: Record<SizeSource, string> = { original: "original, from the shard's JSON", decoded: 'decoded' };
const SIZE_RULE_TEXT: Record<SizeRule, string> = { both: 'both sides', shorter: 'the shorter side', longer: 'the longer side' };

/**
 * The cheap checks, from the header alone: empty, format, corrupt/truncated header, pixel
 * limit, minimum size, aspect ratio (in that order). Never decodes and never throws. With
 * `original` (the web image's size, when the bytes are a resized copy), the size and aspect rules
 * judge it instead of the header's size.
 */
export function checkImage(
  bytes: Uint8Array,
  options: Readonly<ImageFilterOptions> = CC3M_IMAGE_FILTER,
  original?: { width: number; height: number },
): ImageCheck {
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
  const judged = original ? { ...original, from: 'original' as const } : { width, height, from: 'decoded' as const };
  base.judged = judged;
  const size = `${judged.width}×${judged.height} (${SIZE_SOURCE_NOTE[judged.from]}${judged.from === 'original' ? `; the shard holds ${width}×${height}` : ''})`;
  if (!sideOk(judged.width, judged.height, options))
    return { ...base, reason: 'image:too-small', detail: `${size}: ${SIZE_RULE_TEXT[options.sizeRule]} must be > ${options.minSide}` };
  const aspect = Math.max(judged.width, judged.height) / Math.min(judged.width, judged.height);
  if (aspect > options.maxAspect) return { ...base, reason: 'image:aspect', detail: `aspect ${aspect.toFixed(3)} > ${options.maxAspect}, ${size}` };
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
  /** Images whose size and aspect were judged, by where the size came from (SizeSource). */
  sizesJudged: Record<SizeSource, number>;
  /** The detector's backend, load time and per-image time, once it has been loaded. */
  nsfw?: NsfwStats;
}

/** The full image filter: header checks, then one decode and the pornography detector for survivors. */
export class ImageFilter {
  readonly options: Readonly<ImageFilterOptions>;
  private detector: NsfwDetector | undefined;
  private counts = { checked: 0, kept: 0, decoded: 0, decodeMs: 0 };
  private rejected: Record<string, number> = {};
  private sizesJudged: Record<SizeSource, number> = { original: 0, decoded: 0 };

  constructor(options: Partial<ImageFilterOptions> = {}, base: Readonly<ImageFilterOptions> = CC3M_IMAGE_FILTER) {
    this.options = Object.freeze({ ...base, ...options });
  }

  /**
   * Checks one image's bytes (`original`: the web image's size when the bytes are a resized copy,
   * see checkImage). Never throws on bad input (a detector that cannot load does throw).
   */
  async check(bytes: Uint8Array, original?: { width: number; height: number }): Promise<ImageCheck> {
    const result = await this.checkInner(bytes, original);
    this.counts.checked++;
    if (result.judged) this.sizesJudged[result.judged.from]++;
    if (result.keep) this.counts.kept++;
    else this.rejected[result.reason!] = (this.rejected[result.reason!] ?? 0) + 1;
    return result;
  }

  private async checkInner(bytes: Uint8Array, original?: { width: number; height: number }): Promise<ImageCheck> {
    const cheap = checkImage(bytes, this.options, original);
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
    if (score >= this.options.nsfwThreshold)
      return {
        ...cheap,
        keep: false,
        reason: 'image:nsfw',
        detail: `P(porn) + P(hentai) ${score.toFixed(3)} ≥ ${this.options.nsfwThreshold}`,
        nsfwScore: score,
      };
    return { ...cheap, nsfwScore: score };
  }

  /** The pipeline form: keeps the caption unchanged or rejects with the reason (and the check's detail). */
  async verdict(pair: CandidatePair): Promise<Verdict> {
    if (pair.image === undefined) return reject('image:missing');
    const result = await this.check(pair.image, pair.originalSize);
    return result.keep ? keep(pair.caption) : reject(result.reason!, result.detail);
  }

  stats(): ImageFilterStats {
    const stats: ImageFilterStats = {
      checked: this.counts.checked,
      kept: this.counts.kept,
      rejected: { ...this.rejected },
      decoded: this.counts.decoded,
      decodeMeanMs: this.counts.decoded ? this.counts.decodeMs / this.counts.decoded : 0,
      sizesJudged: { ...this.sizesJudged },
    };
    if (this.detector) stats.nsfw = this.detector.stats();
    return stats;
  }
}
