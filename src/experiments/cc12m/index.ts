/**
 * The CC12M paper's experiments, one namespace per table: the table's module with what every table has, derived
 * from its entry in `TABLES` (src/experiments/tables.ts): `run(recipe, options)` (one seed), `rows` (the table over
 * seeds), `claims` / `claimList` (the claims over seeds), `forest` (their forest plot) and `figure`. Notebook cells
 * call `cckit.cc12m.table3.run(recipe, options)`; `cckit table cc12m/table3` runs the same.
 */
import { TABLES, tableApi } from '../tables';
import * as fig6Module from './fig6';
import * as mechanismModule from './mechanism';
import * as table1Module from './table1';
import * as table11Module from './table11';
import * as table12Module from './table12';
import * as perImageModule from './per-image';
import * as table3Module from './table3';
import * as table3ReportModule from './table3-report';
import * as table4Module from './table4';
import * as table5Module from './table5';
import * as table7Module from './table7';
import * as tables6and10Module from './tables6-10';
import * as tables6and10ReportModule from './tables6-10-report';
import * as table8Module from './table8';
import * as table8ReportModule from './table8-report';
import * as table8ScoringModule from '../retrieval-scoring';

/** Table 1 and the pipelines' funnels from the prepared pools (no training). */
export const table1 = { ...table1Module, ...tableApi(TABLES['cc12m/table1']) };

export const table3 = {
  ...table3Module,
  ...table3ReportModule,
  ...perImageModule,
  ...mechanismModule,
  ...tableApi(TABLES['cc12m/table3']),
};

/** Table 4 scores Table 3's runs' stored val and test captions (`table4Scores(table3Result, runsRoot)` from a Table 3 result). */
export const table4 = { ...table4Module, ...tableApi(TABLES['cc12m/table4']) };

/** Table 5 captions the COCO-like test split with Table 3's runs (`cc12mTable5(table3Result, options)` from a Table 3 result). */
export const table5 = { ...table5Module, ...tableApi(TABLES['cc12m/table5']) };

export const table11 = { ...table11Module, ...tableApi(TABLES['cc12m/table11']) };
export const table12 = { ...table12Module, ...tableApi(TABLES['cc12m/table12']) };
export const fig6 = { ...fig6Module, ...tableApi(TABLES['cc12m/fig6']) };
export const table8 = { ...table8Module, ...table8ScoringModule, ...table8ReportModule, ...tableApi(TABLES['cc12m/table8']) };

/** Table 7, the CC3M benchmark: its own pre-training runs on pools without CC3M's held-out images. */
export const table7 = { ...table7Module, ...tableApi(TABLES['cc12m/table7']) };

/** Tables 6 and 10 come from one run over the narratives (`run`); `rows` is Table 10's, `table6Rows` Table 6's. */
export const table10 = { ...tables6and10Module, ...tables6and10ReportModule, ...tableApi(TABLES['cc12m/tables6-10']) };
