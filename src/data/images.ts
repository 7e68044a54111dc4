/**
 * The one image loader: where an image's bytes come from. The embedded world renders world:// URLs
 * (resolved here, once, for every stage); local paths and file:// URLs are read (regular files
 * only, size-capped, relative paths against `baseDir`); http(s) URLs are downloaded by the
 * bounded, safe fetcher in fetch.ts (deadline, streamed cap, no private addresses, manual
 * redirects, X-Robots-Tag opt-outs). A URL asked for twice in one run is fetched once. Failures
 * become rejection reasons, never exceptions, so a run goes on.
 */
import * as fs from 'fs';
import * as path from 'path';
import { fileURLToPath } from 'url';
import { PACKAGE_ROOT } from '../paths';
import { fetchHttp, type FetchFailure } from './fetch';
import { World } from '../world/world';
import { WorldImageRef, isWorldUrl, parseWorldUrl } from '../world/url';

/**
 * World instances by seed and Zipf exponent, the most recently used last (building a catalog takes
 * a few ms; scenes are pure functions). Capped, because a URL list is untrusted: one naming
 * thousands of seeds or exponents would otherwise keep a catalog for each.
 */
export const WORLD_CACHE_LIMIT = 32;
const worlds = new Map<string, World>();
export function worldFor(seed: number, zipf?: number): World {
  const key = `${seed}/${zipf ?? 1}`;
  let world = worlds.get(key);
  if (world) worlds.delete(key);
  else world = new World({ seed, zipfExponent: zipf });
  worlds.set(key, world);
  if (worlds.size > WORLD_CACHE_LIMIT) worlds.delete(worlds.keys().next().value as string);
  return world;
}

/** The world image a `world://` URL names, or undefined for any other URL; a malformed world URL throws. */
export function resolveWorldImage(url: string): { world: World; ref: WorldImageRef } | undefined {
  if (!isWorldUrl(url)) return undefined;
  const ref = parseWorldUrl(url);
  const { extension: _extension, ...imageRef } = ref;
  return { world: worldFor(ref.seed, ref.zipf), ref: imageRef };
}

export type ImageFetch = { ok: true; bytes: Buffer } | FetchFailure;

export interface ImageSourceOptions {
  /** One deadline for a whole download: DNS, redirects, headers and body. */
  timeoutMs: number;
  /** Largest image, counted after HTTP decompression; also the cap for local files. */
  maxBytes: number;
  /** Redirect hops followed (default 5). */
  maxRedirects: number;
  /** Fetch from loopback / private / link-local addresses too (a local test server). Default false. */
  allowPrivate: boolean;
  /** Hosts (`host` or `host:port`) fetched even when their address is private; the rest stays refused. */
  allowHosts?: readonly string[];
  /** Download images whose X-Robots-Tag opts out (noai, noimageai, noindex, noimageindex). Default false. */
  ignoreRobotsTag: boolean;
  /** Contact (e-mail or URL) added to the User-Agent so site owners can reach whoever runs the crawl. */
  contact?: string;
  /** Folder that relative local paths are resolved against (the input list's folder); default: the working directory. */
  baseDir?: string;
  /**
   * Which local paths and file:// URLs may be read (`LocalFilePolicy`). Default 'any': the library's callers name
   * their own files (a notebook's `REAL` paths, a test's temporary folder). The commands that read a list set it:
   * filter, features and caption 'inside-list' (`fetchFlags`: image folders beside their list, never a row's /etc/…,
   * ../… or file:///home/…), `cckit download` 'none' (a URL list comes from the web); `--allow-local-files` gives 'any'.
   */
  localFiles: LocalFilePolicy;
  /** Bytes of recent successful fetches kept for repeated URLs (default 32 MiB; 0: none). */
  memoBytes: number;
  /** Recent results (successes and failures) remembered for repeated URLs (default 4096). */
  memoEntries: number;
  /** Host → addresses, for tests (default: the system resolver). */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

export const DEFAULT_IMAGE_SOURCE: Readonly<ImageSourceOptions> = Object.freeze({
  timeoutMs: 10_000,
  maxBytes: 20 * 1024 * 1024,
  maxRedirects: 5,
  allowPrivate: false,
  ignoreRobotsTag: false,
  localFiles: 'any',
  memoBytes: 32 * 1024 * 1024,
  memoEntries: 4096,
});

let version: string | undefined;
/** `cckit/<version> (research image–text dataset tool; +<contact>)`. */
export function userAgent(contact?: string): string {
  version ??= (JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  return `cckit/${version} (research image-text dataset tool${contact ? `; +${contact}` : ''})`;
}

/** A scheme other than a Windows drive letter ("C:\\…"). */
const SCHEME = /^([a-z][a-z0-9+.-]+):/i;

function failure(reason: string, detail?: string): FetchFailure {
  return detail === undefined ? { ok: false, reason } : { ok: false, reason, detail: detail.slice(0, 200) };
}

/**
 * What a list row may name on the local disk:
 * - 'none': nothing (a URL list from the web: `cckit download`);
 * - 'inside-list': paths and file:// URLs that lie inside the list's folder (what filter, features, caption and split
 *   read from a list by default): one that leaves it (an absolute path elsewhere, a `..`) is refused by its text alone, so a row cannot
 *   learn which files exist outside; a symlink inside that leads out is refused when read;
 * - 'any': any path (`--allow-local-files`: a list the user wrote; and the library's own callers).
 */
export type LocalFilePolicy = 'none' | 'inside-list' | 'any';

const isInside = (file: string, folder: string): boolean => {
  const relative = path.relative(folder, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
};

/**
 * The file a row's local path (or file:// URL, already turned into a path) names under `policy`, resolved against the
 * list's folder; or why it may not be read. Decided from the text only: no file-system access.
 */
export function localFileTarget(name: string, baseDir: string, policy: LocalFilePolicy): { file: string } | { reason: string; detail: string } {
  if (policy === 'none')
    return { reason: 'download:local-file-refused', detail: `${name}: only http(s) URLs are fetched (--allow-local-files reads local paths)` };
  const base = path.resolve(baseDir);
  const file = path.resolve(base, name);
  if (policy === 'inside-list' && !isInside(file, base))
    return {
      reason: 'download:local-file-outside-list',
      detail: `${name}: a list's rows may name files inside its folder only (--allow-local-files reads any path)`,
    };
  return { file };
}

/**
 * Under 'inside-list', why `file` (inside `baseDir` as text) leads out of `baseDir` once its symlinks are followed;
 * undefined when it does not. Links are followed as the kernel would, one path component at a time, but each link's
 * target is checked as text before anything at it is looked at, so a link leading out gets the same answer whether its
 * target exists or not (no oracle for which outside files exist); a missing component inside the folder ends the walk
 * (the read then says "not found", which is true of a path inside the list's folder).
 */
export function symlinkEscape(file: string, baseDir: string): { reason: string; detail: string } | undefined {
  const out = { reason: 'download:local-file-outside-list', detail: `${file}: a link that leads out of the list's folder` };
  let base: string;
  try {
    base = fs.realpathSync(path.resolve(baseDir));
  } catch {
    return undefined; // no list folder to leave: the read fails on its own
  }
  let remaining = path
    .relative(path.resolve(baseDir), path.resolve(file))
    .split(path.sep)
    .filter((part) => part !== '' && part !== '.');
  let current = base;
  for (let hops = 0; remaining.length > 0;) {
    const part = remaining.shift()!;
    const next = part === '..' ? path.dirname(current) : path.join(current, part);
    if (!isInside(next, base)) return out;
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(next);
    } catch {
      return undefined; // missing inside the folder
    }
    if (!stat.isSymbolicLink()) {
      current = next;
      continue;
    }
    if (++hops > 40) return { reason: 'download:bad-path', detail: `${file}: too many levels of links` };
    const target = path.resolve(path.dirname(next), fs.readlinkSync(next));
    if (!isInside(target, base)) return out;
    // go on from the base along the link's target, then the rest of the path
    remaining = [
      ...path
        .relative(base, target)
        .split(path.sep)
        .filter((p) => p !== '' && p !== '.'),
      ...remaining,
    ];
    current = base;
  }
  return undefined;
}

/**
 * Why a local file named by a list may not be read under `policy` (`localFileTarget`, then `symlinkEscape` for
 * 'inside-list'), or undefined with the file to read. The same answer whether the file exists or not.
 */
export function localFileRefusal(name: string, baseDir: string, policy: LocalFilePolicy): { reason: string; detail: string } | { file: string } {
  const target = localFileTarget(name, baseDir, policy);
  if ('reason' in target) return target;
  return (policy === 'inside-list' ? symlinkEscape(target.file, baseDir) : undefined) ?? target;
}

/** Why a local read failed, as a funnel reason. */
function localFailure(err: unknown, file: string): FetchFailure {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const detail = `${file}: ${code || (err as Error).message}`;
  if (code === 'ENOENT' || code === 'ENOTDIR') return failure('download:not-found', detail);
  if (code === 'EACCES' || code === 'EPERM') return failure('download:permission-denied', detail);
  if (code === 'EISDIR') return failure('download:not-a-file', detail);
  if (code === 'ELOOP' || code === 'ENAMETOOLONG') return failure('download:bad-path', detail);
  return failure('download:read-error', detail);
}

const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/**
 * Reads a regular file, at most `maxBytes`. Opened non-blocking so a FIFO cannot hang the run;
 * the type is checked on the open descriptor (fstat), so a swap after a path check cannot fool it.
 */
async function readLocalFile(file: string, maxBytes: number): Promise<ImageFetch> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, fs.constants.O_RDONLY | O_NONBLOCK);
  } catch (err) {
    return localFailure(err, file);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile())
      return failure(
        'download:not-a-file',
        `${file}: ${stat.isDirectory() ? 'a directory' : stat.isFIFO() ? 'a FIFO' : stat.isCharacterDevice() ? 'a device' : 'not a regular file'}`,
      );
    if (stat.size > maxBytes) return failure('download:too-large', `${file}: ${stat.size} bytes > ${maxBytes}`);
    // the size may be stale or 0 (/proc): read until EOF, never more than the cap
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(Math.max(stat.size + 1, 64 * 1024), 1 << 20, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) return failure('download:too-large', `${file}: more than ${maxBytes} bytes`);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return { ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) };
  } catch (err) {
    return localFailure(err, file);
  } finally {
    await handle.close();
  }
}

export class ImageSource {
  readonly options: Readonly<ImageSourceOptions>;
  /** Fetches in progress by normalized URL: a second request for one shares the first's promise. */
  private readonly inFlight = new Map<string, Promise<ImageFetch>>();
  /** Recent results, oldest first (a Map keeps insertion order): bounded by memoEntries and memoBytes. */
  private readonly recent = new Map<string, ImageFetch>();
  private recentBytes = 0;

  constructor(options: Partial<ImageSourceOptions> = {}) {
    this.options = { ...DEFAULT_IMAGE_SOURCE, ...options };
  }

  async fetch(url: string): Promise<ImageFetch> {
    let worldImage: ReturnType<typeof resolveWorldImage>;
    try {
      worldImage = resolveWorldImage(url);
    } catch (err) {
      return failure('download:bad-url', (err as Error).message);
    }
    if (worldImage) {
      // rendered in-process: nothing to fetch, nothing worth remembering
      try {
        return { ok: true, bytes: await worldImage.world.render(worldImage.ref.split, worldImage.ref.id) };
      } catch (err) {
        return failure('download:render-error', (err as Error).message);
      }
    }
    const target = this.target(url);
    if ('ok' in target) return target;
    const remembered = this.recent.get(target.key);
    if (remembered) {
      this.recent.delete(target.key); // refresh its place in the LRU order
      this.recent.set(target.key, remembered);
      return remembered;
    }
    let pending = this.inFlight.get(target.key);
    if (!pending) {
      pending = this.load(target).then((result) => {
        this.inFlight.delete(target.key);
        this.remember(target.key, result);
        return result;
      });
      this.inFlight.set(target.key, pending);
    }
    return pending;
  }

  /** What `url` names: an http(s) URL or a local file, keyed for the memo; or why it is refused. */
  private target(url: string): { key: string; http?: string; file?: string } | FetchFailure {
    const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
    if (scheme === 'http' || scheme === 'https') {
      try {
        const parsed = new URL(url);
        parsed.hash = '';
        return { key: parsed.href, http: parsed.href };
      } catch {
        return failure('download:bad-url', url);
      }
    }
    let file = url;
    if (scheme === 'file') {
      try {
        file = fileURLToPath(url);
      } catch (err) {
        return failure('download:bad-url', (err as Error).message);
      }
    } else if (scheme !== undefined) return failure('download:refused-scheme', `${scheme}: (http, https, file, world or a path)`);
    const target = localFileTarget(file, this.options.baseDir ?? process.cwd(), this.options.localFiles);
    if ('reason' in target) return failure(target.reason, target.detail);
    return { key: `file://${target.file}`, file: target.file };
  }

  private load(target: { http?: string; file?: string }): Promise<ImageFetch> {
    if (target.file !== undefined) {
      const escape = this.options.localFiles === 'inside-list' ? symlinkEscape(target.file, this.options.baseDir ?? process.cwd()) : undefined;
      return escape ? Promise.resolve(failure(escape.reason, escape.detail)) : readLocalFile(target.file, this.options.maxBytes);
    }
    return fetchHttp(target.http!, {
      timeoutMs: this.options.timeoutMs,
      maxBytes: this.options.maxBytes,
      maxRedirects: this.options.maxRedirects,
      allowPrivate: this.options.allowPrivate,
      allowHosts: this.options.allowHosts,
      respectRobotsTag: !this.options.ignoreRobotsTag,
      userAgent: userAgent(this.options.contact),
      resolve: this.options.resolve,
    });
  }

  private remember(key: string, result: ImageFetch): void {
    const size = result.ok ? result.bytes.length : 0;
    if (this.options.memoEntries <= 0 || size > this.options.memoBytes) return;
    const previous = this.recent.get(key);
    if (previous?.ok) this.recentBytes -= previous.bytes.length;
    this.recent.delete(key);
    this.recent.set(key, result);
    this.recentBytes += size;
    for (const [oldest, old] of this.recent) {
      if (this.recent.size <= this.options.memoEntries && this.recentBytes <= this.options.memoBytes) break;
      this.recent.delete(oldest);
      if (old.ok) this.recentBytes -= old.bytes.length;
    }
  }
}
