/** cckit, the research library: `require('cckit')` from Node or a tslab notebook cell. */
export * as metrics from './metrics';
export * as data from './data';
export { download, type DownloadOptions, type DownloadSummary } from './download/distributor';
export * as decode from './decode';
export * as runs from './runs/layout';
export { World } from './world/world';
export { buildWorld } from './data/build-world';
export { WORLD_PRESETS } from './world/splits';
export { filterPool } from './filters/run';
export { PRESETS as FILTER_PRESETS } from './filters/presets';
export { Funnel } from './filters/funnel';
export { formatTable } from './report/table';
export { paperNumbers } from './report/paper';
export { show } from './notebook/display';
export { frame, type DataFrameLike } from './notebook/frames';
export { initBackend } from './tf/backend';
export { train, type TrainConfig } from './train/trainer';
export { readEvalImages, readExamples } from './train/data';
export { loadRunModel, loadRunMatchingModel } from './train/load';
export { Vocabulary } from './text/vocab';
export { TransformerCaptioner, TRANSFORMER_SIZES } from './models/transformer';
export { LstmCaptioner, LSTM_SIZES } from './models/lstm';
export { MatchingModel } from './models/matching';
export { captionSplit, captionSplitOnce, selectCheckpoint } from './experiments/evaluate';
export { RECIPES, TABLE3_SOURCES, trainConfigFor, type Recipe, type StageRecipe, type Inputs } from './experiments/recipe';
export { runJobs } from './experiments/jobs';
export {
  runVariants,
  runVariant,
  runExperiment,
  prepareWorldInputs,
  type Variant,
  type ResultRow,
  type ExperimentResult,
  type ExperimentOptions,
} from './experiments/runner';
export * as seeds from './experiments/seeds';
export * as claims from './experiments/claims';
/** The papers' experiments, one namespace per table: `cckit.cc12m.table3.run(recipe, options)`, `.rows`, `.claims`, `.figure`. */
export * as cc12m from './experiments/cc12m';
export * as cc3m from './experiments/cc3m';
export { visualFromSpec, type FeatureSpec } from './experiments/visual';
export { worldCheck, formatWorldCheck, type WorldCheckResult, type StatisticResult } from './experiments/world-check';
export { leaveOneOutCider } from './metrics/human';
export { CALIBRATION, type CalibrationTarget } from './world/calibration';
export * as notebook from './notebook';
export { compareRuns, compareBundle, type CompareRunsOptions } from './notebook/compare';
