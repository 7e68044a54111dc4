/**
 * The variants of one recipe (CC12M Tables 3, 10, 11, 12 and Fig. 6): a paper experiment as a list of variants, each
 * a plan row (src/experiments/plan.ts) of pre-training (unless it has no sources) → optionally nocaps zero-shot →
 * fine-tuning on COCO, its checkpoint chosen on nocaps val → nocaps val and test. `runVariants` prepares the inputs
 * (src/experiments/inputs.ts: the world, built once, and the two paper pipelines over its web pool, run once; or real
 * files) and hands the rows to `runPlan`; every step is a run in `runs/<id>/` (reused when its config and inputs are
 * unchanged). Results come back in the variants' order.
 */
import type { ScoresFile } from '../runs/layout';
import type { TrainConfig } from '../train/trainer';
import type { VisualProvider } from '../train/visual';
import { experimentImageKeys, poolSizes, prepareWorldInputs } from './inputs';
import type { ExperimentOptions } from './options';
import { PREVIOUS_RUN, runPlan, runPlanRow, type CandidateOutcome, type PlanEvaluation, type PlanRow, type PlanSelection, type RowOutcome } from './plan';
import { Inputs, Recipe, trainConfigFor } from './recipe';
import type { FeatureSpec } from './visual';

export interface Variant {
  /** Row label ("cc12m", "mlm@0.4", "25% cc12m"); names its runs. */
  label: string;
  /** Pre-training pools (none: COCO only). */
  sources: ('cc3m' | 'cc12m')[];
  /** Pre-training objectives (default: the recipe's). */
  objectives?: TrainConfig['objectives'];
  /** Fraction of the pre-training pairs (Fig. 6). */
  subsample?: number;
}

export type Scores = Record<'in' | 'near' | 'out' | 'overall', number>;

/** Object recall and CHAIR figures of one split's captions, overall and per nocaps domain (src/metrics/grounding.ts). */
export type Grounding = NonNullable<ScoresFile['grounding']>;

/** One fine-tuning checkpoint the recipe considered, and its nocaps-val CIDEr. */
export interface CheckpointChoice {
  step: number;
  val: Scores;
}

/** One result row of any experiment. */
export interface ResultRow {
  label: string;
  /** nocaps-val CIDEr (×100) after fine-tuning on COCO (at the chosen checkpoint when the recipe selects one). */
  finetuned: Scores;
  /** nocaps-val CIDEr (×100) of the pre-trained model without fine-tuning. */
  zeroShot?: Scores;
  /** nocaps-test CIDEr (×100) at the same checkpoints, when the inputs have a test split: not used for any choice. */
  test?: { finetuned: Scores; zeroShot?: Scores };
  /**
   * The ground-truth judge's figures (object recall, CHAIR; world data only) of the same captions
   * as `finetuned`, `zeroShot` and `test`.
   */
  grounding?: { finetuned?: Grounding; zeroShot?: Grounding; test?: Grounding; zeroShotTest?: Grounding };
  /**
   * The fine-tuning checkpoints scored on val and the step chosen (recipe `finetune.select`); with a learning-rate
   * grid, the chosen rate's candidates and every rate's best (`rates`).
   */
  selection?: { candidates: CheckpointChoice[]; step: number; lr?: number; rates?: { lr: number; step: number; val: Scores; run: string }[] };
  /** Run ids (folders under the runs root). */
  pretrainRun?: string;
  finetuneRun: string;
}

export interface VariantsResult {
  inputs: Inputs;
  results: ResultRow[];
}

/** The features an experiment uses: the options' spec, else the recipe's under the options' cache folder. */
export function featuresOf(recipe: Recipe, options: ExperimentOptions): FeatureSpec {
  return options.features ?? { ...recipe.features, cacheDir: options.cacheDir };
}

const cider = (domains: Partial<Record<string, Record<string, number>>> | undefined): Scores => {
  const get = (d: string): number => 100 * (domains?.[d]?.CIDEr ?? NaN);
  return { in: get('in'), near: get('near'), out: get('out'), overall: get('overall') };
};

/** The label as a run-name fragment. */
const slugOf = (label: string): string => label.replace(/[^\w.+-]+/g, '-');

/** The pre-training TrainConfig of a variant (undefined without sources). */
export function pretrainConfig(recipe: Recipe, variant: Variant, inputs: Inputs): TrainConfig | undefined {
  if (variant.sources.length === 0) return undefined;
  return trainConfigFor(
    recipe,
    recipe.pretrain,
    {
      name: `pretrain-${slugOf(variant.label)}`,
      train: variant.sources.map((s) => ({ kind: 'tsv' as const, path: inputs.pools[s] })),
      objectives: variant.objectives,
      subsample: variant.subsample,
    },
    inputs,
  );
}

/** The fine-tuning learning rates a recipe tries: its grid (`finetune.select.learningRates`), else its one rate. */
export function finetuneRates(recipe: Recipe): number[] {
  return recipe.finetune.select?.learningRates ?? [recipe.finetune.lr];
}

/**
 * The fine-tuning TrainConfig of a variant, from its pre-training run's folder when it has one; `lr` (one of a
 * grid's rates) names the run apart unless it is the stage's own rate, whose run keeps its name and id.
 */
export function finetuneConfig(recipe: Recipe, variant: Variant, inputs: Inputs, pretrainRun: string | undefined, lr = recipe.finetune.lr): TrainConfig {
  const { select, ...stage } = recipe.finetune;
  // the grid itself is not part of a run's config: each rate's run is the stage at that rate
  const single = select ? { ...stage, lr, select: { every: select.every } } : { ...stage, lr };
  return trainConfigFor(
    recipe,
    single,
    {
      name: `finetune-coco-from-${slugOf(variant.label)}${lr === recipe.finetune.lr ? '' : `-lr${lr}`}`,
      train: [{ kind: 'coco', path: inputs.cocoTrain, imageRoot: inputs.imageRoot }],
      init: pretrainRun ? { fromRun: pretrainRun, vocab: 'keep' } : undefined,
    },
    inputs,
  );
}

/** The nocaps splits of a recipe's inputs (val, and test when the inputs have it), captioned with `decode`. */
function nocapsEvaluations(recipe: Recipe, inputs: Inputs): PlanEvaluation[] {
  const at = (split: string, file: string): PlanEvaluation => ({ split, images: { path: file, imageRoot: inputs.imageRoot }, decode: recipe.decode });
  return [at('nocaps-val', inputs.nocapsVal), ...(inputs.nocapsTest ? [at('nocaps-test', inputs.nocapsTest)] : [])];
}

/**
 * A variant as a plan row: pre-training on its sources (none: no stage), captioned zero-shot on nocaps when the
 * recipe asks; then fine-tuning on COCO from it, one run per rate of the recipe's grid, the (rate, checkpoint) with
 * the best nocaps-val CIDEr chosen when the recipe selects; nocaps val and test captioned with the choice.
 */
export function variantRow(recipe: Recipe, variant: Variant, inputs: Inputs, features: FeatureSpec): PlanRow {
  const evaluations = nocapsEvaluations(recipe, inputs);
  const pretrain = pretrainConfig(recipe, variant, inputs);
  const finetunes = finetuneRates(recipe).map((lr) => finetuneConfig(recipe, variant, inputs, pretrain ? PREVIOUS_RUN : undefined, lr));
  const select: PlanSelection | undefined = recipe.finetune.select
    ? { by: 'captions', split: 'nocaps-val', images: evaluations[0]!.images, decode: recipe.decode, score: 'overall' }
    : undefined;
  return {
    label: variant.label,
    features,
    stages: [
      ...(pretrain ? [{ configs: [pretrain], evaluations: recipe.zeroShot ? evaluations : [] }] : []),
      { configs: finetunes, ...(select ? { select } : {}), evaluations },
    ],
  };
}

/** A variant's result row from its plan row's outcome. */
export function variantResult(recipe: Recipe, outcome: RowOutcome): ResultRow {
  const [pre, fine] = outcome.stages.length > 1 ? outcome.stages : [undefined, outcome.stages[0]!];
  const finetuned = fine!.evaluations['nocaps-val']!.scores;
  const finetunedTest = fine!.evaluations['nocaps-test']?.scores;
  const zeroShot = pre?.evaluations['nocaps-val']?.scores;
  const zeroShotTest = pre?.evaluations['nocaps-test']?.scores;
  const valOf = (candidates: readonly CandidateOutcome[], step: number) => cider(candidates.find((c) => c.step === step)!.scores!.domains);
  let selection: ResultRow['selection'];
  if (fine!.selection) {
    const { candidates, step } = fine!.selection;
    selection = { candidates: candidates.map((c) => ({ step: c.step, val: cider(c.scores!.domains) })), step };
    if (recipe.finetune.select?.learningRates) {
      const rates = fine!.alternatives.map((a) => ({ lr: a.config.optimizer.lr, step: a.step, val: valOf(a.candidates, a.step), run: a.run.id }));
      selection = { ...selection, lr: fine!.config.optimizer.lr, rates };
    }
  }
  const grounding = {
    ...(finetuned.grounding ? { finetuned: finetuned.grounding } : {}),
    ...(zeroShot?.grounding ? { zeroShot: zeroShot.grounding } : {}),
    ...(finetunedTest?.grounding ? { test: finetunedTest.grounding } : {}),
    ...(zeroShotTest?.grounding ? { zeroShotTest: zeroShotTest.grounding } : {}),
  };
  return {
    label: outcome.label,
    finetuned: cider(finetuned.domains),
    ...(zeroShot ? { zeroShot: cider(zeroShot.domains) } : {}),
    ...(finetunedTest ? { test: { finetuned: cider(finetunedTest.domains), ...(zeroShotTest ? { zeroShot: cider(zeroShotTest.domains) } : {}) } } : {}),
    ...(Object.keys(grounding).length > 0 ? { grounding } : {}),
    ...(selection ? { selection } : {}),
    ...(pre ? { pretrainRun: pre.run.id } : {}),
    finetuneRun: fine!.run.id,
  };
}

/** One row in this thread with the given provider: pre-train (unless no sources), optionally zero-shot, fine-tune on COCO, evaluate on nocaps. */
export async function runVariant(recipe: Recipe, variant: Variant, inputs: Inputs, visual: VisualProvider, options: ExperimentOptions): Promise<ResultRow> {
  return variantResult(recipe, await runPlanRow(variantRow(recipe, variant, inputs, featuresOf(recipe, options)), visual, options));
}

/** Inputs ready, then the variants' plan (features extracted once, rows `concurrency` at a time). */
export async function runVariants(recipe: Recipe, variants: readonly Variant[], options: ExperimentOptions): Promise<VariantsResult> {
  const inputs = await prepareWorldInputs(recipe, options);
  const features = featuresOf(recipe, options);
  const rows = variants.map((variant) => variantRow(recipe, variant, inputs, features));
  const outcomes = await runPlan({ rows, prepare: { spec: features, keys: await experimentImageKeys(inputs) } }, options);
  return { inputs, results: outcomes.map((outcome) => variantResult(recipe, outcome)) };
}

/** An experiment's measured rows (labelled as the paper's table names them), its inputs and pool sizes. */
export interface ExperimentResult {
  config: Recipe;
  rows: ResultRow[];
  inputs: Inputs;
  /** Pairs in each pre-training pool. */
  pools: Record<string, number>;
  seconds: number;
}

/** `runVariants`, then each row relabelled by `display` (the runs keep the variants' labels). */
export async function runExperiment(
  recipe: Recipe,
  variants: readonly Variant[],
  options: ExperimentOptions,
  display: (label: string) => string = (l) => l,
): Promise<ExperimentResult> {
  const started = Date.now();
  const { inputs, results } = await runVariants(recipe, variants, options);
  return {
    config: recipe,
    rows: results.map((r) => ({ ...r, label: display(r.label) })),
    inputs,
    pools: poolSizes(inputs),
    seconds: (Date.now() - started) / 1000,
  };
}
