/**
 * Backbone input pixels: every image becomes `size × size` packed RGB bytes, squashed (not
 * cropped) so every object stays in view and a box maps to the input by scaling its axes.
 *
 * - World images (`world://SEED/SPLIT/ID`) are rasterised straight at the input size from the
 *   scene's SVG, then blended toward mid-grey by the alpha of the full-size renderer's grain tile
 *   (the grain is zero-mean noise around 127.5, so after a downscale only that blend survives).
 *   Against decode + resize of the full-size JPEG the pixels differ by a few levels in 255, at a
 *   fraction of the cost (docs/vision.md has the measurement); the two paths are interchangeable.
 * - Anything else (files, downloads, shard members) is decoded by sharp and resized with
 *   `fit: 'fill'` (libvips's default kernel), alpha flattened onto black.
 */
import { sceneSvg } from '../world/render';
import type { Concept, Scene } from '../world/types';
import { loadSharp } from '../util/sharp';

/**
 * Names the way images become backbone pixels (decodePixels, renderScenePixels): the feature store keeps it with
 * its entries and does not reuse features made another way. Raise it when a change here changes the pixels.
 */
export const PIXELS_VERSION = 1;

/** Square RGB pixels of one image and the size of the image they came from. */
export interface SquarePixels {
  rgb: Uint8Array;
  size: number;
  /** The original image's width and height (boxes are given in these pixels). */
  width: number;
  height: number;
}

/** Alpha (0–1) of the full-size renderer's grain overlay for a scene (see render.ts). */
export function grainAlpha(scene: Scene): number {
  return scene.background.noise > 0.02 ? Math.round(Math.min(1, Math.max(0, scene.background.noise)) * 70) / 255 : 0;
}

/** The scene's SVG with its drawing size set to size × size (the viewBox stays: the scene is squashed). */
export function squareSvg(scene: Scene, concepts: readonly Concept[], size: number): string {
  const svg = sceneSvg(scene, concepts);
  const head = `<svg xmlns="http://www.w3.org/2000/svg" width="${scene.width}" height="${scene.height}"`;
  if (!svg.startsWith(head)) throw new Error('squareSvg: unexpected SVG header from sceneSvg');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" preserveAspectRatio="none"` + svg.slice(head.length);
}

/** Rasterises a world scene directly at size × size (see the module comment). */
export async function renderScenePixels(scene: Scene, concepts: readonly Concept[], size: number): Promise<SquarePixels> {
  const sharp = loadSharp();
  const raw = await sharp(Buffer.from(squareSvg(scene, concepts, size)), { density: 72 })
    .removeAlpha()
    .raw()
    .toBuffer();
  if (raw.length !== size * size * 3) throw new Error(`renderScenePixels: expected ${size * size * 3} bytes, got ${raw.length}`);
  const alpha = grainAlpha(scene);
  const rgb = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) rgb[i] = Math.round((1 - alpha) * raw[i]! + alpha * 127.5);
  return { rgb, size, width: scene.width, height: scene.height };
}

/** Decodes any image sharp reads (JPEG, PNG, GIF, WebP, …) to size × size RGB, squashed. */
export async function decodePixels(bytes: Buffer, size: number): Promise<SquarePixels> {
  const sharp = loadSharp();
  const image = sharp(bytes, { failOn: 'none', pages: 1 });
  const meta = await image.metadata();
  const width = meta.autoOrient?.width ?? meta.width ?? 0;
  const height = meta.autoOrient?.height ?? meta.height ?? 0;
  const raw = await image
    .rotate()
    .flatten({ background: { r: 0, g: 0, b: 0 } })
    .resize(size, size, { fit: 'fill' })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer();
  if (raw.length !== size * size * 3) throw new Error(`decodePixels: expected ${size * size * 3} bytes, got ${raw.length}`);
  return { rgb: new Uint8Array(raw.buffer, raw.byteOffset, raw.length), size, width, height };
}
