/**
 * Region geometry and ROI pooling on the backbone's feature map.
 *
 * A region is a box in fractions of the image: [x1, y1, x2, y2] with 0 ≤ x1 < x2 ≤ 1. Its five
 * geometric numbers (CC12M §4: "two corners and relative area") are
 * [x1, y1, x2, y2, (x2 − x1)·(y2 − y1)], i.e. pixel corners over W and H and the box area over W·H.
 * The global position's geometry is [0, 0, 1, 1, 1].
 *
 * Region vectors are ROI averages of the g×g feature map: each cell weighted by the fraction of
 * it the box covers, so a box smaller than a cell still gets the cell it sits in. Images are
 * squashed to the square input, so a box maps to the map by scaling its axes.
 */
import type { Box } from '../world/types';

export const GEOMETRY_DIM = 5;
export const GLOBAL_GEOMETRY: readonly number[] = [0, 0, 1, 1, 1];
export const MAX_REGIONS = 16;

export type RegionBox = [x1: number, y1: number, x2: number, y2: number];

/** A pixel box of a width × height image as fractions, clipped to the image. */
export function normalizedBox(box: Box, width: number, height: number): RegionBox {
  const clamp = (v: number) => Math.min(1, Math.max(0, v));
  return [clamp(box.x / width), clamp(box.y / height), clamp((box.x + box.width) / width), clamp((box.y + box.height) / height)];
}

/** The five geometric numbers of a box. */
export function geometry(box: RegionBox): [number, number, number, number, number] {
  const [x1, y1, x2, y2] = box;
  return [x1, y1, x2, y2, Math.max(0, x2 - x1) * Math.max(0, y2 - y1)];
}

/** Boxes by area, largest first (ties: top-left first), at most `max`, empty boxes dropped. */
export function orderRegions(boxes: readonly RegionBox[], max = MAX_REGIONS): RegionBox[] {
  return boxes
    .filter((b) => b[2] > b[0] && b[3] > b[1])
    .map((b, i) => ({ b, i, area: geometry(b)[4] }))
    .sort((p, q) => q.area - p.area || p.b[1] - q.b[1] || p.b[0] - q.b[0] || p.i - q.i)
    .slice(0, max)
    .map((p) => p.b);
}

/**
 * ROI average of a box over one image's feature map (row-major [g, g, D] floats) into `out`
 * (D floats at `outOffset`).
 */
export function roiAverage(map: Float32Array, g: number, d: number, box: RegionBox, out: Float32Array, outOffset = 0): void {
  const [x1, y1, x2, y2] = box;
  let total = 0;
  out.fill(0, outOffset, outOffset + d);
  for (let r = 0; r < g; r++) {
    const oy = Math.min(y2, (r + 1) / g) - Math.max(y1, r / g);
    if (oy <= 0) continue;
    for (let c = 0; c < g; c++) {
      const ox = Math.min(x2, (c + 1) / g) - Math.max(x1, c / g);
      if (ox <= 0) continue;
      const w = ox * oy;
      total += w;
      const base = (r * g + c) * d;
      for (let k = 0; k < d; k++) out[outOffset + k] += w * map[base + k]!;
    }
  }
  if (total > 0) for (let k = 0; k < d; k++) out[outOffset + k] /= total;
}

/** Tiles of an n×n partition of the image (a fallback region set for images with no boxes). */
export function tileBoxes(n: number): RegionBox[] {
  const out: RegionBox[] = [];
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) out.push([c / n, r / n, (c + 1) / n, (r + 1) / n]);
  return out;
}
