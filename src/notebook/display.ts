/**
 * Display helpers for notebook cells: `show.table`, `show.plot`, `show.captions`, `show.progress`, …
 *
 * Every helper builds a MIME bundle and publishes it through the first sink that is present:
 *  1. the cckit kernel (`kernel/worker.ts` registers `globalThis[Symbol.for('cckit.notebook.display')]`);
 *  2. Jupyter's tslab kernel: its loaded `tslab/dist/jupyter` module holds `lastWriteDisplayData`, which
 *     takes a whole bundle and a display id (found in `require.cache`, so it is the kernel's own copy of
 *     tslab, not whichever one cckit would resolve); failing that, the `display` object of
 *     `require('tslab')` as cells see it (`globalThis.__tslab__.require`), one MIME type at a time;
 *  3. anything else (a script, the REPL): the bundle's `text/plain` printed to stdout.
 */
import { randomBytes } from 'node:crypto';

import { claimRows, type Claim } from '../experiments/claims';
import { claimsRecord, CLAIMS_METADATA_KEY } from '../experiments/results';
import { compareBundle, type CompareRunsOptions } from './compare';
import { CAPTIONS_MIME, escapeHtml, type MimeBundle, RUN_MIME } from './mime';
import { guardTslabIopub } from './tslab-iopub';

export { CAPTIONS_MIME, escapeHtml, PLOTLY_MIME, RUN_MIME, type MimeBundle } from './mime';

// In Jupyter's tslab kernel, keep a burst of outputs from killing the kernel (see tslab-iopub.ts).
guardTslabIopub();

export interface PublishOptions {
  metadata?: Record<string, unknown>;
  /** Give the output an id so that later publishes with `update: true` replace it in place. */
  displayId?: string;
  update?: boolean;
}

const CHANNEL = Symbol.for('cckit.notebook.display');

type ChannelFn = (req: { data: MimeBundle; metadata?: Record<string, unknown>; displayId?: string; update?: boolean }) => void;
type JupyterWrite = (data: { data: MimeBundle; metadata: Record<string, unknown>; transient: { display_id?: string } }, update: boolean) => void;
interface TslabDisplay {
  raw(contentType: string, b: string | Uint8Array): unknown;
}
interface TslabPublic {
  display: TslabDisplay;
  newDisplay(): TslabDisplay;
}

function tslabJupyterWriter(): JupyterWrite | undefined {
  const cache = typeof require !== 'undefined' ? require.cache : undefined;
  if (!cache) return undefined;
  for (const [file, mod] of Object.entries(cache)) {
    if (!/[\\/]tslab[\\/]dist[\\/]jupyter\.js$/.test(file)) continue;
    const w = (mod?.exports as { lastWriteDisplayData?: unknown } | undefined)?.lastWriteDisplayData;
    if (typeof w === 'function') return w as JupyterWrite;
  }
  return undefined;
}

function tslabPublic(): TslabPublic | undefined {
  const t = (globalThis as { __tslab__?: { require?: (id: string) => unknown } }).__tslab__;
  if (typeof t?.require !== 'function') return undefined;
  try {
    const mod = t.require('tslab') as Partial<TslabPublic>;
    return mod && typeof mod.newDisplay === 'function' && mod.display ? (mod as TslabPublic) : undefined;
  } catch {
    return undefined;
  }
}

/** The MIME types tslab's public `display` can show on their own, richest first. */
const PREFERRED = [
  'application/vnd.plotly.v1+json',
  'application/vnd.cckit.captions+json',
  'text/html',
  'image/svg+xml',
  'image/png',
  'text/markdown',
  'text/plain',
];
const tslabDisplays = new Map<string, TslabDisplay>();

/** Where publishes went last; exposed for tests and for a notebook to check. */
export function displayTarget(): 'cckit-kernel' | 'tslab' | 'text' {
  if (typeof (globalThis as Record<symbol, unknown>)[CHANNEL] === 'function') return 'cckit-kernel';
  if (tslabJupyterWriter() || tslabPublic()) return 'tslab';
  return 'text';
}

/** Publish a MIME bundle to the notebook (or print its text/plain outside one). */
export function publish(data: MimeBundle, options: PublishOptions = {}): void {
  const channel = (globalThis as Record<symbol, unknown>)[CHANNEL];
  if (typeof channel === 'function') {
    (channel as ChannelFn)({
      data,
      metadata: options.metadata ?? {},
      ...(options.displayId ? { displayId: options.displayId } : {}),
      update: !!options.update,
    });
    return;
  }
  const write = tslabJupyterWriter();
  if (write) {
    write({ data, metadata: options.metadata ?? {}, transient: options.displayId ? { display_id: options.displayId } : {} }, !!options.update);
    return;
  }
  const pub = tslabPublic();
  if (pub) {
    const type = PREFERRED.find((t) => t in data) ?? Object.keys(data)[0];
    if (type !== undefined) {
      let d = pub.display;
      if (options.displayId) {
        d = tslabDisplays.get(options.displayId) ?? pub.newDisplay();
        tslabDisplays.set(options.displayId, d);
      }
      const v = data[type];
      try {
        d.raw(type, typeof v === 'string' || v instanceof Uint8Array ? v : JSON.stringify(v));
        return;
      } catch {
        // tslab not ready: fall through to text.
      }
    }
  }
  const text = data['text/plain'];
  process.stdout.write((typeof text === 'string' ? text : JSON.stringify(text ?? Object.keys(data))) + '\n');
}

export function newDisplayId(): string {
  return randomBytes(8).toString('hex');
}

// ---- formatting --------------------------------------------------------------------------------------

function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export type Row = Record<string, unknown> | unknown[];
export interface TableData {
  columns: string[];
  rows: unknown[][];
}
export interface TableOptions {
  /** At most this many rows are shown (default 200); the rest are counted in a footer. */
  maxRows?: number;
  caption?: string;
}

/**
 * Normalise table input: an array of row objects (columns = union of keys, in first-seen order), an
 * array of arrays (columns 0, 1, …), `{columns, rows}`, or a DataFrame-like `{columns, values}` (danfojs).
 */
export function toTable(input: Row[] | { columns: string[]; rows?: unknown[][]; values?: unknown[][] }): TableData {
  if (!Array.isArray(input)) {
    const rows = input.rows ?? input.values ?? [];
    return { columns: input.columns.map(String), rows: rows.map((r) => (Array.isArray(r) ? r : [r])) };
  }
  if (input.every((r) => Array.isArray(r))) {
    const width = Math.max(0, ...input.map((r) => (r as unknown[]).length));
    return { columns: Array.from({ length: width }, (_, i) => String(i)), rows: input as unknown[][] };
  }
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const r of input) {
    for (const k of Object.keys(r as object)) {
      if (!seen.has(k)) {
        seen.add(k);
        columns.push(k);
      }
    }
  }
  return { columns, rows: input.map((r) => columns.map((c) => (r as Record<string, unknown>)[c])) };
}

export function tableBundle(input: Parameters<typeof toTable>[0], options: TableOptions = {}): MimeBundle {
  const { columns, rows } = toTable(input);
  const max = options.maxRows ?? 200;
  const shown = rows.slice(0, max);
  const more = rows.length - shown.length;
  const texts = shown.map((r) => columns.map((_, i) => cellText(r[i])));
  const widths = columns.map((c, i) => Math.max(c.length, ...texts.map((r) => r[i]!.length)));
  const isNum = columns.map((_, i) => shown.every((r) => r[i] === null || r[i] === undefined || typeof r[i] === 'number'));
  const pad = (s: string, i: number) => (isNum[i] ? s.padStart(widths[i]!) : s.padEnd(widths[i]!));
  const lines = [columns.map(pad).join('  ').trimEnd(), widths.map((w) => '-'.repeat(w)).join('  '), ...texts.map((r) => r.map(pad).join('  ').trimEnd())];
  if (more > 0) lines.push(`… ${more} more rows`);
  if (options.caption) lines.unshift(options.caption);
  const align = (i: number) => (isNum[i] ? ' style="text-align:right"' : '');
  const html =
    '<table class="cckit-table">' +
    (options.caption ? `<caption>${escapeHtml(options.caption)}</caption>` : '') +
    '<thead><tr>' +
    columns.map((c, i) => `<th${align(i)}>${escapeHtml(c)}</th>`).join('') +
    '</tr></thead><tbody>' +
    texts.map((r) => '<tr>' + r.map((v, i) => `<td${align(i)}>${escapeHtml(v)}</td>`).join('') + '</tr>').join('') +
    '</tbody></table>' +
    (more > 0 ? `<p>… ${more} more rows</p>` : '');
  return { 'text/html': html, 'text/plain': lines.join('\n') };
}

/** A plotly figure: `{ data: traces[], layout?, config? }`. */
export interface PlotlyFigure {
  data: Array<Record<string, unknown>>;
  layout?: Record<string, unknown>;
  config?: Record<string, unknown>;
}

export function plotBundle(figure: PlotlyFigure): MimeBundle {
  const title = (figure.layout?.title as { text?: string } | string | undefined) ?? '';
  const t = typeof title === 'string' ? title : (title.text ?? '');
  return {
    'application/vnd.plotly.v1+json': { data: figure.data, layout: figure.layout ?? {}, ...(figure.config ? { config: figure.config } : {}) },
    'text/plain': `<plotly figure${t ? ` "${t}"` : ''}: ${figure.data.length} trace(s)>`,
  };
}

/** One prediction in a caption grid. */
export interface CaptionItem {
  id?: string;
  /** Image URL, data: URI or path (relative to the workspace) for the thumbnail. */
  image?: string;
  /** The predicted caption. */
  caption: string;
  references?: string[];
  /** Per-image CIDEr (or another score named by `metric`). */
  score?: number;
  metric?: string;
  /** nocaps domain, when known. */
  domain?: 'in' | 'near' | 'out' | string;
}

export function captionsBundle(items: CaptionItem[], options: { title?: string } = {}): MimeBundle {
  const text = items
    .map((it, i) => {
      const head = `${it.id ?? i + 1}${it.domain ? ` [${it.domain}]` : ''}${it.score !== undefined ? ` ${it.metric ?? 'CIDEr'}=${cellText(it.score)}` : ''}`;
      return [`${head}: ${it.caption}`, ...(it.references ?? []).map((r) => `    ref: ${r}`)].join('\n');
    })
    .join('\n');
  const html =
    '<div class="cckit-captions" style="display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:8px">' +
    items
      .map(
        (it) =>
          '<figure style="margin:0">' +
          (it.image ? `<img src="${escapeHtml(it.image)}" style="max-width:100%" alt="">` : '') +
          `<figcaption><b>${escapeHtml(it.caption)}</b>` +
          (it.score !== undefined ? ` <small>${escapeHtml(it.metric ?? 'CIDEr')} ${escapeHtml(cellText(it.score))}</small>` : '') +
          (it.references?.length ? '<ul>' + it.references.map((r) => `<li>${escapeHtml(r)}</li>`).join('') + '</ul>' : '') +
          '</figcaption></figure>',
      )
      .join('') +
    '</div>';
  return {
    [CAPTIONS_MIME]: { version: 1, ...(options.title ? { title: options.title } : {}), items },
    'text/html': html,
    'text/plain': (options.title ? options.title + '\n' : '') + text,
  };
}

function bar(done: number, total: number, label?: string): string {
  const frac = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
  const width = 30;
  const filled = Math.round(frac * width);
  return `${label ? label + ' ' : ''}[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} (${Math.round(frac * 100)}%)`;
}

function progressBundle(done: number, total: number, label?: string): MimeBundle {
  const frac = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
  return {
    'text/html': `<div class="cckit-progress">${label ? escapeHtml(label) + ' ' : ''}<progress value="${done}" max="${total}"></progress> ${done}/${total} (${Math.round(frac * 100)}%)</div>`,
    'text/plain': bar(done, total, label),
  };
}

/**
 * Several tasks' progress in one output: a bar per unfinished task over a summary line. What a finished
 * cell keeps is the summary alone, however many tasks a long experiment ran.
 */
export function progressBoardBundle(active: readonly { label: string; done: number; total: number }[], summary: string): MimeBundle {
  const rows = active.map((t) => progressBundle(t.done, t.total, t.label));
  return {
    'text/html': `<div class="cckit-progress-board">${rows.map((r) => r['text/html']).join('')}<div class="cckit-progress-summary">${escapeHtml(summary)}</div></div>`,
    'text/plain': [...rows.map((r) => r['text/plain']), summary].join('\n'),
  };
}

/** Updates one progress output in place. Call with the number done so far; `done()` marks it complete. */
export interface ProgressUpdater {
  (done: number, label?: string): void;
  readonly displayId: string;
  /** Advance by `n` (default 1). */
  tick(n?: number): void;
  done(label?: string): void;
}

function stripTags(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

function base64(b: Uint8Array | string): string {
  return typeof b === 'string' ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
}

export const show = {
  text(s: string): void {
    publish({ 'text/plain': s });
  },
  html(html: string): void {
    publish({ 'text/html': html, 'text/plain': stripTags(html) });
  },
  markdown(md: string): void {
    publish({ 'text/markdown': md, 'text/plain': md });
  },
  /** A table: rows (objects or arrays), `{columns, rows}` or a DataFrame-like `{columns, values}`. */
  table(input: Parameters<typeof toTable>[0], options?: TableOptions): void {
    publish(tableBundle(input, options));
  },
  /**
   * A claims table (`claimRows`, or the table's own `rows`), with the claims' decided numbers as a record in the
   * output's metadata: what `cckit results` reads to write docs/results.md (renderers ignore metadata, so the table
   * shows as any other).
   */
  claims(
    claims: readonly Claim[],
    options: TableOptions & { table: string; preset: string; seeds: readonly number[]; rows?: Parameters<typeof toTable>[0] },
  ): void {
    const { table, preset, seeds, rows, ...tableOptions } = options;
    publish(tableBundle(rows ?? claimRows(claims), tableOptions), { metadata: { [CLAIMS_METADATA_KEY]: claimsRecord(table, preset, seeds, claims) } });
  },
  /** A plotly figure, as `application/vnd.plotly.v1+json` (what JupyterLab renders). */
  plot(figure: PlotlyFigure): void {
    publish(plotBundle(figure));
  },
  /** A caption grid (`application/vnd.cckit.captions+json`, with HTML and text fallbacks). */
  captions(items: CaptionItem[], options?: { title?: string }): void {
    publish(captionsBundle(items, options));
  },
  /** PNG bytes (or base64). */
  png(bytes: Uint8Array | string, options: { width?: number; height?: number } = {}): void {
    const metadata =
      options.width || options.height
        ? { 'image/png': { ...(options.width ? { width: options.width } : {}), ...(options.height ? { height: options.height } : {}) } }
        : {};
    publish({ 'image/png': base64(bytes), 'text/plain': '<PNG image>' }, { metadata });
  },
  svg(svg: string): void {
    publish({ 'image/svg+xml': svg, 'text/plain': '<SVG image>' });
  },
  /**
   * Announce a run (`runs/<id>/`, absolute or relative to the notebook's folder): in VS Code the cckit
   * controller shows its predictions in the Captions sidebar; elsewhere a line of text names it.
   */
  run(runDir: string, options: { split?: string } = {}): void {
    publish({
      [RUN_MIME]: { runDir, ...(options.split ? { split: options.split } : {}) },
      'text/plain': `run: ${runDir}${options.split ? ` (${options.split})` : ''}`,
    });
  },
  /**
   * Two runs' captions of the same images, side by side (`runs/<a>/`, `runs/<b>/`, one split): both captions,
   * the per-image difference B − A (CIDEr ×100 unless told), each caption's grounding verdict where the runs
   * have one, and how many images B beats A on; sorted by the difference (`sort: 'diff-desc'`, the default,
   * or `'diff-asc'`, `'id'`), filtered by `domain` and `verdict`, `limit` pairs (default 50). A caption grid
   * in VS Code, an HTML table in Jupyter, text elsewhere; in VS Code the Captions sidebar compares them too.
   */
  compare(runA: string, runB: string, split: string, options?: CompareRunsOptions): void {
    publish(compareBundle(runA, runB, split, options));
  },
  /** Any MIME bundle. */
  bundle(data: MimeBundle, options?: PublishOptions): void {
    publish(data, options);
  },
  /**
   * A progress bar that updates one output in place (a display id). Outside a notebook it prints a line
   * at the start and at the end only.
   */
  progress(total: number, label?: string): ProgressUpdater {
    const displayId = newDisplayId();
    const inNotebook = displayTarget() !== 'text';
    let current = 0;
    let lastLabel = label;
    const render = (first: boolean) => {
      if (inNotebook) publish(progressBundle(current, total, lastLabel), { displayId, update: !first });
      else if (first || current >= total) process.stdout.write(bar(current, total, lastLabel) + '\n');
    };
    const update = ((done: number, l?: string) => {
      current = done;
      if (l !== undefined) lastLabel = l;
      render(false);
    }) as ProgressUpdater;
    Object.defineProperty(update, 'displayId', { value: displayId });
    update.tick = (n = 1) => update(current + n);
    update.done = (l?: string) => update(total, l);
    render(true);
    return update;
  },
};

export default show;
