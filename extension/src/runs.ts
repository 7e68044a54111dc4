/**
 * What the Captions sidebar shows of a run: its predictions with per-image scores, corpus scores (and the
 * grounding judge's figures and verdicts on world data) and the thumbnails' paths, read through the run layout of the library (src/runs/layout.ts). Pure (no vscode).
 * A thumbnail is shown only when its real path (symlinks resolved) is inside the run's real directory.
 * Two runs compared (the sidebar's "compare with…"): the pairing, differences and verdicts are
 * src/runs/compare.ts (through the run layout), the same comparison `show.compare` shows in notebooks.
 */
import * as fs from 'fs';
import * as path from 'path';
import {
  comparePredictions,
  listRuns,
  predictionSplits,
  readPredictions,
  readRunInfo,
  readScores,
  type ComparedPair,
  type Comparison,
  type ItemGrounding,
  type RunInfo,
  type ScoresFile,
} from '../../src/runs/layout';

export interface RunSummary {
  id: string;
  name?: string;
  status: string;
  dir: string;
  updated: string;
}

export interface ViewItem {
  id: string;
  caption: string;
  references: string[];
  domain?: string;
  /** Real path of the thumbnail, when the run has one whose real path is inside the run's directory. */
  thumb?: string;
  /** Why a thumbnail the predictions name is not shown. */
  thumbNote?: string;
  scores: Record<string, number>;
  /** The grounding judge's verdict (world data only): objects named, mentions hallucinated. */
  grounding?: ItemGrounding;
}

export interface RunView {
  dir: string;
  info: RunInfo;
  splits: string[];
  split: string;
  decoder?: string;
  items: ViewItem[];
  corpus?: Record<string, number>;
  domains?: Record<string, Record<string, number>>;
  /** Object recall / CHAIR figures of the split, when its scores file has them. */
  grounding?: ScoresFile['grounding'];
}

export function listRunSummaries(runsRoot: string): RunSummary[] {
  return listRuns(runsRoot).map((r) => ({
    id: r.id,
    ...(r.name ? { name: r.name } : {}),
    status: r.status,
    dir: path.join(runsRoot, r.id),
    updated: r.updated,
  }));
}

/** The run to show when none was chosen: the newest one that has predictions. */
export function defaultRun(runsRoot: string): string | undefined {
  for (const r of listRunSummaries(runsRoot)) if (predictionSplits(r.dir).length > 0) return r.dir;
  return undefined;
}

function insideDir(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel !== '' && rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel);
}

/**
 * A prediction's thumbnail: its real path when that is a file inside the run's real directory (a
 * symlink out of the run, or `../` in the name, does not count), else why it is not shown.
 */
export function runThumb(realRunDir: string, thumb: string): { file: string } | { note: string } {
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(realRunDir, thumb));
  } catch {
    return { note: 'thumbnail not found' };
  }
  if (!insideDir(real, realRunDir)) return { note: 'thumbnail outside the run, not shown' };
  try {
    if (!fs.statSync(real).isFile()) return { note: 'thumbnail is not a file' };
  } catch {
    return { note: 'thumbnail not found' };
  }
  return { file: real };
}

export function loadRun(runDir: string, split?: string): RunView {
  const info = readRunInfo(runDir);
  const splits = predictionSplits(runDir);
  if (splits.length === 0) throw new Error(`run ${info.id} has no predictions yet (${path.join(runDir, 'predictions')})`);
  const chosen = split && splits.includes(split) ? split : splits.includes('nocaps-val') ? 'nocaps-val' : splits[0]!;
  const preds = readPredictions(runDir, chosen);
  const scores = readScores(runDir, chosen);
  const realRunDir = fs.realpathSync(runDir);
  const items: ViewItem[] = preds.items.map((it) => {
    const thumb = it.thumb ? runThumb(realRunDir, it.thumb) : undefined;
    return {
      id: String(it.image_id),
      caption: it.caption,
      references: it.references ?? [],
      ...(it.domain ? { domain: it.domain } : {}),
      ...(thumb ? ('file' in thumb ? { thumb: thumb.file } : { thumbNote: thumb.note }) : {}),
      scores: it.scores ?? {},
      ...(it.grounding ? { grounding: it.grounding } : {}),
    };
  });
  return {
    dir: runDir,
    info,
    splits,
    split: chosen,
    ...(preds.decoder ? { decoder: preds.decoder } : {}),
    items,
    ...(scores ? { corpus: scores.corpus } : {}),
    ...(scores?.domains ? { domains: scores.domains as Record<string, Record<string, number>> } : {}),
    ...(scores?.grounding ? { grounding: scores.grounding } : {}),
  };
}

/** A compared image with the thumbnail to show: A's, else B's (each by real path inside its run). */
export type ViewPair = ComparedPair & { thumb?: string; thumbNote?: string };

export interface CompareView {
  a: { dir: string; info: RunInfo };
  b: { dir: string; info: RunInfo };
  /** A's splits (B may lack some). */
  splits: string[];
  split: string;
  comparison: Omit<Comparison, 'pairs'> & { pairs: ViewPair[] };
}

/** Run A compared with run B on `split` (A's default split when not given or A lacks it). */
export function loadComparison(runA: string, runB: string, split?: string): CompareView {
  const infoA = readRunInfo(runA);
  const infoB = readRunInfo(runB);
  const splits = predictionSplits(runA);
  if (splits.length === 0) throw new Error(`run ${infoA.id} has no predictions yet (${path.join(runA, 'predictions')})`);
  const chosen = split && splits.includes(split) ? split : splits.includes('nocaps-val') ? 'nocaps-val' : splits[0]!;
  const splitsB = predictionSplits(runB);
  if (!splitsB.includes(chosen)) {
    throw new Error(`run ${infoB.id} has no predictions for ${chosen}${splitsB.length ? ` (it has ${splitsB.join(', ')})` : ''}`);
  }
  const comparison = comparePredictions(readPredictions(runA, chosen), readPredictions(runB, chosen));
  const realA = fs.realpathSync(runA);
  const realB = fs.realpathSync(runB);
  const pairs: ViewPair[] = comparison.pairs.map((p) => {
    const fromA = p.a.thumb ? runThumb(realA, p.a.thumb) : undefined;
    const fromB = p.b.thumb ? runThumb(realB, p.b.thumb) : undefined;
    const thumb = fromA && 'file' in fromA ? fromA : fromB && 'file' in fromB ? fromB : (fromA ?? fromB);
    return { ...p, ...(thumb ? ('file' in thumb ? { thumb: thumb.file } : { thumbNote: thumb.note }) : {}) };
  });
  return { a: { dir: runA, info: infoA }, b: { dir: runB, info: infoB }, splits, split: chosen, comparison: { ...comparison, pairs } };
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * Runs to compare `runDir` with: those in the runs folder and those beside `runDir` (a run published from
 * elsewhere, e.g. a fixture folder), without `runDir` itself; with `split`, only runs that have predictions for it.
 */
export function compareCandidates(runsRoot: string | undefined, runDir: string, split?: string): RunSummary[] {
  const self = realOr(runDir);
  const seen = new Set<string>([self]);
  const out: RunSummary[] = [];
  for (const root of [runsRoot, path.dirname(runDir)]) {
    if (!root) continue;
    for (const r of listRunSummaries(root)) {
      const real = realOr(r.dir);
      if (seen.has(real)) continue;
      seen.add(real);
      if (split && !predictionSplits(r.dir).includes(split)) continue;
      out.push(r);
    }
  }
  return out;
}
