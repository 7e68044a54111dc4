/**
 * The one executor of the experiments. A table is a plan: rows, each a chain of training stages, each stage with
 * how its checkpoint is chosen and what is evaluated with it. `runPlan` runs any plan: it extracts the plan's
 * features once in this thread (the feature store has one writer), then runs the rows `concurrency` at a time, each
 * in a worker thread of its own (`planRowJob`, a typed function reference) or, with one lane, here.
 *
 * A row's stage trains its config (or reuses the finished run: its id hashes the config and inputs), chooses a
 * checkpoint (best val CIDEr over the kept checkpoints, or the dev CIDEr the trainer logged; among alternative
 * configs, such as a learning-rate grid, the best run), then captions each evaluation split with it unless the
 * captions from that decoder are stored, judging stored captions again when the judge changed. The next stage
 * starts from the chosen run (`PREVIOUS_RUN`). A matching model's stage is evaluated by retrieval instead (recalls
 * and each query's rank, stored in the run). What a row gives back is plain data: each stage's run, choice and the
 * stored scores of every split; the table reads per-image scores from the captions each run keeps.
 */
import * as fs from 'fs';
import * as path from 'path';

import { rejudgeRun, type DecodeSettings, type EvaluateRunOptions } from '../decode';
import { JUDGE_VERSION } from '../metrics/grounding';
import { readLog, readScores, type ScoresFile } from '../runs/layout';
import { readEvalImages, type EvalImage } from '../train/data';
import { train, type TrainConfig, type TrainedRun } from '../train/trainer';
import type { VisualProvider } from '../train/visual';
import { canonicalJson } from '../runs/run';
import { writeJsonAtomic } from '../util/atomic';
import { profiled } from '../util/profile';
import { readJsonFile } from '../util/json';
import type { WorkerPort } from '../util/workers';
import { captionSplitOnce, selectCheckpoint } from './evaluate';
import type { ExperimentOptions } from './options';
import { retrievalSetDigest, scoreMatchingRun, type Recalls } from './retrieval-scoring';
import { visualFromSpec, type FeatureSpec } from './visual';
import { reportToParent, runInLanes } from './workers';

/** `init.fromRun` of a stage that starts from the previous stage's chosen run (the executor puts that run's folder there). */
export const PREVIOUS_RUN = '<previous stage>';

/** A split's images: a COCO-format captions file (`path`, as `readEvalImages` reads it), or a JSON list of EvalImage (`list`). */
export type SplitImages = { path: string; imageRoot?: string; limit?: number } | { list: string };

/** One split captioned with a stage's chosen checkpoint and scored. */
export interface PlanEvaluation {
  /** The split's name in the run layout (`predictions/<split>.json`, `scores/<split>.json`). */
  split: string;
  images: SplitImages;
  decode: DecodeSettings;
  /** Thumbnails for the sidebar (default true). */
  thumbnails?: boolean;
  /** Metric families scored (default BLEU, ROUGE-L, CIDEr-D). */
  metrics?: EvaluateRunOptions['metrics'];
  /** Stored scores stand only when they hold every one of these corpus metrics (else the split is captioned again). */
  requires?: string[];
}

/**
 * How a stage's checkpoint is chosen before its evaluations: `captions` captions `split` with every kept checkpoint
 * (stored as `<split>.<checkpoint>`) and keeps the best CIDEr-D (`overall`: the nocaps breakdown's, else the
 * corpus's); `logged` keeps the best dev CIDEr the trainer logged (its `val`). Ties go to the earlier checkpoint.
 */
export type PlanSelection = { by: 'captions'; split: string; images: SplitImages; decode: DecodeSettings; score: 'overall' | 'corpus' } | { by: 'logged' };

/** A retrieval set scored with a stage's matching model (its last checkpoint): Recall@1/5/10 both ways, each query's rank. */
export interface PlanRetrieval {
  /** Stored in the run as `retrieval/<split>.json`. */
  split: string;
  images: SplitImages;
  maxCaptionLen: number;
}

/** What a run stores of a retrieval evaluation (ranks: an image with no caption's Infinity is written as null). */
export interface StoredRetrieval {
  split: string;
  /** The retrieval set's digest (`retrievalSetDigest`): the scores are read back only for the same set. */
  test: string;
  /** ×100. */
  recalls: Recalls;
  /** The model's learned temperature τ. */
  temperature: number;
  ranks: { imageToText: (number | null)[]; textToImage: (number | null)[] };
}

/** One training stage of a row. */
export interface PlanStage {
  /** The stage's run; several are alternatives (a learning-rate grid): each is trained and the best chosen kept. */
  configs: TrainConfig[];
  select?: PlanSelection;
  evaluations?: PlanEvaluation[];
  retrievals?: PlanRetrieval[];
}

/** One row of a table: its stages in order, on one set of features. */
export interface PlanRow {
  label: string;
  features: FeatureSpec;
  stages: PlanStage[];
}

export interface Plan {
  /** In the order the table reports them. */
  rows: PlanRow[];
  /** Features extracted before any row runs: their spec and every image key the rows read. */
  prepare: { spec: FeatureSpec; keys: string[] };
  /** Row indices in the order the lanes take them (the longest first, so that the lanes end together); default the rows'. */
  order?: number[];
}

/** A candidate checkpoint and its selection value (CIDEr-D ×100), with the scores it was chosen on when captioned. */
export interface CandidateOutcome {
  step: number;
  value: number;
  scores?: ScoresFile;
}

/** A stage's run as the row reports it. */
export interface StageRun {
  id: string;
  dir: string;
  /** Training steps done in this call (0: a finished run was reused). */
  stepsRun: number;
  vocabSize: number;
}

export interface StageOutcome {
  /** The chosen alternative's config and run. */
  config: TrainConfig;
  run: StageRun;
  /** The chosen checkpoint (absent without a selection: the run's last). */
  selection?: { step: number; dir: string; candidates: CandidateOutcome[] };
  /** Every alternative's run and choice (one for a stage of one config). */
  alternatives: { config: TrainConfig; run: StageRun; step: number; value: number; candidates: CandidateOutcome[] }[];
  /** Each evaluation's stored scores, by split. */
  evaluations: Record<string, EvaluationOutcome>;
  /** Each retrieval evaluation's stored recalls and ranks, by split. */
  retrievals: Record<string, { scores: StoredRetrieval; fresh: boolean }>;
}

export interface EvaluationOutcome {
  scores: ScoresFile;
  /** Captioned in this call (false: the stored captions stood). */
  fresh: boolean;
}

export interface RowOutcome {
  label: string;
  stages: StageOutcome[];
}

/** The images of a split. */
export function readSplitImages(source: SplitImages): EvalImage[] {
  if ('list' in source) return JSON.parse(fs.readFileSync(source.list, 'utf8')) as EvalImage[];
  return readEvalImages(source);
}

/** Runs a plan: features once here, then the rows `options.concurrency` (default 2) at a time; outcomes in the rows' order. */
export async function runPlan(plan: Plan, options: ExperimentOptions): Promise<RowOutcome[]> {
  const spec = plan.prepare.spec;
  const prepared = await profiled('backbone', spec.backbone, () => visualFromSpec(spec, { progress: options.progress }));
  options.say?.(`visual features (${spec.backbone}, ${spec.mode}) for ${plan.prepare.keys.length} images`);
  await profiled(
    'features',
    `${spec.backbone} ${spec.mode}`,
    () => prepared.prepare(plan.prepare.keys),
    () => ({ images: plan.prepare.keys.length }),
  );
  const providers = new Map<string, Promise<VisualProvider>>([[canonicalJson(plan.prepare.spec), Promise.resolve(prepared)]]);
  const visualOf = (spec: FeatureSpec) => {
    const key = canonicalJson(spec);
    if (!providers.has(key)) providers.set(key, visualFromSpec(spec));
    return providers.get(key)!;
  };
  const order = plan.order ?? plan.rows.map((_, i) => i);
  const jobs = order.map((i): PlanRowJob => ({ row: plan.rows[i]!, runsRoot: options.runsRoot, force: options.force }));
  const ran = await runInLanes(
    jobs,
    options.concurrency ?? 2,
    {
      modulePath: __filename,
      worker: planRowJob,
      here: async (job) => runPlanRow(job.row, await visualOf(job.row.features), options),
      label: (job) => job.row.label,
    },
    options,
  );
  const outcomes: RowOutcome[] = new Array(plan.rows.length);
  order.forEach((row, k) => (outcomes[row] = ran[k]!));
  return outcomes;
}

/** What a worker thread needs to run one row. */
export interface PlanRowJob {
  row: PlanRow;
  runsRoot?: string;
  force?: boolean;
}

/** Worker side of one row: the provider rebuilt from its spec, every line posted to the parent. */
export async function planRowJob(job: PlanRowJob, port: WorkerPort): Promise<RowOutcome> {
  const visual = await visualFromSpec(job.row.features);
  return runPlanRow(job.row, visual, { runsRoot: job.runsRoot, force: job.force, concurrency: 1, ...reportToParent(port) });
}

/** One row: each stage trained (or reused), its checkpoint chosen, its splits captioned (or read back), in order. */
export async function runPlanRow(row: PlanRow, visual: VisualProvider, options: ExperimentOptions): Promise<RowOutcome> {
  const stages: StageOutcome[] = [];
  for (const stage of row.stages) {
    const previous = stages.at(-1)?.run.dir;
    const alternatives: (StageOutcome['alternatives'][number] & { dir?: string })[] = [];
    let best: (typeof alternatives)[number] | undefined;
    for (const planned of stage.configs) {
      const config = fromPrevious(planned, previous);
      const trained = await trainWithReports(config, visual, options);
      const run: StageRun = { id: trained.id, dir: trained.dir, stepsRun: trained.stepsRun, vocabSize: trained.vocab.size };
      const select = stage.select;
      const choice = select
        ? await profiled(
            'select',
            config.name ?? trained.id,
            () => chooseCheckpoint(trained, config, select, visual, options),
            (c) => ({ checkpoints: c.candidates.length }),
          )
        : undefined;
      if (choice) options.say?.(`${config.name}: checkpoint of step ${choice.step} of ${config.steps} chosen (CIDEr ${choice.value.toFixed(1)})`);
      const alternative = { config, run, step: choice?.step ?? NaN, value: choice?.value ?? NaN, candidates: choice?.candidates ?? [], dir: choice?.dir };
      alternatives.push(alternative);
      // the best alternative's chosen checkpoint; ties go to the earlier alternative
      if (!best || alternative.value > best.value) best = alternative;
    }
    const evaluations: Record<string, EvaluationOutcome> = {};
    if (!best) throw new Error(`${row.label}: a stage without a config`);
    for (const evaluation of stage.evaluations ?? [])
      evaluations[evaluation.split] = await profiled(
        'caption',
        `${best.config.name ?? best.run.id} ${evaluation.split}`,
        () => evaluate(best.run.dir, best.config, evaluation, visual, options, best.dir),
        (e) => ({ fresh: e.fresh ? 1 : 0 }),
      );
    const retrievals: StageOutcome['retrievals'] = {};
    for (const retrieval of stage.retrievals ?? [])
      retrievals[retrieval.split] = await profiled('retrieval', `${best.run.id} ${retrieval.split}`, () =>
        scoreRetrieval(best.run, retrieval, visual, options),
      );
    stages.push({
      config: best.config,
      run: best.run,
      ...(stage.select ? { selection: { step: best.step, dir: best.dir!, candidates: best.candidates } } : {}),
      alternatives: alternatives.map(({ dir: _dir, ...a }) => a),
      evaluations,
      retrievals,
    });
  }
  return { label: row.label, stages };
}

/** Where a run stores a retrieval evaluation. */
export const retrievalFile = (runDir: string, split: string): string => path.join(runDir, 'retrieval', `${split}.json`);

/** A run's stored retrieval evaluation of `split`, when there is one. */
export function readRetrieval(runDir: string, split: string): StoredRetrieval | undefined {
  const file = retrievalFile(runDir, split);
  return fs.existsSync(file) ? (readJsonFile(file) as StoredRetrieval) : undefined;
}

/** Scores a matching run on a retrieval set unless its scores of the same set are stored (and the run did not train in this call). */
async function scoreRetrieval(
  run: StageRun,
  retrieval: PlanRetrieval,
  visual: VisualProvider,
  options: ExperimentOptions,
): Promise<{ scores: StoredRetrieval; fresh: boolean }> {
  const images = readSplitImages(retrieval.images);
  const test = retrievalSetDigest(images);
  const stored = readRetrieval(run.dir, retrieval.split);
  if (!options.force && run.stepsRun === 0 && stored?.test === test) return { scores: stored, fresh: false };
  options.say?.(`scoring ${run.id} on ${retrieval.split} (${images.length} images)`);
  const { recalls, ranks, temperature } = await scoreMatchingRun(run.dir, visual, images, retrieval.maxCaptionLen);
  const scores: StoredRetrieval = { split: retrieval.split, test, recalls, temperature, ranks };
  writeJsonAtomic(retrievalFile(run.dir, retrieval.split), scores);
  // read back, as a stored one is (an image with no caption ranks at Infinity, written as null)
  return { scores: readRetrieval(run.dir, retrieval.split)!, fresh: true };
}

/** A stage's config with `PREVIOUS_RUN` replaced by the previous stage's run folder. */
function fromPrevious(config: TrainConfig, previous: string | undefined): TrainConfig {
  if (config.init?.fromRun !== PREVIOUS_RUN) return config;
  if (!previous) throw new Error(`${config.name}: starts from the previous stage, but it is the row's first`);
  return { ...config, init: { ...config.init, fromRun: previous } };
}

/**
 * Trains one stage (or reuses it when finished) with an experiment's reporting: a "training …" status line, the
 * trainer's log lines to `say`, its log records and progress under the run's name.
 */
export function trainWithReports(cfg: TrainConfig, visual: VisualProvider, options: ExperimentOptions): Promise<TrainedRun> {
  options.say?.(`training ${cfg.name} (${cfg.steps} steps)`);
  const measure = (run: TrainedRun) => ({ steps: run.stepsRun, ...(run.matmulFlops !== undefined ? { matmulFlops: run.matmulFlops } : {}) });
  return profiled(
    'train',
    cfg.name ?? 'run',
    () =>
      train(cfg, {
        runsRoot: options.runsRoot ?? 'runs',
        visual,
        force: options.force,
        logger: options.say,
        onLog: options.onLog ? (line) => options.onLog!(cfg.name!, line) : undefined,
        progress: options.progress ? (done, total) => options.progress!(cfg.name!, done, total) : undefined,
      }),
    measure,
  );
}

/** The chosen checkpoint of a trained run (see `PlanSelection`). */
async function chooseCheckpoint(
  run: TrainedRun,
  config: TrainConfig,
  select: PlanSelection,
  visual: VisualProvider,
  options: ExperimentOptions,
): Promise<{ step: number; dir: string; value: number; candidates: CandidateOutcome[] }> {
  if (select.by === 'logged') {
    const choice = await devCheckpoint(run.dir);
    const candidates = choice.curve.filter((p) => choice.kept.includes(p.step)).map(({ step, cider }) => ({ step, value: 100 * cider }));
    return { step: choice.step, dir: choice.dir, value: 100 * choice.cider, candidates };
  }
  const images = readSplitImages(select.images);
  const value = (scores: ScoresFile) => 100 * ((select.score === 'overall' ? scores.domains?.overall?.CIDEr : scores.corpus.CIDEr) ?? NaN);
  const choice = await selectCheckpoint(
    run.dir,
    select.split,
    async ({ step, dir, split }) => {
      const at = { split, images: select.images, decode: select.decode, thumbnails: false };
      return (await evaluate(run.dir, { ...config, name: `${config.name} step ${step}` }, at, visual, options, dir, images)).scores;
    },
    value,
  );
  const candidates = choice.candidates.map(({ step, score }) => ({ step, value: value(score), scores: score }));
  return { step: choice.step, dir: choice.dir, value: value(choice.candidates.find((c) => c.step === choice.step)!.score), candidates };
}

/** The dev CIDEr a run logged while training, and the checkpoint chosen on it. */
export interface DevChoice {
  step: number;
  /** Dev CIDEr (×1) at the chosen step. */
  cider: number;
  curve: { step: number; cider: number }[];
}

/** The dev CIDEr (×1) a run logged at each step (the last line per step: a resumed run logs its steps again). */
export function loggedDevCurve(runDir: string): DevChoice['curve'] {
  const atStep = new Map<number, number>();
  for (const line of readLog(runDir)) if (line.val && Number.isFinite(line.val.CIDEr)) atStep.set(line.step, line.val.CIDEr!);
  return [...atStep].sort((a, b) => a[0] - b[0]).map(([step, cider]) => ({ step, cider }));
}

/**
 * The `logged` choice (CC3M §5.2) among a run's kept checkpoints: `selectCheckpoint`'s rule (the best value, ties
 * to the earlier) on the dev CIDEr the run logged while training (greedy, so the dev set is not decoded again).
 */
export async function devCheckpoint(runDir: string): Promise<DevChoice & { dir: string; kept: number[] }> {
  const curve = loggedDevCurve(runDir);
  const atStep = new Map(curve.map((p) => [p.step, p.cider]));
  const choice = await selectCheckpoint(
    runDir,
    'dev',
    async ({ step }) => {
      const cider = atStep.get(step);
      if (cider === undefined) throw new Error(`${runDir}: no dev CIDEr logged at the kept checkpoint of step ${step}`);
      return cider;
    },
    (cider) => cider,
  );
  return { step: choice.step, cider: atStep.get(choice.step)!, dir: choice.dir, curve, kept: choice.candidates.map((c) => c.step) };
}

/**
 * Captions one split with a run (at `checkpoint`, else its last) unless the captions from this decoder are stored
 * with every required metric, and gives the stored scores; stored captions of images that carry objects, judged by
 * an older judge (or none), are judged again.
 */
async function evaluate(
  runDir: string,
  config: TrainConfig,
  evaluation: PlanEvaluation,
  visual: VisualProvider,
  options: ExperimentOptions,
  checkpoint?: string,
  images: readonly EvalImage[] = readSplitImages(evaluation.images),
): Promise<EvaluationOutcome> {
  const { split } = evaluation;
  const holds = (scores: ScoresFile | undefined) => scores !== undefined && (evaluation.requires ?? []).every((m) => Number.isFinite(scores.corpus[m]));
  const fresh = await captionSplitOnce(runDir, images, visual, {
    split,
    decode: evaluation.decode,
    ...(checkpoint ? { checkpoint } : {}),
    thumbnails: evaluation.thumbnails ?? true,
    ...(evaluation.metrics ? { metrics: evaluation.metrics } : {}),
    force: options.force,
    say: options.say,
    label: config.name!,
    stored: (dir) => holds(readScores(dir, split)),
    progress: options.progress ? (done, total) => options.progress!(`caption ${config.name}`, done, total) : undefined,
  });
  const scores = readScores(runDir, split)!;
  if (!fresh && images.every((i) => i.objects) && !(scores.grounding && scores.groundingJudge === JUDGE_VERSION)) {
    // captioned before the images carried objects, or by an older judge: judge the stored captions again
    rejudgeRun(runDir, split, new Map(images.map((i) => [String(i.imageId), i.objects!])));
    return { scores: readScores(runDir, split)!, fresh: false };
  }
  return { scores, fresh: fresh !== undefined };
}
