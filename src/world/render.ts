/**
 * Rendering of world scenes: each concept has a procedural visual signature
 * (shape family × colour × texture × proportions), a scene becomes an SVG
 * (background colour/gradient/pattern, objects drawn in their rotated frames)
 * which `sharp` rasterises, overlays with seeded grain and encodes in the
 * scene's format (JPEG quality 85, PNG, GIF).
 *
 * Deterministic: the same scene gives byte-identical output (no fonts, no
 * clock, grain from a seeded generator keyed on the scene's content).
 * `sharp` is loaded on the first render only, so importing this module (e.g.
 * for visualSignature) stays cheap.
 */

import type { Sharp } from 'sharp';

import { fnv1a } from './concepts';
import { figureParts, SHAPE_FAMILIES, type Paint } from './figures';
import { circle, ellipse, fmt, hsl, rect } from './svg';
import type { Concept, Scene, SceneObject } from './types';
import { seededRandom } from '../util/random';
import { loadSharp } from '../util/sharp';

// ------------------------------------------------------------- signatures

export const TEXTURES = ['solid', 'stripes', 'dots', 'checks', 'waves', 'rings'] as const;
export type Texture = (typeof TEXTURES)[number];

/** A concept's appearance: fixed per concept, derived from its synset id and family. */
export interface VisualSignature {
  family: number;
  /** Width / height of the concept's drawing frame. */
  aspect: number;
  /** Body colour (HSL: degrees, 0–1, 0–1). */
  hue: number;
  saturation: number;
  lightness: number;
  /** Accent colour (parts: beak, wheels, handle, roof…). */
  accentHue: number;
  accentLightness: number;
  texture: Texture;
  /** Texture period as a fraction of the frame's shorter side. */
  textureScale: number;
  /** Texture rotation in degrees. */
  textureAngle: number;
  /** Texture colour lightness (the texture's second colour shares the body hue). */
  textureLightness: number;
  /** Shape proportion details in [0, 1): family-specific (leg length, neck width, petal count…). */
  params: [number, number, number, number];
}

const sigCache = new Map<string, VisualSignature>();

/** The concept's visual signature (deterministic; cached by synset and family). */
export function visualSignature(concept: Pick<Concept, 'synset' | 'family'>): VisualSignature {
  const key = `${concept.synset}:${concept.family}`;
  const hit = sigCache.get(key);
  if (hit) return hit;
  const r = seededRandom(fnv1a(`sig:${concept.synset}`));
  const base = SHAPE_FAMILIES[concept.family]?.aspect ?? 1;
  const hue = Math.floor(r() * 360);
  const sig: VisualSignature = {
    family: concept.family,
    aspect: round3(base * (0.8 + 0.4 * r())),
    hue,
    saturation: round3(0.35 + 0.6 * r()),
    lightness: round3(0.3 + 0.4 * r()),
    accentHue: Math.floor((hue + 90 + r() * 180) % 360),
    accentLightness: round3(0.2 + 0.6 * r()),
    texture: TEXTURES[Math.floor(r() * TEXTURES.length)]!,
    textureScale: round3(0.06 + 0.16 * r()),
    textureAngle: Math.floor(r() * 180),
    textureLightness: round3(r() < 0.5 ? 0.12 + 0.2 * r() : 0.7 + 0.2 * r()),
    params: [round3(r()), round3(r()), round3(r()), round3(r())],
  };
  sigCache.set(key, sig);
  return sig;
}

/** Visual signature as a fixed-length numeric vector (for feature extractors): family one-hot (16) + 16 values. */
export function signatureVector(sig: VisualSignature): number[] {
  const v = new Array<number>(32).fill(0);
  if (sig.family >= 0 && sig.family < 16) v[sig.family] = 1;
  const rad = (d: number): number => (d * Math.PI) / 180;
  const rest = [
    Math.log(sig.aspect),
    Math.cos(rad(sig.hue)),
    Math.sin(rad(sig.hue)),
    sig.saturation,
    sig.lightness,
    Math.cos(rad(sig.accentHue)),
    Math.sin(rad(sig.accentHue)),
    sig.accentLightness,
    TEXTURES.indexOf(sig.texture) / (TEXTURES.length - 1),
    sig.textureScale,
    Math.cos(rad(2 * sig.textureAngle)),
    sig.textureLightness,
    ...sig.params,
  ];
  for (let i = 0; i < rest.length; i++) v[16 + i] = rest[i]!;
  return v;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

// ------------------------------------------------------------------- SVG

/**
 * The texture of one object as explicit geometry in its local frame (centred
 * at 0, rotated by the signature's angle), to be clipped to the body parts.
 * Explicit shapes rasterise far faster in librsvg than SVG <pattern> fills.
 * Empty for solid textures.
 */
function textureGroup(sig: VisualSignature, w: number, h: number): string {
  if (sig.texture === 'solid') return '';
  const D = Math.hypot(w, h);
  const half = D / 2;
  const t = hsl(sig.hue, sig.saturation * 0.8, sig.textureLightness);
  let p = Math.max(3, sig.textureScale * Math.min(w, h));
  const out: string[] = [];
  switch (sig.texture) {
    case 'stripes':
      p = Math.max(p, D / 30);
      for (let x = -half; x < half; x += p) out.push(rect(x, -half, p / 2.5, D, t));
      break;
    case 'dots':
      p = Math.max(p, D / 14);
      for (let y = -half + p / 2; y < half; y += p) for (let x = -half + p / 2; x < half; x += p) out.push(circle(x, y, p / 4, t));
      break;
    case 'checks':
      p = Math.max(p, D / 14);
      for (let j = 0, y = -half; y < half; y += p, j++) {
        for (let i = 0, x = -half; x < half; x += p, i++) if ((i + j) % 2 === 0) out.push(rect(x, y, p, p, t));
      }
      break;
    case 'waves': {
      p = Math.max(p, D / 20);
      for (let y = -half; y < half; y += p) {
        let d = `M ${fmt(-half)} ${fmt(y)} Q ${fmt(-half + p / 4)} ${fmt(y - p / 3)} ${fmt(-half + p / 2)} ${fmt(y)}`;
        for (let x = -half + p; x <= half + p / 2; x += p / 2) d += ` T ${fmt(x)} ${fmt(y)}`;
        out.push(`<path d="${d}" fill="none" stroke="${t}" stroke-width="${fmt(p / 6)}"/>`);
      }
      break;
    }
    case 'rings': {
      p = Math.max(p, D / 30);
      const cx = (sig.params[0] - 0.5) * w * 0.4;
      const cy = (sig.params[1] - 0.5) * h * 0.4;
      for (let r = p / 2; r < D; r += p) out.push(circle(cx, cy, r, 'none', ` stroke="${t}" stroke-width="${fmt(p / 4)}"`));
      break;
    }
  }
  return `<g transform="rotate(${sig.textureAngle})">${out.join('')}</g>`;
}

/** Prefix marking body parts in a figure's part list (removed before output). */
const BODY_MARK = '\u0001';

/** Unrotated frame of an object: its `shape` when present, else its box (for scenes without it). */
function frameOf(obj: SceneObject, sig: VisualSignature): { cx: number; cy: number; width: number; height: number } {
  if (obj.shape) return obj.shape;
  // Fallback: fit the signature's aspect inside the box (ignores rotation).
  const { x, y, width, height } = obj.box;
  let w = width;
  let h = w / sig.aspect;
  if (h > height) {
    h = height;
    w = h * sig.aspect;
  }
  return { cx: x + width / 2, cy: y + height / 2, width: w, height: h };
}

function backgroundSvg(scene: Scene, random: () => number): string {
  const { width: W, height: H } = scene;
  const b = scene.background;
  // Gradient as 24 rotated bands (an SVG gradient costs librsvg several times more).
  const l2 = Math.min(0.95, Math.max(0.05, b.lightness + (b.lightness > 0.5 ? -0.2 : 0.2)));
  const ang = Math.floor(random() * 360);
  const D0 = Math.hypot(W, H);
  const bands: string[] = [];
  const N = 24;
  for (let i = 0; i < N; i++) {
    const t = i / (N - 1);
    const colour = hsl(b.hue + 25 * t, b.saturation * (1 - 0.2 * t), b.lightness + (l2 - b.lightness) * t);
    bands.push(rect(-D0 / 2 + (i * D0) / N, -D0 / 2, D0 / N + 1, D0, colour));
  }
  const out: string[] = [`<g transform="translate(${fmt(W / 2)} ${fmt(H / 2)}) rotate(${ang})">${bands.join('')}</g>`];
  const m = Math.min(W, H);
  const pc = hsl(b.hue + 180 * random(), b.saturation * 0.6, b.lightness > 0.5 ? b.lightness - 0.12 : b.lightness + 0.12);
  let p = m * (0.04 + 0.1 * random());
  const D = Math.hypot(W, H);
  switch (b.pattern % 6) {
    case 1: {
      // stripes (explicit rects in a rotated group)
      p = Math.max(p, D / 40);
      const g: string[] = [];
      for (let x = -D / 2; x < D / 2; x += p) g.push(rect(x, -D / 2, p / 3, D, pc));
      out.push(`<g transform="translate(${fmt(W / 2)} ${fmt(H / 2)}) rotate(${Math.floor(random() * 180)})" fill-opacity="0.5">${g.join('')}</g>`);
      break;
    }
    case 2: {
      // dots
      p = Math.max(p, Math.max(W, H) / 16);
      const g: string[] = [];
      for (let y = p / 2; y < H; y += p) for (let x = p / 2; x < W; x += p) g.push(circle(x, y, p / 5, pc));
      out.push(`<g fill-opacity="0.5">${g.join('')}</g>`);
      break;
    }
    case 3: {
      // checks
      p = Math.max(p, Math.max(W, H) / 16);
      const g: string[] = [];
      for (let j = 0, y = 0; y < H; y += p, j++) for (let i = 0, x = 0; x < W; x += p, i++) if ((i + j) % 2 === 0) g.push(rect(x, y, p, p, pc));
      out.push(`<g fill-opacity="0.35">${g.join('')}</g>`);
      break;
    }
    case 4: {
      // ground / horizon split
      const yh = H * (0.4 + 0.35 * random());
      out.push(rect(0, yh, W, H - yh, pc, ' fill-opacity="0.7"'));
      break;
    }
    case 5: {
      // soft blobs
      const n = 3 + Math.floor(random() * 5);
      for (let i = 0; i < n; i++) {
        out.push(
          ellipse(
            random() * W,
            random() * H,
            m * (0.1 + 0.3 * random()),
            m * (0.1 + 0.3 * random()),
            hsl(b.hue + 360 * random(), b.saturation, 0.3 + 0.5 * random()),
            ' fill-opacity="0.35"',
          ),
        );
      }
      break;
    }
    default:
      break; // plain gradient
  }
  return out.join('');
}

/** The scene as an SVG document (width × height user units = pixels). */
export function sceneSvg(scene: Scene, concepts: readonly Concept[]): string {
  const random = seededRandom(sceneHash(scene));
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${scene.width}" height="${scene.height}" viewBox="0 0 ${scene.width} ${scene.height}">`,
    backgroundSvg(scene, random),
  ];
  scene.objects.forEach((obj, k) => {
    const concept = concepts[obj.concept];
    if (concept === undefined) throw new Error(`renderScene: no concept ${obj.concept} in the catalog`);
    const sig = visualSignature(concept);
    const f = frameOf(obj, sig);
    const tex = textureGroup(sig, f.width, f.height);
    const bodyParts: string[] = [];
    const paint: Paint = {
      fill: hsl(sig.hue, sig.saturation, sig.lightness),
      body: (element) => {
        bodyParts.push(element);
        return BODY_MARK + element;
      },
      accent: hsl(sig.accentHue, 0.6, sig.accentLightness),
      dark: hsl(sig.hue, sig.saturation * 0.6, Math.max(0.08, sig.lightness * 0.45)),
      light: hsl(sig.hue, sig.saturation * 0.3, 0.88),
      stroke: hsl(sig.hue, 0.3, 0.12),
      sw: Math.max(1, Math.min(f.width, f.height) * 0.015),
    };
    const parts = figureParts(sig.family, sig.params, f.width, f.height, paint);
    // The texture, clipped to the union of the body parts, goes right after the last body part.
    let last = -1;
    for (let i = 0; i < parts.length; i++) {
      if (parts[i]!.startsWith(BODY_MARK)) {
        parts[i] = parts[i]!.slice(BODY_MARK.length);
        last = i;
      }
    }
    if (tex && last >= 0) {
      parts.splice(last + 1, 0, `<clipPath id="c${k}">${bodyParts.join('')}</clipPath><g clip-path="url(#c${k})">${tex}</g>`);
    }
    out.push(`<g transform="translate(${fmt(f.cx)} ${fmt(f.cy)}) rotate(${fmt(obj.rotation)})">${parts.join('')}</g>`);
  });
  out.push('</svg>');
  return out.join('');
}

function sceneHash(scene: Scene): number {
  return fnv1a(JSON.stringify(scene));
}

// ----------------------------------------------------------------- raster

const GRAIN_TILE = 96;

/** A seeded RGBA grain tile: grey values around mid-grey with alpha ∝ noise. */
function grainTile(seed: number, noise: number): Buffer {
  const random = seededRandom(seed);
  const buf = Buffer.alloc(GRAIN_TILE * GRAIN_TILE * 4);
  const alpha = Math.round(Math.min(1, Math.max(0, noise)) * 70);
  for (let i = 0; i < buf.length; i += 4) {
    const v = Math.floor(random() * 256);
    buf[i] = v;
    buf[i + 1] = v;
    buf[i + 2] = v;
    buf[i + 3] = alpha;
  }
  return buf;
}

export interface RenderOptions {
  /** JPEG quality (default 85). */
  jpegQuality?: number;
}

/**
 * Renders a scene to an encoded image in `scene.format`, `scene.width` ×
 * `scene.height` pixels. Same scene (and catalog) → byte-identical buffer.
 */
export async function renderScene(scene: Scene, concepts: readonly Concept[], options: RenderOptions = {}): Promise<Buffer> {
  const sharp = loadSharp();
  const svg = sceneSvg(scene, concepts);
  let img: Sharp = sharp(Buffer.from(svg), { density: 72 });
  if (scene.background.noise > 0.02) {
    img = img.composite([
      {
        input: grainTile(sceneHash(scene) ^ 0x5bd1e995, scene.background.noise),
        raw: { width: GRAIN_TILE, height: GRAIN_TILE, channels: 4 },
        tile: true,
        blend: 'over',
      },
    ]);
  }
  // The background is opaque: drop the alpha channel librsvg produces (cheaper than flatten).
  img = img.removeAlpha();
  switch (scene.format) {
    case 'jpeg':
      return img.jpeg({ quality: options.jpegQuality ?? 85 }).toBuffer();
    case 'png':
      return img.png({ compressionLevel: 6 }).toBuffer();
    case 'gif':
      // 16 colours, no dithering: ~4× faster than larger palettes (GIFs only feed the format filter).
      return img.gif({ colours: 16, effort: 1, dither: 0 }).toBuffer();
    default:
      throw new Error(`renderScene: unknown format ${String(scene.format)}`);
  }
}
