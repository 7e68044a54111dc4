/**
 * What the Captions sidebar shows of a run: its predictions with per-image scores, corpus scores (and the
 * grounding judge's figures and verdicts on world data) and the thumbnails' paths, read through the run layout of the library (src/runs/layout.ts). Pure (no vscode).
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
  /** Absolute path of the thumbnail, when the run has one inside its directory. */
  thumb?: string;
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
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

export function loadRun(runDir: string, split?: string): RunView {
  const info = readRunInfo(runDir);
  const splits = predictionSplits(runDir);
  if (splits.length === 0) throw new Error(`run ${info.id} has no predictions yet (${path.join(runDir, 'predictions')})`);
  const chosen = split && splits.includes(split) ? split : splits.includes('nocaps-val') ? 'nocaps-val' : splits[0]!;
  const preds = readPredictions(runDir, chosen);
  const scores = readScores(runDir, chosen);
  const items: ViewItem[] = preds.items.map((it) => {
    const thumb = it.thumb ? path.resolve(runDir, it.thumb) : undefined;
    return {
      id: String(it.image_id),
      caption: it.caption,
      references: it.references ?? [],
      ...(it.domain ? { domain: it.domain } : {}),
      ...(thumb && insideDir(thumb, runDir) && fs.existsSync(thumb) ? { thumb } : {}),
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
