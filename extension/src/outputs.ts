/**
 * Kernel outputs (Jupyter-shaped, kernel/protocol.ts) → notebook output items: one item per MIME type,
 * JSON types as JSON, images from base64 to bytes, text as UTF-8. Pure (no vscode import) so it is tested
 * in plain Node; controller.ts wraps the results in vscode.NotebookCellOutputItem.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { MimeBundle } from '../../kernel/protocol';

export const PLOTLY_MIME = 'application/vnd.plotly.v1+json';
export const CAPTIONS_MIME = 'application/vnd.cckit.captions+json';
/** Published by `show.run(runDir)` (`show.compare`): the sidebar shows that run (the comparison). Not rendered in the notebook. */
export const RUN_MIME = 'application/vnd.cckit.run+json';

export interface Item {
  mime: string;
  data: Uint8Array;
}

/** Richest first; VS Code picks the renderer itself, this only keeps saved notebooks tidy. */
const ORDER = [
  PLOTLY_MIME,
  CAPTIONS_MIME,
  'text/html',
  'image/svg+xml',
  'image/png',
  'image/jpeg',
  'image/gif',
  'text/markdown',
  'application/json',
  'text/plain',
];
const BINARY = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

const enc = new TextEncoder();

export function isJsonMime(mime: string): boolean {
  return mime === 'application/json' || mime.endsWith('+json');
}

/** One bundle → items, richest first; `transform` may rewrite a payload (caption images) first. */
export function bundleItems(bundle: MimeBundle, transform?: (mime: string, value: unknown) => unknown): Item[] {
  const mimes = Object.keys(bundle).filter((m) => m !== RUN_MIME);
  const rank = (m: string) => {
    const i = ORDER.indexOf(m);
    return i < 0 ? -1 : i;
  };
  mimes.sort((a, b) => rank(a) - rank(b));
  const out: Item[] = [];
  for (const mime of mimes) {
    let value = bundle[mime];
    if (transform) value = transform(mime, value);
    if (BINARY.has(mime)) {
      const b64 = Array.isArray(value) ? value.join('') : String(value);
      out.push({ mime, data: new Uint8Array(Buffer.from(b64, 'base64')) });
    } else if (isJsonMime(mime)) {
      out.push({ mime, data: enc.encode(typeof value === 'string' ? value : JSON.stringify(value)) });
    } else {
      out.push({ mime, data: enc.encode(Array.isArray(value) ? value.join('') : typeof value === 'string' ? value : JSON.stringify(value)) });
    }
  }
  return out;
}

/** The run a bundle points the sidebar at, if it carries one (and the run to compare it with: `show.compare`). */
export function runOf(bundle: MimeBundle): { runDir: string; split?: string; compareWith?: string } | undefined {
  const v = bundle[RUN_MIME] as { runDir?: unknown; split?: unknown; compareWith?: unknown } | undefined;
  if (!v || typeof v.runDir !== 'string') return undefined;
  return {
    runDir: v.runDir,
    ...(typeof v.split === 'string' ? { split: v.split } : {}),
    ...(typeof v.compareWith === 'string' && v.compareWith ? { compareWith: v.compareWith } : {}),
  };
}

const IMAGE_TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
};
/** Largest image inlined into a caption grid. */
export const MAX_INLINE_IMAGE = 2 * 1024 * 1024;

function inside(file: string, roots: string[]): boolean {
  return roots.some((r) => {
    const rel = path.relative(r, file);
    return rel === '' || (rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel));
  });
}

function realPath(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

/**
 * A caption grid's `image` fields that name local files (absolute, `file://`, or relative to `baseDir`)
 * become `data:` URIs, so the renderer never loads anything itself. Only files under `roots` (the
 * workspace folders) are read, judged by real path (symlinks resolved, in the file and in the roots), so
 * a link inside the workspace to a file outside it is not read; others, remote URLs and unreadable files are
 * dropped (the grid shows a placeholder). `data:image/` URIs pass unchanged.
 */
export function inlineCaptionImages(value: unknown, baseDir: string, roots: string[]): unknown {
  const v = value as { items?: Array<Record<string, unknown>> } | null;
  if (!v || !Array.isArray(v.items)) return value;
  let realRoots: string[] | undefined;
  const items = v.items.map((it) => {
    const image = it.image;
    if (typeof image !== 'string' || image.startsWith('data:image/')) return it;
    const { image: _drop, ...rest } = it;
    if (/^[a-z][a-z0-9+.-]*:/i.test(image) && !image.startsWith('file://')) return { ...rest, imageNote: 'remote image not loaded' };
    const file = image.startsWith('file://') ? new URL(image).pathname : path.resolve(baseDir, image);
    const type = IMAGE_TYPES[path.extname(file).toLowerCase()];
    if (!type || !inside(file, roots)) return { ...rest, imageNote: 'image outside the workspace' };
    const real = realPath(file);
    if (!real) return { ...rest, imageNote: 'image not found' };
    realRoots ??= roots.map((r) => realPath(r)).filter((r): r is string => r !== undefined);
    if (!inside(real, realRoots)) return { ...rest, imageNote: 'image outside the workspace' };
    try {
      const st = fs.statSync(real);
      if (!st.isFile()) return { ...rest, imageNote: 'image not found' };
      if (st.size > MAX_INLINE_IMAGE) return { ...rest, imageNote: 'image too large' };
      return { ...rest, image: `data:${type};base64,${fs.readFileSync(real).toString('base64')}` };
    } catch {
      return { ...rest, imageNote: 'image not found' };
    }
  });
  return { ...v, items };
}
