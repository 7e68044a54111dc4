/**
 * CC3M §5.2's training augmentation, random crops of 50–100% of the image with distortion, applied to stored
 * features: each cell of the crop's 8×8 grid is the area-weighted average of the image's 8×8 map under it (RoI
 * pooling, as regions.ts does for boxes), and its global vector the mean of those cells, as for a whole image
 * (features.ts). A crop thus costs no backbone call. It approximates cropping the pixels: a backbone run on the
 * crop would see no context beyond its border, and cells finer than the stored 8×8 are interpolated, not seen.
 */
import { roiAverage, type RegionBox } from './regions';
import { GRID_SIZE, type ImageFeatures } from './features';

export interface CropAugmentation {
  /** Shares of the image's area a crop keeps, drawn uniformly between them (CC3M §5.2: 50%–100%). */
  minArea: number;
  maxArea: number;
  /**
   * Width/height distortion of the crop, drawn log-uniformly in [min, max]. §5.2 says "with distortion" and gives
   * no range: cckit uses Inception's [3/4, 4/3] (Szegedy et al. 2015), a parameter.
   */
  aspect: readonly [number, number];
}

/** CC3M §5.2's crops. */
export const CC3M_CROPS: CropAugmentation = { minArea: 0.5, maxArea: 1, aspect: [3 / 4, 4 / 3] };

/** A random crop box [x1, y1, x2, y2] (image fractions). */
export function randomCropBox(random: () => number, crop: CropAugmentation): RegionBox {
  if (!(crop.minArea > 0 && crop.minArea <= crop.maxArea && crop.maxArea <= 1))
    throw new Error(`crop: area shares must satisfy 0 < min ≤ max ≤ 1 (got ${crop.minArea}, ${crop.maxArea})`);
  if (!(crop.aspect[0] > 0 && crop.aspect[0] <= crop.aspect[1])) throw new Error(`crop: aspect range [${crop.aspect.join(', ')}] is not 0 < min ≤ max`);
  const area = crop.minArea + (crop.maxArea - crop.minArea) * random();
  const [lo, hi] = crop.aspect;
  const aspect = Math.exp(Math.log(lo) + (Math.log(hi) - Math.log(lo)) * random());
  const w = Math.min(1, Math.sqrt(area * aspect));
  const h = Math.min(1, Math.sqrt(area / aspect));
  const x = (1 - w) * random();
  const y = (1 - h) * random();
  return [x, y, x + w, y + h];
}

/** The features of `box` of the image: its grid resampled from the stored grid, its global vector their mean. */
export function croppedFeatures(features: ImageFeatures, box: RegionBox): ImageFeatures {
  const g = GRID_SIZE;
  const d = features.global.length;
  if (features.grid.length !== g * g * d) throw new Error(`crop: ${features.key} has no ${g}×${g} grid`);
  const [x1, y1, x2, y2] = box;
  const cw = (x2 - x1) / g;
  const ch = (y2 - y1) / g;
  const grid = new Float32Array(g * g * d);
  const global = new Float32Array(d);
  for (let r = 0; r < g; r++) {
    for (let c = 0; c < g; c++) {
      const at = (r * g + c) * d;
      roiAverage(features.grid, g, d, [x1 + c * cw, y1 + r * ch, x1 + (c + 1) * cw, y1 + (r + 1) * ch], grid, at);
      for (let k = 0; k < d; k++) global[k] += grid[at + k]!;
    }
  }
  for (let k = 0; k < d; k++) global[k] /= g * g;
  return { ...features, global, grid };
}
