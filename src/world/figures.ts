/**
 * The world's 16 shape families, in the order of their numbers (src/world/concepts.ts gives each concept its
 * family): each with its name, its base frame aspect (width / height) and how its figure is drawn as SVG parts in
 * the object's local frame, x ∈ [−w/2, w/2], y ∈ [−h/2, h/2] (y down). Family numbers outside the table draw the last.
 */
import { circle, ellipse, fmt, hsl, poly, rect } from './svg';

/** How a figure is painted: colours, stroke and the marker of its body parts (the texture is clipped to them). */
export interface Paint {
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

/** A figure's frame: size, half-size, the signature's proportion details p0–p3, paint and the stroke attributes. */
interface FigureFrame {
  w: number;
  h: number;
  X: number;
  Y: number;
  p0: number;
  p1: number;
  p2: number;
  p3: number;
  c: Paint;
  /** ` stroke="…" stroke-width="…"`, appended to outlined parts. */
  o: string;
}

export interface ShapeFamily {
  name: string;
  /** Base frame aspect (width / height). */
  aspect: number;
  draw: (frame: FigureFrame) => string[];
}

/** Person: head, torso, legs, arms. */
function drawPerson({ p0, p1, p2, p3, Y, w, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
  const r = h * (0.09 + 0.03 * p0);
  const tw = w * (0.55 + 0.3 * p1);
  const hip = -Y + 2 * r + h * (0.35 + 0.1 * p2);
  parts.push(rect(-tw / 2 - w * 0.12, -Y + 2.2 * r, w * 0.14, h * 0.38, c.accent, o));
  parts.push(rect(tw / 2 - w * 0.02, -Y + 2.2 * r, w * 0.14, h * 0.38, c.accent, o));
  parts.push(c.body(rect(-tw / 2, -Y + 2 * r, tw, hip + Y - 2 * r, c.fill, `${o} rx="${fmt(w * 0.1)}"`)));
  parts.push(rect(-tw / 2 + w * 0.03, hip, tw * 0.42, Y - hip, c.dark, o));
  parts.push(rect(tw / 2 - w * 0.03 - tw * 0.42, hip, tw * 0.42, Y - hip, c.dark, o));
  parts.push(circle(0, -Y + r, r, hsl(25 + 20 * p3, 0.45, 0.35 + 0.4 * p3), o));
  return parts;
}

/** Quadruped: legs, body, head, ears, tail. */
function drawQuadruped({ p0, p1, p2, p3, X, Y, w, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
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
  return parts;
}

/** Bird: tail, legs, body, wing, head, beak. */
function drawBird({ p0, p1, p2, p3, X, Y, w, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
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
  return parts;
}

/** Fish-like: tail, body, fin, eye. */
function drawFishLike({ p0, p1, p2, X, Y, w, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
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
    parts.push(`<line x1="${fmt(X * 0.3)}" y1="${fmt(-ry * 0.7)}" x2="${fmt(X * 0.3)}" y2="${fmt(ry * 0.7)}" stroke="${c.dark}" stroke-width="${fmt(c.sw)}"/>`);
  return parts;
}

/** Plant: stem, leaves, flower head of n petals. */
function drawPlant({ p0, p1, p2, p3, Y, w, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
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
  return parts;
}

/** Produce: round body, stalk, leaf, highlight. */
function drawProduce({ p0, p1, p2, Y, w, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
  const rx = w * (0.4 + 0.08 * p0);
  const ry = h * (0.36 + 0.08 * p1);
  const cy = Y - ry - h * 0.02;
  parts.push(rect(-w * 0.02, cy - ry - h * 0.1, w * 0.04, h * 0.14, c.dark));
  parts.push(ellipse(w * 0.1, cy - ry - h * 0.06, w * (0.08 + 0.08 * p2), h * 0.04, hsl(110, 0.55, 0.35), o));
  parts.push(c.body(ellipse(0, cy, rx, ry, c.fill, o)));
  parts.push(ellipse(-rx * 0.35, cy - ry * 0.4, rx * 0.2, ry * 0.12, c.light, ' fill-opacity="0.5"'));
  return parts;
}

/** Prepared food on a plate. */
function drawPreparedFood({ p0, p1, p2, p3, X, Y, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
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
  return parts;
}

/** Vehicle: cabin, body, windows, wheels. */
function drawVehicle({ p0, p1, p2, p3, X, Y, w, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
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
  return parts;
}

/** Furniture: back, top slab, legs. */
function drawFurniture({ p0, p1, p2, p3, X, Y, w, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
  const seatY = -Y + h * (0.35 + 0.25 * p0);
  const slab = h * (0.08 + 0.08 * p1);
  if (p2 > 0.35) parts.push(c.body(rect(-X, -Y, w * 0.16, seatY + Y, c.fill, o)));
  const legW = w * 0.07;
  const legs = p3 > 0.5 ? [-X, X - legW] : [-X, -X * 0.3, X * 0.3 - legW, X - legW];
  for (const lx of legs) parts.push(rect(lx, seatY + slab, legW, Y - seatY - slab, c.accent, o));
  parts.push(c.body(rect(-X, seatY, w, slab, c.fill, `${o} rx="${fmt(slab * 0.3)}"`)));
  return parts;
}

/** Container: body with neck and lid. */
function drawContainer({ p0, p1, p2, p3, X, Y, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
  const neck = X * (0.25 + 0.5 * p0);
  const shoulder = -Y + h * (0.15 + 0.3 * p1);
  const belly = X * (0.8 + 0.2 * p2);
  parts.push(
    c.body(
      `<path d="M ${fmt(-neck)} ${fmt(-Y + h * 0.06)} L ${fmt(-neck)} ${fmt(shoulder)} Q ${fmt(-belly * 1.1)} ${fmt(shoulder + h * 0.1)} ${fmt(-belly)} ${fmt((shoulder + Y) / 2)} L ${fmt(-belly * (0.7 + 0.3 * p3))} ${fmt(Y)} L ${fmt(belly * (0.7 + 0.3 * p3))} ${fmt(Y)} L ${fmt(belly)} ${fmt((shoulder + Y) / 2)} Q ${fmt(belly * 1.1)} ${fmt(shoulder + h * 0.1)} ${fmt(neck)} ${fmt(shoulder)} L ${fmt(neck)} ${fmt(-Y + h * 0.06)} Z" fill="${c.fill}"${o}/>`,
    ),
  );
  parts.push(rect(-neck * 1.1, -Y, neck * 2.2, h * 0.07, c.accent, o));
  return parts;
}

/** Tool: handle and head. */
function drawTool({ p0, p1, p2, X, Y, w, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
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
  return parts;
}

/** Device: rounded body, screen, buttons. */
function drawDevice({ p0, p1, p2, X, Y, w, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
  parts.push(c.body(rect(-X, -Y, w, h, c.fill, `${o} rx="${fmt(Math.min(w, h) * 0.08)}"`)));
  const sw = w * (0.5 + 0.35 * p0);
  const sh = h * (0.4 + 0.35 * p1);
  parts.push(rect(-X + w * 0.07, -Y + h * 0.08, sw, sh, c.dark, o));
  const n = 1 + Math.floor(p2 * 4);
  for (let i = 0; i < n; i++) parts.push(circle(X - w * 0.1, -Y + h * (0.15 + 0.18 * i), Math.max(1, Math.min(w, h) * 0.05), c.accent, o));
  return parts;
}

/** Musical instrument: neck, figure-eight body, strings. */
function drawInstrument({ p0, p1, p2, p3, X, Y, w, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
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
  return parts;
}

/** Garment: t-shaped silhouette with collar. */
function drawGarment({ p0, p1, p2, p3, X, Y, w, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
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
  return parts;
}

/** Building: walls, roof, windows, door. */
function drawBuilding({ p0, p1, p2, p3, X, Y, w, h, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
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
  return parts;
}

/** Sports & play equipment: ball with seams. */
function drawBall({ p0, p1, p2, p3, X, Y, c, o }: FigureFrame): string[] {
  const parts: string[] = [];
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
  return parts;
}

export const SHAPE_FAMILIES: readonly ShapeFamily[] = [
  { name: 'person', aspect: 0.45, draw: drawPerson },
  { name: 'mammal', aspect: 1.45, draw: drawQuadruped },
  { name: 'bird', aspect: 1.1, draw: drawBird },
  { name: 'fish, reptile & other animal', aspect: 1.7, draw: drawFishLike },
  { name: 'plant & flower', aspect: 0.75, draw: drawPlant },
  { name: 'fruit & vegetable', aspect: 1.0, draw: drawProduce },
  { name: 'prepared food', aspect: 1.35, draw: drawPreparedFood },
  { name: 'vehicle', aspect: 1.8, draw: drawVehicle },
  { name: 'furniture & fixture', aspect: 1.05, draw: drawFurniture },
  { name: 'container & tableware', aspect: 0.7, draw: drawContainer },
  { name: 'tool & implement', aspect: 0.4, draw: drawTool },
  { name: 'device & other artifact', aspect: 1.25, draw: drawDevice },
  { name: 'musical instrument', aspect: 0.5, draw: drawInstrument },
  { name: 'clothing & accessory', aspect: 0.95, draw: drawGarment },
  { name: 'building & structure', aspect: 0.9, draw: drawBuilding },
  { name: 'sports & play equipment', aspect: 1.0, draw: drawBall },
];

/** The figure of family `family` (proportions `params`) as SVG parts in a w × h local frame. */
export function figureParts(family: number, params: readonly [number, number, number, number], w: number, h: number, c: Paint): string[] {
  const [p0, p1, p2, p3] = params;
  const shape = SHAPE_FAMILIES[family] ?? SHAPE_FAMILIES[SHAPE_FAMILIES.length - 1]!;
  return shape.draw({ w, h, X: w / 2, Y: h / 2, p0, p1, p2, p3, c, o: ` stroke="${c.stroke}" stroke-width="${fmt(c.sw)}"` });
}
