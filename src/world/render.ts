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

/** Base frame aspect (width / height) per shape family. */
const FAMILY_ASPECT: readonly number[] = [
  0.45, // person
  1.45, // mammal
  1.1, // bird
  1.7, // fish, reptile & other animal
  0.75, // plant & flower
  1.0, // fruit & vegetable
  1.35, // prepared food
  1.8, // vehicle
  1.05, // furniture & fixture
  0.7, // container & tableware
  0.4, // tool & implement
  1.25, // device & other artifact
  0.5, // musical instrument
  0.95, // clothing & accessory
  0.9, // building & structure
  1.0, // sports & play equipment
];

const sigCache = new Map<string, VisualSignature>();

/** The concept's visual signature (deterministic; cached by synset and family). */
export function visualSignature(concept: Pick<Concept, 'synset' | 'family'>): VisualSignature {
  const key = `${concept.synset}:${concept.family}`;
  const hit = sigCache.get(key);
  if (hit) return hit;
  const r = seededRandom(fnv1a(`sig:${concept.synset}`));
  const base = FAMILY_ASPECT[concept.family] ?? 1;
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

function fmt(x: number): string {
  return (Math.round(x * 100) / 100).toString();
}

function hsl(h: number, s: number, l: number): string {
  return `hsl(${Math.round(((h % 360) + 360) % 360)},${Math.round(s * 100)}%,${Math.round(l * 100)}%)`;
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

interface Paint {
  /** Solid body colour. */
  fill: string;
  /** Marks a body element: the object's texture is clipped to the union of body elements. */
  body: (element: string) => string;
  accent: string;
  dark: string;
  light: string;
  stroke: string;
  sw: number;
}

const rect = (x: number, y: number, w: number, h: number, fill: string, extra = ''): string =>
  `<rect x="${fmt(x)}" y="${fmt(y)}" width="${fmt(Math.max(0.5, w))}" height="${fmt(Math.max(0.5, h))}" fill="${fill}"${extra}/>`;
const ellipse = (cx: number, cy: number, rx: number, ry: number, fill: string, extra = ''): string =>
  `<ellipse cx="${fmt(cx)}" cy="${fmt(cy)}" rx="${fmt(Math.max(0.5, rx))}" ry="${fmt(Math.max(0.5, ry))}" fill="${fill}"${extra}/>`;
const circle = (cx: number, cy: number, r: number, fill: string, extra = ''): string =>
  `<circle cx="${fmt(cx)}" cy="${fmt(cy)}" r="${fmt(Math.max(0.5, r))}" fill="${fill}"${extra}/>`;
const poly = (pts: ReadonlyArray<readonly [number, number]>, fill: string, extra = ''): string =>
  `<polygon points="${pts.map(([x, y]) => `${fmt(x)},${fmt(y)}`).join(' ')}" fill="${fill}"${extra}/>`;

/** The family's figure in its local frame: x ∈ [−w/2, w/2], y ∈ [−h/2, h/2] (y down). */
function figure(sig: VisualSignature, w: number, h: number, c: Paint): string[] {
  const [p0, p1, p2, p3] = sig.params;
  const X = w / 2;
  const Y = h / 2;
  const o = ` stroke="${c.stroke}" stroke-width="${fmt(c.sw)}"`;
  const parts: string[] = [];
  switch (sig.family) {
    case 0: {
      // person: head, torso, legs, arms
      const r = h * (0.09 + 0.03 * p0);
      const tw = w * (0.55 + 0.3 * p1);
      const hip = -Y + 2 * r + h * (0.35 + 0.1 * p2);
      parts.push(rect(-tw / 2 - w * 0.12, -Y + 2.2 * r, w * 0.14, h * 0.38, c.accent, o));
      parts.push(rect(tw / 2 - w * 0.02, -Y + 2.2 * r, w * 0.14, h * 0.38, c.accent, o));
      parts.push(c.body(rect(-tw / 2, -Y + 2 * r, tw, hip + Y - 2 * r, c.fill, `${o} rx="${fmt(w * 0.1)}"`)));
      parts.push(rect(-tw / 2 + w * 0.03, hip, tw * 0.42, Y - hip, c.dark, o));
      parts.push(rect(tw / 2 - w * 0.03 - tw * 0.42, hip, tw * 0.42, Y - hip, c.dark, o));
      parts.push(circle(0, -Y + r, r, hsl(25 + 20 * p3, 0.45, 0.35 + 0.4 * p3), o));
      break;
    }
    case 1: {
      // quadruped: legs, body, head, ears, tail
      const by = -Y + h * (0.3 + 0.1 * p0);
      const ry = h * (0.18 + 0.08 * p1);
      const legW = w * (0.05 + 0.04 * p2);
      for (const lx of [-0.28, -0.16, 0.16, 0.28]) parts.push(rect(lx * w - legW / 2, by, legW, Y - by, c.dark, o));
      parts.push(
        `<line x1="${fmt(X * 0.7)}" y1="${fmt(by)}" x2="${fmt(X)}" y2="${fmt(by + h * (0.2 * p3 - 0.1))}" stroke="${c.dark}" stroke-width="${fmt(Math.max(1, w * 0.025))}"/>`,
      );
      parts.push(c.body(ellipse(0.05 * w, by, w * 0.36, ry, c.fill, o)));
      const hr = h * (0.12 + 0.05 * p3);
      parts.push(
        poly(
          [
            [-X * 0.78, -Y + hr * 0.2],
            [-X * 0.66, -Y],
            [-X * 0.6, -Y + hr * 0.6],
          ],
          c.accent,
          o,
        ),
      );
      parts.push(c.body(circle(-X + hr * 1.1, -Y + hr * 1.3, hr, c.fill, o)));
      parts.push(circle(-X + hr * 0.8, -Y + hr * 1.1, Math.max(1, hr * 0.15), '#111'));
      break;
    }
    case 2: {
      // bird: tail, legs, body, wing, head, beak
      const cy = -Y + h * 0.45;
      parts.push(
        poly(
          [
            [-X * 0.5, cy],
            [-X, cy - h * (0.1 + 0.15 * p0)],
            [-X, cy + h * 0.12],
          ],
          c.dark,
          o,
        ),
      );
      parts.push(rect(-w * 0.06, cy + h * 0.2, Math.max(1, w * 0.02), Y - cy - h * 0.2, c.accent));
      parts.push(rect(w * 0.06, cy + h * 0.2, Math.max(1, w * 0.02), Y - cy - h * 0.2, c.accent));
      parts.push(c.body(ellipse(0, cy, w * 0.33, h * (0.2 + 0.08 * p1), c.fill, o)));
      const hr = h * (0.12 + 0.04 * p3);
      const hx = X * 0.45;
      const hy = -Y + hr * 1.2;
      parts.push(c.body(circle(hx, hy, hr, c.fill, o)));
      parts.push(ellipse(-w * 0.05, cy - h * 0.02, w * 0.2, h * 0.1, c.dark, `${o} transform="rotate(${fmt(-15 + 30 * p2)} ${fmt(-w * 0.05)} ${fmt(cy)})"`));
      parts.push(
        poly(
          [
            [hx + hr * 0.8, hy - hr * 0.3],
            [Math.min(X, hx + hr * (1.6 + 1.2 * p0)), hy],
            [hx + hr * 0.8, hy + hr * 0.3],
          ],
          c.accent,
          o,
        ),
      );
      parts.push(circle(hx + hr * 0.3, hy - hr * 0.2, Math.max(1, hr * 0.18), '#111'));
      break;
    }
    case 3: {
      // fish-like: tail, body, fin, eye
      const ry = h * (0.22 + 0.2 * p0);
      parts.push(
        poly(
          [
            [-X * 0.6, 0],
            [-X, -h * (0.2 + 0.25 * p1)],
            [-X, h * (0.2 + 0.25 * p1)],
          ],
          c.accent,
          o,
        ),
      );
      parts.push(
        poly(
          [
            [-w * 0.05, -ry * 0.8],
            [w * 0.12, -Y + h * 0.02],
            [w * 0.2, -ry * 0.7],
          ],
          c.accent,
          o,
        ),
      );
      parts.push(c.body(ellipse(w * 0.08, 0, w * 0.4, ry, c.fill, o)));
      parts.push(circle(X * 0.62, -ry * 0.25, Math.max(1, h * 0.05), '#fff', o));
      parts.push(circle(X * 0.62, -ry * 0.25, Math.max(1, h * 0.025), '#111'));
      if (p2 > 0.5)
        parts.push(
          `<line x1="${fmt(X * 0.3)}" y1="${fmt(-ry * 0.7)}" x2="${fmt(X * 0.3)}" y2="${fmt(ry * 0.7)}" stroke="${c.dark}" stroke-width="${fmt(c.sw)}"/>`,
        );
      break;
    }
    case 4: {
      // plant: stem, leaves, flower head of n petals
      const headY = -Y + h * (0.25 + 0.1 * p0);
      parts.push(rect(-w * 0.03, headY, w * 0.06, Y - headY, hsl(110 + 40 * p1, 0.5, 0.3), o));
      parts.push(
        ellipse(
          -w * 0.18,
          headY + h * 0.35,
          w * 0.18,
          h * 0.06,
          hsl(100 + 50 * p1, 0.55, 0.35),
          `${o} transform="rotate(-25 ${fmt(-w * 0.18)} ${fmt(headY + h * 0.35)})"`,
        ),
      );
      parts.push(
        ellipse(
          w * 0.18,
          headY + h * 0.5,
          w * 0.18,
          h * 0.06,
          hsl(100 + 50 * p1, 0.55, 0.35),
          `${o} transform="rotate(25 ${fmt(w * 0.18)} ${fmt(headY + h * 0.5)})"`,
        ),
      );
      const n = 4 + Math.floor(p2 * 6);
      const pr = Math.min(w * 0.5, h * 0.25) * (0.45 + 0.2 * p3);
      for (let i = 0; i < n; i++) {
        const a = (2 * Math.PI * i) / n;
        parts.push(c.body(circle(Math.cos(a) * pr, headY + Math.sin(a) * pr, pr * 0.6, c.fill, o)));
      }
      parts.push(circle(0, headY, pr * 0.55, c.accent, o));
      break;
    }
    case 5: {
      // produce: round body, stalk, leaf, highlight
      const rx = w * (0.4 + 0.08 * p0);
      const ry = h * (0.36 + 0.08 * p1);
      const cy = Y - ry - h * 0.02;
      parts.push(rect(-w * 0.02, cy - ry - h * 0.1, w * 0.04, h * 0.14, c.dark));
      parts.push(ellipse(w * 0.1, cy - ry - h * 0.06, w * (0.08 + 0.08 * p2), h * 0.04, hsl(110, 0.55, 0.35), o));
      parts.push(c.body(ellipse(0, cy, rx, ry, c.fill, o)));
      parts.push(ellipse(-rx * 0.35, cy - ry * 0.4, rx * 0.2, ry * 0.12, c.light, ' fill-opacity="0.5"'));
      break;
    }
    case 6: {
      // prepared food on a plate
      parts.push(ellipse(0, Y - h * 0.18, X * 0.98, h * 0.16, c.light, o));
      const top = -Y + h * (0.1 + 0.25 * p0);
      const fw = X * (0.6 + 0.3 * p1);
      parts.push(
        c.body(
          `<path d="M ${fmt(-fw)} ${fmt(Y - h * 0.2)} Q ${fmt(-fw)} ${fmt(top)} 0 ${fmt(top)} Q ${fmt(fw)} ${fmt(top)} ${fmt(fw)} ${fmt(Y - h * 0.2)} Z" fill="${c.fill}"${o}/>`,
        ),
      );
      const n = 2 + Math.floor(p2 * 4);
      for (let i = 0; i < n; i++)
        parts.push(circle(-fw * 0.5 + (fw * i) / Math.max(1, n - 1), top + h * (0.12 + 0.1 * ((i * 37 * (p3 + 0.1)) % 1)), Math.max(1, h * 0.04), c.accent, o));
      break;
    }
    case 7: {
      // vehicle: cabin, body, windows, wheels
      const bodyTop = -Y + h * (0.35 + 0.15 * p0);
      const bodyBot = Y - h * 0.18;
      const cabL = -X * (0.4 + 0.3 * p1);
      const cabR = X * (0.2 + 0.5 * p2);
      parts.push(
        c.body(
          poly(
            [
              [cabL, bodyTop],
              [cabL + w * 0.08, -Y + h * 0.05],
              [cabR - w * 0.06, -Y + h * 0.05],
              [cabR, bodyTop],
            ],
            c.fill,
            o,
          ),
        ),
      );
      parts.push(c.body(rect(-X, bodyTop, w, bodyBot - bodyTop, c.fill, `${o} rx="${fmt(h * 0.06)}"`)));
      parts.push(rect(cabL + w * 0.09, -Y + h * 0.12, (cabR - cabL) * 0.4, bodyTop + Y - h * 0.16, c.light, o));
      const wr = h * (0.15 + 0.05 * p3);
      const wheels = p3 > 0.75 ? [-0.65, 0, 0.65] : [-0.6, 0.6];
      for (const wx of wheels) {
        parts.push(circle(wx * X, Y - wr, wr, c.dark, o));
        parts.push(circle(wx * X, Y - wr, wr * 0.45, c.accent));
      }
      break;
    }
    case 8: {
      // furniture: back, top slab, legs
      const seatY = -Y + h * (0.35 + 0.25 * p0);
      const slab = h * (0.08 + 0.08 * p1);
      if (p2 > 0.35) parts.push(c.body(rect(-X, -Y, w * 0.16, seatY + Y, c.fill, o)));
      const legW = w * 0.07;
      const legs = p3 > 0.5 ? [-X, X - legW] : [-X, -X * 0.3, X * 0.3 - legW, X - legW];
      for (const lx of legs) parts.push(rect(lx, seatY + slab, legW, Y - seatY - slab, c.accent, o));
      parts.push(c.body(rect(-X, seatY, w, slab, c.fill, `${o} rx="${fmt(slab * 0.3)}"`)));
      break;
    }
    case 9: {
      // container: body with neck and lid
      const neck = X * (0.25 + 0.5 * p0);
      const shoulder = -Y + h * (0.15 + 0.3 * p1);
      const belly = X * (0.8 + 0.2 * p2);
      parts.push(
        c.body(
          `<path d="M ${fmt(-neck)} ${fmt(-Y + h * 0.06)} L ${fmt(-neck)} ${fmt(shoulder)} Q ${fmt(-belly * 1.1)} ${fmt(shoulder + h * 0.1)} ${fmt(-belly)} ${fmt((shoulder + Y) / 2)} L ${fmt(-belly * (0.7 + 0.3 * p3))} ${fmt(Y)} L ${fmt(belly * (0.7 + 0.3 * p3))} ${fmt(Y)} L ${fmt(belly)} ${fmt((shoulder + Y) / 2)} Q ${fmt(belly * 1.1)} ${fmt(shoulder + h * 0.1)} ${fmt(neck)} ${fmt(shoulder)} L ${fmt(neck)} ${fmt(-Y + h * 0.06)} Z" fill="${c.fill}"${o}/>`,
        ),
      );
      parts.push(rect(-neck * 1.1, -Y, neck * 2.2, h * 0.07, c.accent, o));
      break;
    }
    case 10: {
      // tool: handle and head
      const split = -Y + h * (0.3 + 0.2 * p0);
      parts.push(rect(-w * 0.12, split, w * 0.24, Y - split, c.accent, `${o} rx="${fmt(w * 0.08)}"`));
      if (p1 < 0.33) parts.push(c.body(rect(-X, -Y, w, split + Y, c.fill, o)));
      else if (p1 < 0.66)
        parts.push(
          c.body(
            poly(
              [
                [-X * (0.3 + 0.5 * p2), split],
                [0, -Y],
                [X * (0.3 + 0.5 * p2), split],
              ],
              c.fill,
              o,
            ),
          ),
        );
      else parts.push(c.body(ellipse(0, (split - Y) / 2, X * (0.6 + 0.4 * p2), (split + Y) / 2, c.fill, o)));
      break;
    }
    case 11: {
      // device: rounded body, screen, buttons
      parts.push(c.body(rect(-X, -Y, w, h, c.fill, `${o} rx="${fmt(Math.min(w, h) * 0.08)}"`)));
      const sw = w * (0.5 + 0.35 * p0);
      const sh = h * (0.4 + 0.35 * p1);
      parts.push(rect(-X + w * 0.07, -Y + h * 0.08, sw, sh, c.dark, o));
      const n = 1 + Math.floor(p2 * 4);
      for (let i = 0; i < n; i++) parts.push(circle(X - w * 0.1, -Y + h * (0.15 + 0.18 * i), Math.max(1, Math.min(w, h) * 0.05), c.accent, o));
      break;
    }
    case 12: {
      // musical instrument: neck, figure-eight body, strings
      const bodyR = X * (0.75 + 0.25 * p0);
      const cy = Y - bodyR;
      parts.push(rect(-w * 0.08, -Y + h * 0.05, w * 0.16, cy + Y, c.accent, o));
      parts.push(rect(-w * 0.14, -Y, w * 0.28, h * 0.08, c.dark, o));
      parts.push(c.body(circle(0, cy - bodyR * (0.6 + 0.3 * p1), bodyR * (0.55 + 0.25 * p2), c.fill, o)));
      parts.push(c.body(circle(0, cy, bodyR, c.fill, o)));
      parts.push(circle(0, cy - bodyR * 0.2, bodyR * 0.25, c.dark, o));
      const n = 3 + Math.floor(p3 * 4);
      for (let i = 0; i < n; i++) {
        const sx = -w * 0.06 + (w * 0.12 * i) / (n - 1);
        parts.push(
          `<line x1="${fmt(sx)}" y1="${fmt(-Y + h * 0.06)}" x2="${fmt(sx)}" y2="${fmt(cy + bodyR * 0.5)}" stroke="${c.light}" stroke-width="${fmt(Math.max(0.6, c.sw * 0.4))}"/>`,
        );
      }
      break;
    }
    case 13: {
      // garment: T-shaped silhouette with collar
      const sleeve = h * (0.2 + 0.25 * p0);
      const body = X * (0.55 + 0.25 * p1);
      const hem = X * (0.55 + 0.45 * p2);
      parts.push(
        c.body(
          poly(
            [
              [-body * 0.4, -Y],
              [-body, -Y + h * 0.04],
              [-X, -Y + sleeve],
              [-X + w * 0.15, -Y + sleeve + h * 0.08],
              [-body, -Y + sleeve * 0.7],
              [-hem, Y],
              [hem, Y],
              [body, -Y + sleeve * 0.7],
              [X - w * 0.15, -Y + sleeve + h * 0.08],
              [X, -Y + sleeve],
              [body, -Y + h * 0.04],
              [body * 0.4, -Y],
            ],
            c.fill,
            o,
          ),
        ),
      );
      parts.push(ellipse(0, -Y + h * 0.02, body * 0.4, h * (0.04 + 0.05 * p3), c.accent, o));
      break;
    }
    case 14: {
      // building: walls, roof, windows, door
      const roofH = h * (0.1 + 0.25 * p0);
      parts.push(c.body(rect(-X * 0.9, -Y + roofH, w * 0.9, h - roofH, c.fill, o)));
      if (p1 < 0.6)
        parts.push(
          poly(
            [
              [-X, -Y + roofH],
              [0, -Y],
              [X, -Y + roofH],
            ],
            c.accent,
            o,
          ),
        );
      else parts.push(rect(-X, -Y + roofH * 0.6, w, roofH * 0.4, c.accent, o));
      const cols = 2 + Math.floor(p2 * 3);
      const rows = 1 + Math.floor(p3 * 4);
      const cw = (w * 0.9) / cols;
      const rh = ((h - roofH) * 0.7) / rows;
      for (let i = 0; i < cols; i++)
        for (let j = 0; j < rows; j++) parts.push(rect(-X * 0.9 + cw * (i + 0.25), -Y + roofH + rh * (j + 0.25), cw * 0.5, rh * 0.5, c.light, o));
      parts.push(rect(-w * 0.07, Y - h * 0.2, w * 0.14, h * 0.2, c.dark, o));
      break;
    }
    default: {
      // sports & play equipment: ball with seams
      const r = Math.min(X, Y) * 0.98;
      parts.push(c.body(ellipse(0, 0, X * 0.98, Y * 0.98, c.fill, o)));
      const k = 0.3 + 0.5 * p0;
      parts.push(
        `<path d="M ${fmt(-X * 0.9)} ${fmt(-Y * k)} Q 0 ${fmt(Y * (0.2 + p1 * 0.5))} ${fmt(X * 0.9)} ${fmt(-Y * k)}" fill="none" stroke="${c.accent}" stroke-width="${fmt(Math.max(1, r * 0.06))}"/>`,
      );
      if (p2 > 0.4)
        parts.push(
          `<path d="M ${fmt(-X * 0.9)} ${fmt(Y * k)} Q 0 ${fmt(-Y * (0.2 + p3 * 0.5))} ${fmt(X * 0.9)} ${fmt(Y * k)}" fill="none" stroke="${c.accent}" stroke-width="${fmt(Math.max(1, r * 0.06))}"/>`,
        );
      break;
    }
  }
  return parts;
}

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
    const parts = figure(sig, f.width, f.height, paint);
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
