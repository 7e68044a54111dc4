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
export { loadRunModel } from './train/load';
export { Vocabulary } from './text/vocab';
export { TransformerCaptioner, TRANSFORMER_SIZES } from './models/transformer';
export { LstmCaptioner, LSTM_SIZES } from './models/lstm';
export { MatchingModel } from './models/matching';
export { captionSplit } from './experiments/evaluate';
export { RECIPES, TABLE3_SOURCES, trainConfigFor, type Recipe, type StageRecipe, type Inputs } from './experiments/recipe';
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
export { runTable3, table3Rows, table3GroundingRows, formatTable3, humanBaseline, table3ResultRows, type Table3Result } from './experiments/cc12m/table3';
export * as seeds from './experiments/seeds';
export * as claims from './experiments/claims';
export * as cc12m from './experiments/cc12m';
export {
  table4Scores,
  table4Rows,
  table4Claims,
  table4Figure,
  table4Differences,
  table4Paper,
  writeTable4Submission,
  valChosenRow,
  rankAgreement,
  TABLE4_SPLITS,
  NO_PAPER_NUMBER,
  type Table4Result,
  type Table4Row,
  type Table4Claim,
} from './experiments/cc12m/table4';
export {
  runTable8,
  table8Rows,
  table8Claims,
  table8Figure,
  table8Differences,
  table8Paper,
  table8Vilbert,
  table8ZeroShotComparison,
  TABLE8_NO_PAPER,
  type Table8Result,
  type Table8Row,
  type Table8Claim,
} from './experiments/cc12m/table8';
export { runTable11, table11Rows, TABLE11_RATES } from './experiments/cc12m/table11';
export { runTable12, table12Rows, TABLE12_OBJECTIVES } from './experiments/cc12m/table12';
export { runFig6, fig6Rows, FIG6_FRACTIONS } from './experiments/cc12m/fig6';
export { visualFromSpec, type FeatureSpec } from './experiments/visual';
export * as datasets from './experiments/cc3m-dataset';
export * as cocoBenchmark from './experiments/cc12m/table5';
export * as cc3mBenchmark from './experiments/cc12m/table7';
export * as narratives from './experiments/cc12m/tables6-10';
export * as captioners from './experiments/cc3m/tables4-7';
export { worldCheck, formatWorldCheck, type WorldCheckResult, type StatisticResult } from './experiments/world-check';
export { leaveOneOutCider } from './metrics/human';
export { CALIBRATION, type CalibrationTarget } from './world/calibration';
export * as notebook from './notebook';
export { compareRuns, compareBundle, type CompareRunsOptions } from './notebook/compare';
