/**
 * Notebook helpers over the run layout (src/runs/layout.ts): training curves as plotly figures, a run's
 * predictions as caption-grid items (thumbnails inlined as data: URIs, so the grid shows them in Jupyter,
 * in VS Code and in the committed .ipynb alike), and a progress sink that keeps one in-place output for all
 * of an experiment's tasks, for `ExperimentOptions.progress` and the trainer's callbacks.
 */
import type { Progress } from '../util/progress';
import { readLog, readPredictions, readRunInfo, type LogLine, type PredictionItem } from '../runs/layout';
import { displayTarget, newDisplayId, progressBoardBundle, show, type CaptionItem, type PlotlyFigure, type ProgressUpdater } from './display';
import { thumbImage, type ImageMode } from './thumbs';

/** One line of a figure: a run, or runs laid end to end (pre-training → fine-tuning). */
export interface Curve {
  label: string;
  /** Run directories, in order; each one's steps continue after the previous one's configured length. */
  runs: string | readonly string[];
  /** Step the first run starts at (e.g. the pre-training length, for a row that only fine-tunes). */
  startStep?: number;
}

/** A run's configured length in steps (run.json), else its last logged step. */
export function runSteps(runDir: string, log: readonly LogLine[] = readLog(runDir)): number {
  try {
    const steps = (readRunInfo(runDir).config as { steps?: unknown } | undefined)?.steps;
    if (typeof steps === 'number' && Number.isFinite(steps)) return steps;
  } catch {
    // no run.json: fall back to the log
  }
  return log.reduce((m, l) => Math.max(m, l.step), 0);
}

export interface Series {
  x: number[];
  y: number[];
  /** Steps where one run of the chain ends and the next starts. */
  boundaries: number[];
}

/**
 * One metric over the runs of a curve: a validation metric (`val.CIDEr`, scaled, default ×100) or a
 * training loss (`loss.<objective>`). Steps of later runs are offset by the earlier runs' lengths.
 */
export function series(curve: Curve, what: { val: string; scale?: number } | { loss: string }): Series {
  const runs = typeof curve.runs === 'string' ? [curve.runs] : curve.runs;
  const out: Series = { x: [], y: [], boundaries: [] };
  let offset = curve.startStep ?? 0;
  runs.forEach((dir, i) => {
    const log = readLog(dir);
    for (const line of log) {
      const v = 'val' in what ? line.val?.[what.val] : line.loss?.[what.loss];
      if (typeof v !== 'number' || !Number.isFinite(v)) continue;
      out.x.push(offset + line.step);
      out.y.push('val' in what ? v * (what.scale ?? 100) : v);
    }
    offset += runSteps(dir, log);
    if (i < runs.length - 1) out.boundaries.push(offset);
  });
  return out;
}

export interface CurvesOptions {
  /** Validation metric to plot (default CIDEr ×100); ignored when `loss` is given. */
  metric?: string;
  scale?: number;
  /** Plot this training loss instead (`total`, `ic`, `mlm`, …). */
  loss?: string;
  title?: string;
  /** Label of a dashed vertical line at the first chained curve's run boundary (default "fine-tuning starts"). */
  boundaryLabel?: string;
  height?: number;
}

/** A plotly figure of validation CIDEr (or a loss) against the training step, one trace per curve. */
export function curvesFigure(curves: readonly Curve[], options: CurvesOptions = {}): PlotlyFigure {
  const metric = options.metric ?? 'CIDEr';
  const scale = options.scale ?? 100;
  const what = options.loss !== undefined ? { loss: options.loss } : { val: metric, scale };
  const all = curves.map((c) => ({ curve: c, s: series(c, what) }));
  const data = all.map(({ curve, s }) => ({
    type: 'scatter',
    mode: options.loss !== undefined ? 'lines' : 'lines+markers',
    name: curve.label,
    x: s.x,
    y: s.y,
  }));
  const boundary = all.find((a) => a.s.boundaries.length > 0)?.s.boundaries[0];
  const yTitle = options.loss !== undefined ? `training loss (${options.loss})` : `val ${metric}${scale === 100 ? ' ×100' : ''}`;
  const layout: Record<string, unknown> = {
    title: { text: options.title ?? (options.loss !== undefined ? `Training loss (${options.loss})` : `Validation ${metric} during training`) },
    xaxis: { title: { text: 'step' } },
    yaxis: { title: { text: yTitle } },
    height: options.height ?? 380,
    margin: { t: 50, r: 20, b: 50, l: 60 },
  };
  if (boundary !== undefined) {
    layout.shapes = [{ type: 'line', x0: boundary, x1: boundary, yref: 'paper', y0: 0, y1: 1, line: { dash: 'dot', width: 1, color: '#888' } }];
    layout.annotations = [
      {
        x: boundary,
        yref: 'paper',
        y: 1,
        text: options.boundaryLabel ?? 'fine-tuning starts',
        showarrow: false,
        xanchor: 'left',
        yanchor: 'bottom',
        font: { size: 10 },
      },
    ];
  }
  return { data, layout };
}

export interface PredictionItemsOptions {
  /** Images per nocaps domain (default 3); items without a domain count as one group. */
  perDomain?: number;
  /** Which ones: the first ones, the best, the worst, or best / median / worst spread (default). */
  order?: 'first' | 'best' | 'worst' | 'spread';
  metric?: string;
  /** Score scale shown in the grid (default 100, like the tables; 1 = coco-caption's raw scale). */
  scale?: number;
  /**
   * Thumbnails as data: URIs (default), as paths relative to `baseDir`, or none. Only thumbnails inside the
   * run (by real path: a symlink out of the run is dropped) are given, in either form.
   */
  images?: ImageMode;
  baseDir?: string;
}

function pick<T>(items: readonly T[], n: number, order: NonNullable<PredictionItemsOptions['order']>, score: (t: T) => number): T[] {
  if (order === 'first') return items.slice(0, n);
  const sorted = [...items].sort((a, b) => score(b) - score(a));
  if (order === 'best') return sorted.slice(0, n);
  if (order === 'worst') return sorted.slice(-n).reverse();
  if (sorted.length <= n) return sorted;
  if (n === 1) return [sorted[Math.floor(sorted.length / 2)]!];
  return Array.from({ length: n }, (_, i) => sorted[Math.round((i * (sorted.length - 1)) / (n - 1))]!);
}

/** Caption-grid items (`show.captions`) from a run's `predictions/<split>.json`, a few per nocaps domain. */
export function predictionItems(runDir: string, split = 'nocaps-val', options: PredictionItemsOptions = {}): CaptionItem[] {
  const file = readPredictions(runDir, split);
  const metric = options.metric ?? 'CIDEr';
  const scale = options.scale ?? 100;
  const perDomain = options.perDomain ?? 3;
  const order = options.order ?? 'spread';
  const score = (p: PredictionItem) => p.scores?.[metric] ?? Number.NEGATIVE_INFINITY;
  const groups = new Map<string, PredictionItem[]>();
  for (const p of file.items) {
    const d = p.domain ?? '';
    groups.set(d, [...(groups.get(d) ?? []), p]);
  }
  const rank = (d: string) => {
    const i = ['in', 'near', 'out'].indexOf(d);
    return i < 0 ? 99 : i;
  };
  const keys = [...groups.keys()].sort((a, b) => rank(a) - rank(b));
  const images = options.images ?? 'data';
  return keys.flatMap((d) =>
    pick(groups.get(d)!, perDomain, order, score).map((p): CaptionItem => {
      const image = thumbImage(runDir, p.thumb, images, options.baseDir);
      const s = p.scores?.[metric];
      return {
        id: String(p.image_id),
        caption: p.caption,
        ...(p.references ? { references: p.references } : {}),
        ...(s !== undefined ? { score: Number((s * scale).toFixed(1)), metric: scale === 1 ? metric : `${metric}×${scale}` } : {}),
        ...(p.domain ? { domain: p.domain } : {}),
        ...(image ? { image } : {}),
      };
    }),
  );
}

export interface NotebookProgressOptions {
  /** Least time between two updates of one bar (default 1 s); the last update always goes out. */
  minIntervalMs?: number;
  /** Tasks to show (default all). */
  filter?: (task: string) => boolean;
}

/**
 * A `Progress` sink for notebooks. In a notebook every task reports into one output, updated in place
 * (throttled): a bar per unfinished task over a line counting the finished ones, so a finished cell keeps
 * that one summary line however many tasks ran. Outside a notebook each task prints its first and final
 * state (`show.progress`).
 */
export function notebookProgress(options: NotebookProgressOptions = {}): Progress {
  return displayTarget() === 'text' ? linePerTask(options) : progressBoard(options);
}

function progressBoard(options: NotebookProgressOptions): Progress {
  const interval = options.minIntervalMs ?? 1000;
  const tasks = new Map<string, { done: number; total: number; finished: boolean }>();
  let displayId: string | undefined;
  let finished = 0;
  let latest: string | undefined;
  let lastRender = 0;
  const render = () => {
    lastRender = Date.now();
    const active = [...tasks].filter(([, t]) => !t.finished).map(([label, t]) => ({ label, done: t.done, total: t.total }));
    const summary = `${finished} task${finished === 1 ? '' : 's'} finished${latest ? ` (latest: ${latest})` : ''}${active.length ? `, ${active.length} running` : ''}`;
    const first = displayId === undefined;
    displayId ??= newDisplayId();
    show.bundle(progressBoardBundle(active, summary), { displayId, update: !first });
  };
  return (task, done, total) => {
    if (options.filter && !options.filter(task)) return;
    let state = tasks.get(task);
    const opened = !state || state.total !== total || (state.finished && done < total);
    if (opened) tasks.set(task, (state = { done, total, finished: false }));
    else if (state!.finished) return;
    state!.done = done;
    if (done >= total) {
      state!.finished = true;
      finished++;
      latest = task;
    }
    if (opened || state!.finished || Date.now() - lastRender >= interval) render();
  };
}

function linePerTask(options: NotebookProgressOptions): Progress {
  const bars = new Map<string, { bar: ProgressUpdater; total: number; last: number; done: boolean }>();
  const interval = options.minIntervalMs ?? 1000;
  return (task, done, total) => {
    if (options.filter && !options.filter(task)) return;
    let entry = bars.get(task);
    if (!entry || entry.total !== total || (entry.done && done < total)) {
      entry = { bar: show.progress(total, task), total, last: 0, done: false };
      bars.set(task, entry);
    }
    if (entry.done) return;
    const now = Date.now();
    if (done >= total || now - entry.last >= interval) {
      entry.last = now;
      entry.bar(done);
      if (done >= total) entry.done = true;
    }
  };
}
