/**
 * What the Captions sidebar shows of a run: its predictions with per-image scores, corpus scores (and the
 * grounding judge's figures and verdicts on world data) and the thumbnails' paths, read through the run layout of the library (src/runs/layout.ts). Pure (no vscode).
 * A thumbnail is shown only when its real path (symlinks resolved) is inside the run's real directory.
 */
import * as fs from 'fs';
import * as path from 'path';
import { listRuns, predictionSplits, readPredictions, readRunInfo, readScores, type ItemGrounding, type RunInfo, type ScoresFile } from '../../src/runs/layout';

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
