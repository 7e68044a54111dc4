/**
 * Result tables as danfojs DataFrames, for notebook cells: `frame(rows)` → a DataFrame that `show.table` shows and
 * that a researcher can sort, filter or join in the next cell.
 *
 * danfojs (a dev dependency, with its tfjs pinned to cckit's by an npm override) is loaded on the first call only:
 * `require('cckit')` does not pay its second of start-up, and the library runs without it.
 */
import { toTable, type Row } from './display';

/** The part of a danfojs DataFrame that cckit reads (`show.table` reads `columns` and `values`). */
export interface DataFrameLike {
  columns: string[];
  values: unknown[][];
  shape: number[];
}

type Danfo = { DataFrame: new (data: unknown[][], options: { columns: string[] }) => DataFrameLike };
let danfo: Danfo | undefined;

function loadDanfo(): Danfo {
  if (danfo) return danfo;
  try {
    danfo = require('danfojs') as Danfo;
  } catch (e) {
    throw new Error(`cckit frame(): danfojs is not installed (npm install danfojs, as this repository's package.json has it): ${(e as Error).message}`);
  }
  return danfo;
}

/**
 * A DataFrame of table rows: row objects (columns = the union of their keys, in first-seen order, so rows with
 * different keys line up — danfojs alone takes the first row's keys), arrays, or `{columns, rows}`.
 */
export function frame(input: Row[] | { columns: string[]; rows?: unknown[][]; values?: unknown[][] }): DataFrameLike {
  const { columns, rows } = toTable(input);
  const { DataFrame } = loadDanfo();
  return new DataFrame(
    rows.map((r) => columns.map((_, i) => r[i])),
    { columns },
  );
}
