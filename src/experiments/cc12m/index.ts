/**
 * The CC12M paper's experiments, one namespace per table: each has `run` (the experiment for one seed's
 * recipe), `rows` (the table over seeds), `claims` (the claims table over seeds) with `claimList` (the claims
 * with their numbers) and `forest` (their forest plot), and `figure`; the rest of the table's module is there
 * too. Notebook cells call `cckit.cc12m.table3.run(recipe, options)`.
 */
import { claimsFigure, type Claim } from '../claims';
import * as fig6Module from './fig6';
import * as mechanismModule from './mechanism';
import * as table1Module from './table1';
import * as table11Module from './table11';
import * as table12Module from './table12';
import * as table3Module from './table3';
import * as table4Module from './table4';
import * as table5Module from './table5';
import * as table7Module from './table7';
import * as tables6and10Module from './tables6-10';
import * as table8Module from './table8';

/** The forest plot of a table's claims over seeds. */
const forestOf =
  <R>(claimList: (perSeed: readonly R[]) => Claim[], title: string, unit = 'CIDEr ×100') =>
  (perSeed: readonly R[]) =>
    claimsFigure(claimList(perSeed), { title: `${title}: per-seed differences (the claim’s way to the right of 0)`, unit });

/** Table 1 and the pipelines' funnels from the prepared pools (no training): `run` measures the statistics. */
export const table1 = {
  ...table1Module,
  run: table1Module.measureTable1,
  rows: table1Module.table1Rows,
  figure: table1Module.rareWordsFigure,
};

export const table3 = {
  ...table3Module,
  run: table3Module.runTable3,
  rows: table3Module.table3SeedRows,
  judgeRows: table3Module.table3JudgeRows,
  dataRows: table3Module.table3DataRows,
  /** The table with the fine-tuning rate searched on val (app. E.5) beside the preset's one rate. */
  rateRows: table3Module.table3RateRows,
  groundingNote: table3Module.table3GroundingNote,
  /** Issue #26's mechanism from Table 3's stored captions: pool frequency vs naming, naming per fine-tuning step. */
  mechanism: mechanismModule.table3Mechanism,
  mechanismSummary: mechanismModule.mechanismSummary,
  mechanismFigure: mechanismModule.mechanismFigure,
  namingCurvesFigure: mechanismModule.namingCurvesFigure,
  claims: table3Module.table3Claims,
  claimList: table3Module.table3ClaimList,
  forest: forestOf(table3Module.table3ClaimList, "Table 3's claims"),
  figure: table3Module.table3Figure,
};

/** Table 4 reads Table 3's runs: `run(table3Result, runsRoot)` scores their stored val and test captions. */
export const table4 = {
  ...table4Module,
  run: table4Module.table4Scores,
  rows: table4Module.table4Rows,
  claims: table4Module.table4Claims,
  claimList: table4Module.table4ClaimList,
  forest: forestOf(table4Module.table4ClaimList, "Table 4's claims"),
  figure: table4Module.table4Figure,
};

/** Table 5 reads Table 3's runs: `run(table3Result, options)` captions the COCO-like test split with them. */
export const table5 = {
  ...table5Module,
  run: table5Module.cc12mTable5,
  rows: table5Module.table5Rows,
  claims: table5Module.table5Claims,
  claimList: table5Module.table5ClaimList,
  forest: forestOf(table5Module.table5ClaimList, "Table 5's claims"),
  figure: table5Module.table5Figure,
};

export const table11 = {
  ...table11Module,
  run: table11Module.runTable11,
  rows: table11Module.table11SeedRows,
  claims: table11Module.table11Claims,
  claimList: table11Module.table11ClaimList,
  forest: forestOf(table11Module.table11ClaimList, "Table 11's claims"),
};

export const table12 = {
  ...table12Module,
  run: table12Module.runTable12,
  rows: table12Module.table12SeedRows,
  claims: table12Module.table12Claims,
  claimList: table12Module.table12ClaimList,
  forest: forestOf(table12Module.table12ClaimList, "Table 12's claims"),
};

export const fig6 = {
  ...fig6Module,
  run: fig6Module.runFig6,
  rows: fig6Module.fig6SeedRows,
  claims: fig6Module.fig6Claims,
  claimList: fig6Module.fig6ClaimList,
  forest: forestOf(fig6Module.fig6ClaimList, "Fig. 6's claims"),
};

export const table8 = {
  ...table8Module,
  run: table8Module.runTable8,
  rows: table8Module.table8Rows,
  claims: table8Module.table8Claims,
  claimList: table8Module.table8ClaimList,
  forest: forestOf(table8Module.table8ClaimList, "Table 8's claims", 'Recall@K ×100'),
  figure: table8Module.table8Figure,
};

/** Table 7, the CC3M benchmark: its own pre-training runs on pools without CC3M's held-out images. */
export const table7 = {
  ...table7Module,
  run: table7Module.runTable7,
  rows: table7Module.table7Rows,
  claims: table7Module.table7Claims,
  claimList: table7Module.table7ClaimList,
  forest: forestOf(table7Module.table7ClaimList, "Table 7's claims"),
  figure: table7Module.table7Figure,
};

/** Tables 6 and 10 come from one run over the narratives (`run`); `rows` is Table 10's, `table6Rows` Table 6's. */
const narratives = {
  ...tables6and10Module,
  run: tables6and10Module.runNarratives,
  claims: tables6and10Module.narrativesClaims,
  claimList: tables6and10Module.narrativesClaimList,
  forest: forestOf(tables6and10Module.narrativesClaimList, "Tables 6 and 10's claims"),
  figure: tables6and10Module.table10Figure,
};
export const table10 = { ...narratives, rows: tables6and10Module.table10Rows };
export const table6 = { ...narratives, rows: tables6and10Module.table6Rows };
