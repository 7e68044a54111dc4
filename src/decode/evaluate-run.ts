/**
 * Scores a run's captions for one split and writes them in the run layout
 * (`runs/<id>/predictions/<split>.json`, `runs/<id>/scores/<split>.json`): corpus metrics through
 * src/metrics `evaluate`, every metric per image, and nocaps's in / near / out / overall breakdown
 * when every image has a domain; object recall and CHAIR (src/metrics/grounding) when every image
 * carries its ground-truth objects (the world's splits).
 */
import * as path from 'path';
import { CaptionCase, evaluate, evaluateByDomain, EvaluateOptions } from '../metrics/evaluate';
import { CaptionGrounding, GroundingScores, GroundingVocabulary, groundingVocabulary, judge, JUDGE_VERSION } from '../metrics/grounding';
import { PREDICTIONS_DIR, PredictionItem, PredictionsFile, readPredictions, readScores, SCORES_DIR, ScoresFile } from '../runs/layout';
import { CaptionPrediction, naturalImageId } from '../data/coco';
import { writeJsonAtomic } from '../util/atomic';

type Domain = 'in' | 'near' | 'out';
export type DomainKey = Domain | 'overall';

export interface CaseScores {
  /** Corpus metrics over every image. */
  corpus: Record<string, number>;
  /** nocaps breakdown (each domain scored as its own set), when the cases carry domains. */
  domains?: Partial<Record<DomainKey, Record<string, number>>>;
  /** Image id → metric → value (from the whole-set scoring). */
  perImage: Record<string, Record<string, number>>;
}

/**
 * Corpus and per-image metrics of the cases, plus the nocaps breakdown when every case has a
 * domain (an error when only some have one). Numbers are exactly `evaluate` / `evaluateByDomain`'s.
 */
export function scoreCases(cases: readonly CaptionCase[], options: EvaluateOptions = {}): CaseScores {
  if (cases.length === 0) throw new Error('no captions to score');
  const withDomain = cases.filter((c) => c.domain !== undefined).length;
  if (withDomain > 0 && withDomain < cases.length) {
    const missing = cases.find((c) => c.domain === undefined)!;
    throw new Error(`${cases.length - withDomain} of ${cases.length} images have no domain (first: ${missing.imageId}); give every image a domain or none`);
  }
  let whole;
  let domains: CaseScores['domains'];
  if (withDomain > 0) {
    const byDomain = evaluateByDomain(cases, options);
    whole = byDomain.entire;
    domains = {};
    for (const [key, evaluation] of Object.entries(byDomain)) domains[(key === 'entire' ? 'overall' : key) as DomainKey] = evaluation.corpus;
  } else {
    whole = evaluate(cases, options);
  }
  const perImage: Record<string, Record<string, number>> = {};
  for (const c of cases) perImage[c.imageId] = {};
  for (const [metric, values] of Object.entries(whole.per_image)) {
    for (const [id, value] of Object.entries(values)) perImage[id][metric] = value;
  }
  return domains ? { corpus: whole.corpus, domains, perImage } : { corpus: whole.corpus, perImage };
}

/** Joins predictions with their references (and domains); every prediction needs references. */
export function casesFromPredictions(
  predictions: readonly CaptionPrediction[],
  references: Record<string, readonly string[]>,
  domains?: Record<string, string>,
): CaptionCase[] {
  return predictions.map((p) => {
    const id = String(p.image_id);
    const refs = references[id];
    if (!refs || refs.length === 0) throw new Error(`image ${id}: no reference captions`);
    const domain = domains?.[id];
    return domain === undefined
      ? { imageId: id, references: [...refs], candidate: p.caption }
      : { imageId: id, references: [...refs], candidate: p.caption, domain };
  });
}

export interface EvaluateRunOptions extends EvaluateOptions {
  /** The run directory, runs/<id>. */
  runDir: string;
  split: string;
  /** Run id written in the files (default: the directory's name). */
  runId?: string;
  /** How the captions were decoded, e.g. "beam5 α0.6 max36" (see describeDecoder). */
  decoder?: string;
  /** Extra fields per image id (thumbnail, URL) for the predictions file. */
  extras?: Record<string, Pick<PredictionItem, 'thumb' | 'url'>>;
  /** Timestamp written in both files (default now). */
  now?: Date;
  /** Object vocabulary of the grounding judge (default: the world's catalog). */
  vocabulary?: GroundingVocabulary;
}

export interface RunEvaluation extends CaseScores {
  /** Object recall / CHAIR figures, when every case carries its objects. */
  grounding?: GroundingScores;
  /** Per-case verdicts aligned with the cases, when `grounding` is there. */
  groundingPerCase?: CaptionGrounding[];
  predictions: PredictionsFile;
  scores: ScoresFile;
  predictionsPath: string;
  scoresPath: string;
}

/** Scores the cases and writes predictions/<split>.json and scores/<split>.json (atomically). */
export function evaluateRun(cases: readonly CaptionCase[], options: EvaluateRunOptions): RunEvaluation {
  const { runDir, split } = options;
  if (!/^[\w.-]+$/.test(split)) throw new Error(`split name "${split}" must be letters, digits, '.', '_' or '-'`);
  const scored = scoreCases(cases, options);
  const withObjects = cases.filter((c) => c.objects !== undefined).length;
  if (withObjects > 0 && withObjects < cases.length) {
    const missing = cases.find((c) => c.objects === undefined)!;
    throw new Error(
      `${cases.length - withObjects} of ${cases.length} images have no ground-truth objects (first: ${missing.imageId}); give every image objects or none`,
    );
  }
  const judged =
    withObjects > 0
      ? judge(
          cases.map((c) => ({ imageId: c.imageId, caption: c.candidate, objects: c.objects!, ...(c.domain !== undefined ? { domain: c.domain } : {}) })),
          options.vocabulary ?? groundingVocabulary(),
        )
      : undefined;
  const run = options.runId ?? path.basename(path.resolve(runDir));
  const created = (options.now ?? new Date()).toISOString();
  const items: PredictionItem[] = cases.map((c, i) => {
    const item: PredictionItem = { image_id: naturalImageId(c.imageId), caption: c.candidate, references: [...c.references] };
    if (c.domain !== undefined) item.domain = c.domain as Domain;
    const extra = options.extras?.[c.imageId];
    if (extra?.thumb !== undefined) item.thumb = extra.thumb;
    if (extra?.url !== undefined) item.url = extra.url;
    item.scores = scored.perImage[c.imageId];
    const verdict = judged?.perCaption[i];
    if (verdict) item.grounding = itemGrounding(verdict);
    return item;
  });
  const predictions: PredictionsFile = { version: 1, run, split, created, items };
  if (options.decoder !== undefined) predictions.decoder = options.decoder;
  const scores: ScoresFile = { version: 1, run, split, corpus: scored.corpus, created };
  if (scored.domains) scores.domains = scored.domains;
  if (judged) {
    scores.grounding = judged.scores;
    scores.groundingJudge = JUDGE_VERSION;
  }
  const predictionsPath = path.join(runDir, PREDICTIONS_DIR, `${split}.json`);
  const scoresPath = path.join(runDir, SCORES_DIR, `${split}.json`);
  writeJsonAtomic(predictionsPath, predictions, { readable: true });
  writeJsonAtomic(scoresPath, scores, { readable: true });
  const grounding = judged ? { grounding: judged.scores, groundingPerCase: judged.perCaption } : {};
  return { ...scored, ...grounding, predictions, scores, predictionsPath, scoresPath };
}

/** A caption's verdict as the predictions file stores it. */
function itemGrounding(v: CaptionGrounding): NonNullable<PredictionItem['grounding']> {
  return { named: v.named, byKind: v.byKind, hallucinated: v.hallucinated, mentions: v.mentions };
}

/**
 * Judges a scored split's stored captions again (no decoding) and rewrites the grounding of its
 * predictions and scores files: for runs captioned before their images carried objects, or by an
 * older judge (`ScoresFile.groundingJudge`). Returns the new figures.
 */
export function rejudgeRun(runDir: string, split: string, objects: ReadonlyMap<string, readonly string[]>, vocabulary?: GroundingVocabulary): GroundingScores {
  const predictions = readPredictions(runDir, split);
  const scores = readScores(runDir, split);
  if (!scores) throw new Error(`${runDir}: no scores for ${split}`);
  const cases = predictions.items.map((item) => {
    const present = objects.get(String(item.image_id));
    if (present === undefined) throw new Error(`${runDir}/predictions/${split}.json: image ${item.image_id} has no ground-truth objects`);
    return { imageId: String(item.image_id), caption: item.caption, objects: present, ...(item.domain !== undefined ? { domain: item.domain } : {}) };
  });
  const judged = judge(cases, vocabulary ?? groundingVocabulary());
  predictions.items.forEach((item, i) => {
    const v = judged.perCaption[i]!;
    item.grounding = itemGrounding(v);
  });
  scores.grounding = judged.scores;
  scores.groundingJudge = JUDGE_VERSION;
  writeJsonAtomic(path.join(runDir, PREDICTIONS_DIR, `${split}.json`), predictions, { readable: true });
  writeJsonAtomic(path.join(runDir, SCORES_DIR, `${split}.json`), scores, { readable: true });
  return judged.scores;
}
