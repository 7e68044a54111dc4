/**
 * The bounded, safe HTTP(S) download behind `ImageSource` (images.ts). A scraped URL is
 * untrusted input, so:
 *
 * - one deadline covers the whole request: DNS, every redirect hop, headers and body;
 * - the body is streamed and counted, after decompression too (gzip, deflate and br are decoded
 *   here, not by a library), and the download stops as soon as it passes the cap;
 * - only http(s); every hop's host is resolved and refused unless all its addresses are public
 *   (address.ts), and the connection goes to the address that was checked (no DNS rebinding);
 * - redirects are followed by hand, at most `maxRedirects`, and a loop is named as one;
 * - `X-Robots-Tag: noai` and its relatives opt an image out, judged on the headers before any
 *   body byte is read.
 *
 * Failures are `{ok: false, reason, detail}`: `reason` is a short stable string for the funnel
 * (`download:timeout`, `download:http-404`, …), `detail` says what exactly happened.
 */
import * as dns from 'dns';
import * as http from 'http';
import * as https from 'https';
import * as net from 'net';
import { Transform, Writable, type Readable } from 'stream';
import { pipeline } from 'stream/promises';
import * as zlib from 'zlib';
import { classifyAddress } from './address';

export type FetchFailure = {
  ok: false;
  reason: string;
  detail?: string;
  /** A 429/503's Retry-After, in milliseconds from when it arrived (a caller that retries waits this long). */
  retryAfterMs?: number;
};
export type FetchResult = { ok: true; bytes: Buffer } | FetchFailure;

export interface HttpFetchOptions {
  /** The whole request, body included. */
  timeoutMs: number;
  /** Largest body, counted after decompression. */
  maxBytes: number;
  maxRedirects: number;
  /** Connect to loopback, private, link-local … addresses too (a local test server). */
  allowPrivate: boolean;
  /** `host` or `host:port` let through even when private (one local mirror, not the whole network). */
  allowHosts?: readonly string[];
  /** Refuse images whose response carries an AI / indexing opt-out in X-Robots-Tag. */
  respectRobotsTag: boolean;
  userAgent: string;
  /** Host name → addresses (default: the system resolver, every address). */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

/** A failure with its funnel reason, thrown inside this module and returned as a FetchFailure. */
class FetchError extends Error {
  constructor(
    readonly reason: string,
    readonly detail?: string,
    readonly retryAfterMs?: number,
  ) {
    super(detail ? `${reason}: ${detail}` : reason);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** X-Robots-Tag directives that opt an image out of a dataset. */
const OPT_OUT = new Set(['noai', 'noimageai', 'noindex', 'noimageindex']);

/** The opt-out directive in an X-Robots-Tag header, if any (`noai`, `googlebot: noindex`, …). */
export function robotsOptOut(header: string | string[] | undefined): string | undefined {
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  for (const value of values)
    for (const part of value.toLowerCase().split(',')) {
      // "<useragent>: directive …": any user agent's opt-out counts (cckit names no crawler)
      const directives = part.split(':').pop()!.trim().split(/\s+/);
      const found = directives.find((d) => OPT_OUT.has(d));
      if (found) return found;
    }
  return undefined;
}

async function systemResolve(host: string): Promise<{ address: string; family: number }[]> {
  return dns.promises.lookup(host, { all: true, verbatim: true });
}

/** The address to connect to for `url`'s host, after checking every address it resolves to. */
async function checkedAddress(url: URL, options: HttpFetchOptions, signal: AbortSignal): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await untilAborted((options.resolve ?? systemResolve)(host), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      throw new FetchError('download:dns', `${host}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (addresses.length === 0) throw new FetchError('download:dns', `${host}: no address`);
  }
  const allowed = options.allowPrivate || options.allowHosts?.some((h) => h === url.hostname || h === url.host);
  if (!allowed)
    for (const { address } of addresses) {
      const kind = classifyAddress(address);
      // every address, not only the first: the system could pick any of them
      if (kind !== 'public') throw new FetchError('download:refused-private', `${host} → ${address} (${kind}); --allow-private to fetch it`);
    }
  return addresses[0]!;
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}

/** A URL the fetcher may request, or a FetchError saying why not. */
function checkedUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new FetchError(base ? 'download:bad-redirect' : 'download:bad-url', text.slice(0, 200));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchError('download:refused-scheme', `${url.protocol} (only http and https)`);
  // credentials in a scraped URL are never sent
  url.username = '';
  url.password = '';
  url.hash = '';
  return url;
}

/** One GET to a checked address; resolves with the response head. */
function request(url: URL, target: { address: string; family: number }, options: HttpFetchOptions, signal: AbortSignal): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  // connect to the checked address only: no second lookup that a rebinding DNS could answer differently
  const lookup = (_host: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (opts.all) callback(null, [target]);
    else callback(null, target.address, target.family);
  };
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: 'GET',
      agent: false,
      lookup: lookup as unknown as net.LookupFunction,
      signal,
      headers: { 'user-agent': options.userAgent, accept: 'image/*,*/*;q=0.5', 'accept-encoding': 'gzip, deflate, br' },
    });
    req.once('response', resolve);
    req.once('error', reject);
    req.end();
  });
}

/** Decoders for a Content-Encoding, outermost encoding last (as the header lists them). */
function decoders(encoding: string | undefined): Transform[] {
  const names = (encoding ?? '')
    .toLowerCase()
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '' && s !== 'identity');
  if (names.length > 2) throw new FetchError('download:bad-encoding', `${names.length} content encodings`);
  return names.reverse().map((name) => {
    if (name === 'gzip' || name === 'x-gzip') return zlib.createGunzip();
    if (name === 'deflate') return zlib.createInflate();
    if (name === 'br') return zlib.createBrotliDecompress();
    throw new FetchError('download:bad-encoding', `unsupported content-encoding "${name}"`);
  });
}

/** Counts bytes through it and fails with too-large once more than `max` went by. */
function capped(max: number, what: string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > max) callback(new FetchError('download:too-large', `${what} passed ${max} bytes`));
      else callback(null, chunk);
    },
  });
}

/** The body, decompressed, never more than `maxBytes` in memory. */
async function readBody(response: http.IncomingMessage, options: HttpFetchOptions, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  const stages: (Readable | Transform | Writable)[] = [response, capped(options.maxBytes, 'body'), ...decoders(response.headers['content-encoding'])];
  if (stages.length > 2) stages.push(capped(options.maxBytes, 'decompressed body'));
  await pipeline([...stages, sink] as unknown as [Readable, Writable], { signal });
  return Buffer.concat(chunks);
}

/** Why a network error happened, as a funnel reason. */
function networkFailure(err: unknown): FetchFailure {
  if (err instanceof FetchError)
    return {
      ok: false,
      reason: err.reason,
      ...(err.detail ? { detail: err.detail } : {}),
      ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
    };
  const e = err as NodeJS.ErrnoException;
  const code = e.code ?? '';
  const detail = `${code ? code + ': ' : ''}${e.message}`.slice(0, 200);
  let reason = 'download:network';
  if (code === 'ECONNREFUSED') reason = 'download:connection-refused';
  else if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE') reason = 'download:connection-reset';
  else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ETIMEDOUT') reason = 'download:unreachable';
  else if (code.startsWith('HPE_')) reason = 'download:bad-response';
  else if (code.startsWith('Z_') || code === 'ERR_BROTLI_DECOMPRESSION_FAILED' || /^ERR__?(BROTLI|ZLIB)/.test(code)) reason = 'download:bad-encoding';
  else if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code)) reason = 'download:tls';
  return { ok: false, reason, detail };
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfter(header: string | undefined, now = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** GETs an http(s) URL under the rules in the module comment. */
export async function fetchHttp(url: string, options: HttpFetchOptions): Promise<FetchResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new FetchError('download:timeout')), options.timeoutMs);
  try {
    return { ok: true, bytes: await follow(url, options, controller.signal) };
  } catch (err) {
    if (controller.signal.aborted) return { ok: false, reason: 'download:timeout', detail: `no complete response within ${options.timeoutMs} ms` };
    return networkFailure(err);
  } finally {
    clearTimeout(timer);
  }
}

async function follow(start: string, options: HttpFetchOptions, signal: AbortSignal): Promise<Buffer> {
  let url = checkedUrl(start);
  const visited = new Set<string>();
  for (let redirects = 0; ; redirects++) {
    visited.add(url.href);
    const target = await checkedAddress(url, options, signal);
    const response = await request(url, target, options, signal);
    const status = response.statusCode ?? 0;
    if (REDIRECTS.has(status)) {
      response.destroy();
      const location = response.headers.location;
      if (!location) throw new FetchError('download:bad-redirect', `HTTP ${status} without Location`);
      const next = checkedUrl(location, url);
      if (visited.has(next.href)) throw new FetchError('download:redirect-loop', `${url.href} → ${next.href}`);
      if (redirects + 1 > options.maxRedirects) throw new FetchError('download:too-many-redirects', `more than ${options.maxRedirects}`);
      url = next;
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw new FetchError(`download:http-${status}`, url.href.slice(0, 200), retryAfter(response.headers['retry-after']));
    }
    const optOut = options.respectRobotsTag ? robotsOptOut(response.headers['x-robots-tag']) : undefined;
    if (optOut) {
      response.destroy();
      throw new FetchError('download:opted-out', `X-Robots-Tag: ${String(response.headers['x-robots-tag']).slice(0, 100)}`);
    }
    const declared = Number(response.headers['content-length']);
    if (!response.headers['content-encoding'] && Number.isFinite(declared) && declared > options.maxBytes) {
      response.destroy();
      throw new FetchError('download:too-large', `Content-Length ${declared} > ${options.maxBytes}`);
    }
    return readBody(response, options, signal);
  }
}
