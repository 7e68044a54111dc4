import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import sharp, { type Sharp } from 'sharp';

import { CC12M_IMAGE_FILTER, CC3M_IMAGE_FILTER, ImageFilter, ImageFilterOptions, checkImage } from '../src/filters/image';
import { readImageHeader } from '../src/filters/image-header';
import { NsfwDetector, sharedNsfwDetector } from '../src/filters/nsfw';
import { World } from '../src/world/world';

const FIXTURES = path.join(__dirname, 'fixtures', 'images');

/** Header checks plus decode verification, no detector: the fast configuration for most tests. */
const CC3M_FAST: ImageFilterOptions = { ...CC3M_IMAGE_FILTER, nsfw: false };

function solid(width: number, height: number): Sharp {
  return sharp({ create: { width, height, channels: 3, background: { r: 180, g: 90, b: 40 } } });
}

function noisy(width: number, height: number): Sharp {
  return sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } });
}

const jpeg = (width: number, height: number): Promise<Buffer> => solid(width, height).jpeg().toBuffer();

/** Deterministic pseudo-random bytes (mulberry32). */
function randomBytes(seed: number, length: number): Buffer {
  let a = seed >>> 0;
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = ((t ^ (t >>> 14)) >>> 0) & 0xff;
  }
  return out;
}

/** Offset of the first SOF marker (FF C0..CF frame header) in a JPEG made by sharp. */
function sofOffset(bytes: Buffer): number {
  let pos = 2;
  while (pos < bytes.length) {
    const marker = bytes[pos + 1]!;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return pos;
    pos += 2 + bytes.readUInt16BE(pos + 2);
  }
  throw new Error('no SOF');
}

/** A copy of a JPEG whose frame header claims other dimensions (the scan data is unchanged). */
function withClaimedSize(bytes: Buffer, width: number, height: number): Buffer {
  const copy = Buffer.from(bytes);
  const sof = sofOffset(copy);
  copy.writeUInt16BE(height, sof + 5);
  copy.writeUInt16BE(width, sof + 7);
  return copy;
}

/** Inserts an APP segment of `payload` bytes right after SOI. */
function withAppSegment(bytes: Buffer, marker: number, payload: number): Buffer {
  const segment = Buffer.alloc(4 + payload, 0x41);
  segment[0] = 0xff;
  segment[1] = marker;
  segment.writeUInt16BE(payload + 2, 2);
  return Buffer.concat([bytes.subarray(0, 2), segment, bytes.subarray(2)]);
}

// ---- header parsers ---------------------------------------------------------------------------

test('header: JPEG dimensions from SOF, skipping APPn segments, baseline and progressive', async () => {
  const base = await jpeg(640, 480);
  assert.deepEqual(readImageHeader(base), { format: 'jpeg', width: 640, height: 480 });
  const progressive = await solid(123, 457).jpeg({ progressive: true }).toBuffer();
  assert.deepEqual(readImageHeader(progressive), { format: 'jpeg', width: 123, height: 457 });
  // a 60 kB APP1 (EXIF-sized) and an APP2 before the frame header
  const padded = withAppSegment(withAppSegment(base, 0xe2, 5000), 0xe1, 60000);
  assert.deepEqual(readImageHeader(padded), { format: 'jpeg', width: 640, height: 480 });
  const withIcc = await solid(500, 401).withIccProfile('p3').jpeg().toBuffer();
  assert.deepEqual(readImageHeader(withIcc), { format: 'jpeg', width: 500, height: 401 });
  // fill bytes before a marker are legal
  const filled = Buffer.concat([base.subarray(0, 2), Buffer.from([0xff, 0xff]), base.subarray(2)]);
  assert.deepEqual(readImageHeader(filled), { format: 'jpeg', width: 640, height: 480 });
});

test('header: PNG and GIF dimensions; WebP, TIFF, HEIF, BMP, SVG by magic only', async () => {
  assert.deepEqual(readImageHeader(await solid(300, 200).png().toBuffer()), { format: 'png', width: 300, height: 200 });
  assert.deepEqual(readImageHeader(await solid(321, 123).gif().toBuffer()), { format: 'gif', width: 321, height: 123 });
  assert.equal(readImageHeader(await solid(64, 64).webp().toBuffer()).format, 'webp');
  assert.equal(readImageHeader(await solid(64, 64).tiff().toBuffer()).format, 'tiff');
  assert.equal(readImageHeader(await solid(64, 64).avif().toBuffer()).format, 'heif');
  const bmp = Buffer.alloc(54);
  bmp.write('BM', 0, 'latin1');
  bmp.writeUInt32LE(54, 2);
  bmp.writeUInt32LE(40, 14); // BITMAPINFOHEADER
  assert.equal(readImageHeader(bmp).format, 'bmp');
  assert.equal(readImageHeader(fs.readFileSync(path.join(FIXTURES, 'external-ref.svg'))).format, 'svg');
  assert.equal(readImageHeader(Buffer.from('\ufeff  <svg viewBox="0 0 1 1"/>')).format, 'svg');
  assert.equal(readImageHeader(Buffer.from('<!DOCTYPE svg><svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>')).format, 'svg');
  assert.equal(readImageHeader(Buffer.from('<html><body>not an image</body></html>')).format, 'unknown');
  assert.equal(readImageHeader(Buffer.from('BM but not a bitmap at all')).format, 'unknown');
});

test('header: every truncation of a JPEG before its frame header is "truncated", never a throw', async () => {
  const bytes = withAppSegment(await jpeg(640, 480), 0xe1, 300);
  const sofEnd = sofOffset(bytes) + 9; // marker(2) length(2) precision(1) height(2) width(2)
  assert.deepEqual(readImageHeader(bytes.subarray(0, sofEnd)), { format: 'jpeg', width: 640, height: 480 });
  for (let cut = 2; cut < sofEnd; cut++) {
    const header = readImageHeader(bytes.subarray(0, cut));
    assert.equal(header.format, 'jpeg', `cut ${cut}`);
    assert.equal(header.problem, 'truncated', `cut ${cut}`);
    assert.equal(header.width, undefined);
  }
  const png = await solid(300, 200).png().toBuffer();
  for (let cut = 8; cut < 24; cut++) assert.equal(readImageHeader(png.subarray(0, cut)).problem, 'truncated');
  assert.equal(readImageHeader(Buffer.from('GIF89a\x10')).problem, 'truncated');
  assert.deepEqual(readImageHeader(Buffer.alloc(0)), { format: 'unknown', problem: 'empty', detail: 'zero bytes' });
});

test('header: broken JPEG structure is "corrupt"', async () => {
  const bytes = await jpeg(64, 64);
  // scan (SOS) before any frame header
  assert.equal(readImageHeader(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x08, 1, 2, 3, 4, 5, 6])).problem, 'corrupt');
  // a non-marker byte where a marker must be
  assert.equal(readImageHeader(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0, 0, 0x12, 0x34])).problem, 'corrupt');
  // segment length < 2
  assert.equal(readImageHeader(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x01, 0, 0])).problem, 'corrupt');
  // zero width in the frame header
  assert.equal(readImageHeader(withClaimedSize(bytes, 0, 64)).problem, 'corrupt');
});

test('header: random and mutated bytes never throw', async () => {
  const base = withAppSegment(await jpeg(500, 450), 0xe1, 100);
  const sof = sofOffset(base);
  for (let seed = 1; seed <= 3000; seed++) {
    const noise = randomBytes(seed, 1 + (seed % 97));
    const mutated = Buffer.from(base.subarray(0, sof + 20));
    mutated.set(noise.subarray(0, Math.min(noise.length, 8)), 2 + (seed % (sof + 10)));
    const starts = [noise, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), noise]), mutated];
    for (const bytes of starts) {
      const header = readImageHeader(bytes);
      assert.ok(typeof header.format === 'string');
      if (header.width !== undefined) assert.ok(Number.isInteger(header.width) && header.width >= 0);
    }
  }
});

// ---- cheap checks and their reasons -----------------------------------------------------------

test('checkImage: each reason on hand-made inputs', async () => {
  const cases: [string, Buffer, string | undefined][] = [
    ['zero bytes', Buffer.alloc(0), 'image:empty'],
    ['PNG', await solid(800, 600).png().toBuffer(), 'image:format:png'],
    ['GIF', await solid(800, 600).gif().toBuffer(), 'image:format:gif'],
    ['WebP', await solid(800, 600).webp().toBuffer(), 'image:format:webp'],
    ['random bytes', randomBytes(42, 4096), 'image:format:unknown'],
    ['SVG', fs.readFileSync(path.join(FIXTURES, 'external-ref.svg')), 'image:format:svg'],
    ['small JPEG', await jpeg(300, 200), 'image:too-small'],
    ['400 px side (not > 400)', await jpeg(600, 400), 'image:too-small'],
    ['wide JPEG', await jpeg(1300, 500), 'image:aspect'],
    ['tall JPEG', await jpeg(450, 1000), 'image:aspect'],
    ['header cut before SOF', (await jpeg(800, 600)).subarray(0, 10), 'image:corrupt'],
    ['bomb header', withClaimedSize(await jpeg(64, 64), 65535, 65535), 'image:pixels'],
    ['large valid JPEG', await noisy(1024, 768).jpeg().toBuffer(), undefined],
    ['401 × 802 (aspect 2)', await jpeg(401, 802), undefined],
  ];
  for (const [name, bytes, reason] of cases) {
    const result = checkImage(bytes, CC3M_IMAGE_FILTER);
    assert.equal(result.reason, reason, name);
    assert.equal(result.keep, reason === undefined, name);
  }
  const small = checkImage(await jpeg(300, 200));
  assert.deepEqual([small.format, small.width, small.height], ['jpeg', 300, 200]);
});

test('presets differ as the papers say: aspect 2 vs 2.5, side rule', async () => {
  assert.equal(CC3M_IMAGE_FILTER.maxAspect, 2);
  assert.equal(CC12M_IMAGE_FILTER.maxAspect, 2.5);
  assert.deepEqual([...CC3M_IMAGE_FILTER.formats], ['jpeg']);
  assert.deepEqual([...CC12M_IMAGE_FILTER.formats], ['jpeg']);
  const aspect22 = await jpeg(1100, 500);
  assert.equal(checkImage(aspect22, CC3M_IMAGE_FILTER).reason, 'image:aspect');
  assert.equal(checkImage(aspect22, CC12M_IMAGE_FILTER).keep, true);
  const aspect26 = await jpeg(1300, 500);
  assert.equal(checkImage(aspect26, CC12M_IMAGE_FILTER).reason, 'image:aspect');
  const aspect25 = await jpeg(1250, 500);
  assert.equal(checkImage(aspect25, CC12M_IMAGE_FILTER).keep, true, 'aspect exactly 2.5 is "no more than 2.5"');
  // shorter side 399: out under both / shorter, in under the permissive "longer" reading
  const short399 = await jpeg(700, 399);
  assert.equal(checkImage(short399, CC3M_IMAGE_FILTER).reason, 'image:too-small');
  assert.equal(checkImage(short399, CC12M_IMAGE_FILTER).reason, 'image:too-small');
  assert.equal(checkImage(short399, { ...CC12M_IMAGE_FILTER, sizeRule: 'longer' }).keep, true);
  assert.equal(checkImage(await jpeg(399, 399), { ...CC12M_IMAGE_FILTER, sizeRule: 'longer' }).reason, 'image:too-small');
  // a permissive format list admits PNG, which then goes through the size rules
  assert.equal(checkImage(await solid(300, 300).png().toBuffer(), { ...CC3M_IMAGE_FILTER, formats: ['jpeg', 'png'] }).reason, 'image:too-small');
});

// ---- full filter: decode verification, safety ---------------------------------------------------

test('ImageFilter: a truncated JPEG with an intact header is rejected as corrupt by the decode check', async () => {
  const whole = await noisy(800, 600).jpeg().toBuffer();
  const filter = new ImageFilter(CC3M_FAST);
  assert.equal((await filter.check(whole)).keep, true);
  for (const share of [0.95, 0.5, 0.1]) {
    const cut = whole.subarray(0, Math.floor(whole.length * share));
    assert.equal(checkImage(cut).keep, true, 'the header alone cannot tell');
    const result = await filter.check(cut);
    assert.equal(result.reason, 'image:corrupt', `${share}`);
    assert.ok(result.detail && result.detail.length > 0);
  }
  // garbage scan data behind a valid header
  const sof = sofOffset(whole);
  const garbage = Buffer.concat([whole.subarray(0, sof + 200), randomBytes(7, 5000)]);
  assert.equal((await filter.check(garbage)).reason, 'image:corrupt');
  // without decode verification the header decides
  assert.equal((await new ImageFilter({ ...CC3M_FAST, verifyDecode: false }).check(whole.subarray(0, 2000))).keep, true);
  const stats = filter.stats();
  assert.equal(stats.checked, 5);
  assert.equal(stats.kept, 1);
  assert.equal(stats.rejected['image:corrupt'], 4);
  assert.equal(stats.decoded, 5);
  assert.equal(stats.nsfw, undefined, 'detector never loaded when disabled');
});

test('ImageFilter: grey and CMYK JPEGs decode; random bytes never kept, never throw', async () => {
  const filter = new ImageFilter(CC3M_FAST);
  assert.equal((await filter.check(await noisy(640, 480).greyscale().jpeg().toBuffer())).keep, true);
  assert.equal((await filter.check(await noisy(640, 480).toColourspace('cmyk').jpeg().toBuffer())).keep, true);
  for (let seed = 1; seed <= 200; seed++) {
    const noise = randomBytes(seed, 64 + seed * 13);
    for (const bytes of [noise, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), noise])]) {
      const result = await filter.check(bytes);
      assert.equal(result.keep, false);
    }
  }
});

/** Makes every socket connect and fetch throw, recording the attempt; `restore()` undoes it. */
function blockNetwork(): { connects: unknown[]; restore(): void } {
  const connects: unknown[] = [];
  const connect = net.Socket.prototype.connect;
  const fetch = globalThis.fetch;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    connects.push(args[0]);
    throw new Error('network access in a test');
  } as typeof connect;
  globalThis.fetch = (async (input: unknown) => {
    connects.push(input);
    throw new Error('network access in a test');
  }) as typeof fetch;
  return {
    connects,
    restore: () => {
      net.Socket.prototype.connect = connect;
      globalThis.fetch = fetch;
    },
  };
}

test('ImageFilter: an SVG with an external <image href> is rejected without rendering or network', async () => {
  const svg = fs.readFileSync(path.join(FIXTURES, 'external-ref.svg'));
  assert.match(svg.toString(), /<image href="http:\/\/example\.com\/x\.png"/);
  const { connects, restore } = blockNetwork();
  try {
    const filter = new ImageFilter({ ...CC3M_IMAGE_FILTER }); // detector on: still never reached
    const result = await filter.check(svg);
    assert.equal(result.keep, false);
    assert.equal(result.reason, 'image:format:svg');
    assert.equal(filter.stats().decoded, 0, 'never handed to a decoder');
    assert.equal(filter.stats().nsfw, undefined);
  } finally {
    restore();
  }
  assert.deepEqual(connects, []);
});

test('ImageFilter: decompression-bomb headers are rejected before any decode', async () => {
  // JPEG's frame header has 16-bit sides: 65535 × 65535 = 4.3 GP is the largest claim it can make
  const bomb = withClaimedSize(await jpeg(64, 64), 65535, 65535);
  const filter = new ImageFilter(CC3M_FAST);
  const start = performance.now();
  const result = await filter.check(bomb);
  assert.equal(result.reason, 'image:pixels');
  assert.deepEqual([result.width, result.height], [65535, 65535]);
  assert.equal(filter.stats().decoded, 0);
  assert.ok(performance.now() - start < 100);
  // PNG has 32-bit sides: 100000 × 100000 (10 GP), when a configuration admits PNG at all
  const png = Buffer.from(await solid(8, 8).png().toBuffer());
  png.writeUInt32BE(100000, 16);
  png.writeUInt32BE(100000, 20);
  const permissive = new ImageFilter({ ...CC3M_FAST, formats: ['jpeg', 'png'] });
  assert.equal((await permissive.check(png)).reason, 'image:pixels');
  assert.equal(permissive.stats().decoded, 0);
  assert.equal((await filter.check(png)).reason, 'image:format:png');
  // under the limit the header passes; the real 64 × 64 scan then ends early, a libjpeg warning
  // that the default decode check (failOn warning) rejects and the lenient one lets through grey
  const liar = withClaimedSize(await jpeg(64, 64), 6000, 5000);
  assert.equal(checkImage(liar).keep, true);
  assert.equal((await filter.check(liar)).reason, 'image:corrupt');
  assert.equal((await new ImageFilter({ ...CC3M_FAST, decodeFailOn: 'truncated' }).check(liar)).keep, true);
});

test('ImageFilter.verdict: the pipeline form', async () => {
  const filter = new ImageFilter(CC3M_FAST);
  const image = await jpeg(640, 480);
  assert.deepEqual(await filter.verdict({ id: '1', url: 'u', caption: 'a red square', image }), { keep: true, caption: 'a red square' });
  assert.deepEqual(await filter.verdict({ id: '2', url: 'u', caption: 'c', image: await jpeg(300, 300) }), {
    keep: false,
    reason: 'image:too-small',
    detail: '300×300 (decoded): both sides must be > 400',
  });
  assert.deepEqual(await filter.verdict({ id: '3', url: 'u', caption: 'c' }), { keep: false, reason: 'image:missing' });
});

// ---- the real pornography detector ------------------------------------------------------------

test('nsfw: NSFWJS loads offline and scores world images as safe', async (t) => {
  const world = new World({ seed: 0 });
  const { connects, restore } = blockNetwork();
  let detector: NsfwDetector;
  try {
    detector = await sharedNsfwDetector();
  } finally {
    restore();
  }
  assert.deepEqual(connects, [], 'loading the detector touched the network');
  assert.ok(['tensorflow', 'wasm-native', 'wasm', 'cpu'].includes(detector.backend));
  assert.equal(detector.inputSize, 224);

  const filter = new ImageFilter({}, CC12M_IMAGE_FILTER);
  const scores: number[] = [];
  for (let id = 0; scores.length < 8 && id < 40; id++) {
    const result = await filter.check(await world.render('web', id));
    if (result.reason?.startsWith('image:format') || result.reason === 'image:too-small' || result.reason === 'image:aspect') continue;
    assert.equal(result.keep, true, `world web image ${id}: ${result.reason}`);
    assert.ok(result.nsfwScore !== undefined && result.nsfwScore < CC12M_IMAGE_FILTER.nsfwThreshold);
    scores.push(result.nsfwScore);
  }
  assert.equal(scores.length, 8);
  const stats = filter.stats();
  assert.ok(stats.nsfw);
  assert.equal(stats.nsfw.images, 8);
  t.diagnostic(
    `backend ${stats.nsfw.backend}; load ${stats.nsfw.loadMs.toFixed(0)} ms; ` +
      `inference ${stats.nsfw.meanMs.toFixed(1)} ms/image; decode ${stats.decodeMeanMs.toFixed(1)} ms/image; ` +
      `max score ${Math.max(...scores).toFixed(4)}`,
  );

  // probabilities of the five classes sum to one; the score is porn + hentai
  const rgb = new Uint8Array(224 * 224 * 3).fill(127);
  const grey = await detector.classifyRgb(rgb, 224, 224);
  const total = Object.values(grey.probabilities).reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(total - 1) < 1e-3);
  assert.ok(Math.abs(grey.score - (grey.probabilities.Porn + grey.probabilities.Hentai)) < 1e-6);
  await assert.rejects(detector.classifyRgb(rgb, 100, 100), /expected/);
});
