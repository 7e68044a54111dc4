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
export { RECIPES, TABLE3_SOURCES, trainConfigFor, withSetting, type Recipe, type StageRecipe, type Inputs } from './experiments/recipe';
export { runJobs } from './experiments/jobs';
export { runVariants, runVariant, runExperiment, type Variant, type ResultRow, type ExperimentResult } from './experiments/runner';
export { prepareWorldInputs } from './experiments/inputs';
export type { ExperimentOptions } from './experiments/options';
export * as seeds from './experiments/seeds';
export * as claims from './experiments/claims';
/** Every claim of both papers with its verdict from the committed notebooks (`cckit results`, notebooks/12-scorecard.ipynb). */
export * as results from './experiments/results';
/** The papers' experiments, one namespace per table: `cckit.cc12m.table3.run(recipe, options)`, `.rows`, `.claims`, `.figure`. */
export * as cc12m from './experiments/cc12m';
export * as cc3m from './experiments/cc3m';
/** Every table by its `cckit table` name (`cc12m/table3`, `cc3m/tables4-7`, …): `tableNamed(name).run(recipe, options)`. */
export { TABLES, tableNamed, tableJson, type TableDefinition } from './experiments/tables';
export { visualFromSpec, type FeatureSpec } from './experiments/visual';
export { worldCheck } from './experiments/world-check';
export { formatWorldCheck, type WorldCheckResult, type StatisticResult } from './experiments/world-verdicts';
export { leaveOneOutCider } from './metrics/human';
export { CALIBRATION, type CalibrationTarget } from './world/calibration';
export * as notebook from './notebook';
export { compareRuns, compareBundle, type CompareRunsOptions } from './notebook/compare';
