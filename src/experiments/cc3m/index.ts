/**
 * The CC3M paper's experiments: its dataset tables (1–3, no training) and its captioner grid (Tables 4–7, 8 runs), each
 * the module with what every table has, derived from its entry in `TABLES` (src/experiments/tables.ts): `run`,
 * `rows`, `claims` / `claimList`, `forest`, `figure`.
 */
import * as datasetsModule from '../cc3m-dataset';
import { TABLES, tableApi } from '../tables';
import * as tables1to3Module from './tables1-3';
import * as tables4to7Module from './tables4-7';
import * as tables4to7GridModule from './tables4-7-grid';
import * as tables4to7ReportModule from './tables4-7-report';

/** CC3M Tables 1–3 (and CC12M Table 9) from the world's pools: `run` measures them, then one function per table. */
export const tables1to3 = { ...datasetsModule, ...tables1to3Module, ...tableApi(TABLES['cc3m/tables1-3']) };

/** `captionerTableRows(results, table)` is one of Tables 5–7, `captionerJudgeRows` Table 4's ground-truth judge. */
export const tables4to7 = {
  ...tables4to7Module,
  ...tables4to7GridModule,
  ...tables4to7ReportModule,
  ...tableApi(TABLES['cc3m/tables4-7']),
};
