/**
 * Thumbnails for the sidebar and caption grids: small JPEGs in `runs/<id>/thumbs/`, made once per
 * image URL into a shared cache and copied into each run that shows the image.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import { ImageSource } from '../data/images';
import { loadSharp } from '../util/sharp';
import { THUMBS_DIR } from './layout';
import { writeFileAtomic } from '../util/atomic';

export const THUMB_SIZE = 160;

function cacheName(url: string): string {
  return crypto.createHash('sha1').update(url).digest('hex').slice(0, 20) + '.jpg';
}

/** Writes thumbnails of `urls` into `runDir/thumbs/`; returns url → path relative to the run dir. */
export async function writeThumbnails(runDir: string, images: readonly { id: string | number; url: string }[], cacheDir: string, source = new ImageSource()): Promise<Record<string, string>> {
  const sharp = loadSharp();
  fs.mkdirSync(cacheDir, { recursive: true });
  fs.mkdirSync(path.join(runDir, THUMBS_DIR), { recursive: true });
  const out: Record<string, string> = {};
  for (const image of images) {
    const cached = path.join(cacheDir, cacheName(image.url));
    if (!fs.existsSync(cached)) {
      const fetched = await source.fetch(image.url);
      if (!fetched.ok) continue; // the grid shows the caption without a picture
      const jpeg = await sharp(fetched.bytes).resize(THUMB_SIZE, THUMB_SIZE, { fit: 'inside' }).jpeg({ quality: 80 }).toBuffer();
      writeFileAtomic(cached, jpeg);
    }
    const rel = path.join(THUMBS_DIR, `${String(image.id).replace(/[^\w.-]/g, '_')}.jpg`);
    fs.copyFileSync(cached, path.join(runDir, rel));
    out[String(image.id)] = rel;
  }
  return out;
}
