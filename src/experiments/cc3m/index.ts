/**
 * The CC3M paper's captioning experiments: Tables 4–7 come from one grid of 8 runs (`run`); `rows(results, table)`
 * is one table of it, `judgeRows` Table 4's ground-truth judge; `claims` / `claimList` / `forest` the claims over
 * seeds. Its dataset tables (1–3) need no training: `tables1to3`.
 */
import { claimsFigure } from '../claims';
import * as datasetsModule from '../cc3m-dataset';
import * as tables1to3Module from './tables1-3';
import * as tables4to7Module from './tables4-7';

/**
 * CC3M Tables 1–3 (and CC12M Table 9) from the world's pools, no training: `run` measures the pools
 * (`measureDatasets`), then one function per table (`table1PaperExamples`, `table1WorldExamples`, `table2Rows`, …)
 * and `claims`.
 */
export const tables1to3 = {
  ...datasetsModule,
  ...tables1to3Module,
  run: datasetsModule.measureDatasets,
  claims: tables1to3Module.datasetClaims,
};

export const tables4to7 = {
  ...tables4to7Module,
  run: tables4to7Module.runCc3mCaptioners,
  rows: tables4to7Module.captionerTableRows,
  judgeRows: tables4to7Module.captionerJudgeRows,
  claims: tables4to7Module.captionerClaims,
  claimList: tables4to7Module.captionerClaimList,
  forest: (results: Parameters<typeof tables4to7Module.captionerClaimList>[0]) =>
    claimsFigure(tables4to7Module.captionerClaimList(results), { title: "CC3M Tables 4–7's claims: per-pair differences (the claim’s way to the right of 0)" }),
  figure: tables4to7Module.captionerFigure,
  judgeFigure: tables4to7Module.captionerJudgeFigure,
};
