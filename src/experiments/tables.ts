/**
 * Every table of both papers in one registry, each with the same shape: `run(recipe, options)` measures one seed,
 * `tables(perSeed)` turns the seeds' results into the printed tables, `claimList(perSeed)` into the claims with their
 * numbers. `tableApi` derives a notebook namespace's `run`, `rows`, `claims`, `claimList`, `forest` and `figure`
 * from a definition, and `cckit table <name>` runs any entry of `TABLES` by its name.
 */
import { claimRows, claimsFigure, type Claim } from './claims';
import { measureDatasets, type DatasetsResult } from './cc3m-dataset';
import { datasetClaimList, table1WorldExamples, table2Rows, table3SplitRows, table9Rows, transformCountRows } from './cc3m/tables1-3';
import { runCc3mCaptioners, type CaptionerResult } from './cc3m/tables4-7';
import { CAPTIONER_TABLES } from './cc3m/tables4-7-grid';
import { captionerClaimList, captionerClaims, captionerFigure, captionerJudgeRows, captionerTableRows } from './cc3m/tables4-7-report';
import { fig6ClaimList, fig6SeedRows, runFig6, type Fig6Result } from './cc12m/fig6';
import { measureTable1, rareWordsFigure, readFunnels, funnelRows, table1ClaimList, table1Directions, table1Rows, type Table1 } from './cc12m/table1';
import { runTable11, table11ClaimList, table11SeedRows, type Table11Result } from './cc12m/table11';
import { runTable12, table12ClaimList, table12SeedRows, type Table12Result } from './cc12m/table12';
import { runTable3, type Table3Result } from './cc12m/table3';
import { table3ClaimList, table3DataRows, table3Figure, table3JudgeRows, table3SeedRows } from './cc12m/table3-report';
import { table4ClaimList, table4Figure, table4Rows, table4Scores, type Table4Result } from './cc12m/table4';
import { cc12mTable5, table5ClaimList, table5Figure, table5Rows, type Table5Result } from './cc12m/table5';
import { runTable7, table7ClaimList, table7Figure, table7Rows, type Table7Result } from './cc12m/table7';
import { runTable8, type Table8Result } from './cc12m/table8';
import { table8ClaimList, table8Figure, table8Rows } from './cc12m/table8-report';
import { runNarratives, type NarrativesResult } from './cc12m/tables6-10';
import { narrativesClaimList, narrativesClaims, table10Figure, table10Rows, table6Rows } from './cc12m/tables6-10-report';
import type { Recipe } from './recipe';
import { prepareWorldInputs } from './inputs';
import type { ExperimentOptions } from './options';

/** A row of a printed table (the tables' own row types: column name → cell). */
export type TableRow = object;
export interface TableFigure {
  data: object[];
  layout: object;
}

/** One table of a paper: how one seed is measured and how the seeds' results become tables and claims. */
export interface TableDefinition<R> {
  /** `<paper>/<table>`, the name `cckit table` takes. */
  name: string;
  /** What it measures, one line. */
  title: string;
  /** The forest plot's title (default "<the title up to its colon>'s claims: per-seed differences …"). */
  forestTitle?: string;
  run(recipe: Recipe, options: ExperimentOptions): Promise<R>;
  /** The printed tables over seeds, by name; the first is the namespace's `rows`. */
  tables(perSeed: readonly R[]): Record<string, readonly TableRow[] | undefined>;
  /** The claims with their numbers over seeds (the forest plot draws them). */
  claimList?(perSeed: readonly R[]): Claim[];
  /** The claims table, where it is more than `claimRows(claimList)` (CC3M's dataset checks, the captioner grid). */
  claimTable?(perSeed: readonly R[]): readonly TableRow[];
  figure?(perSeed: readonly R[]): TableFigure | undefined;
  /** The forest plot's unit (default CIDEr ×100). */
  unit?: string;
  /** One seed's result as JSON: per-image scores and raw pool rows left out (default: the result as it is). */
  json?(result: R): unknown;
}

/** What a notebook cell calls on every table: the definition's run, its first table, its claims and forest plot, its figure. */
export interface TableApi<R> {
  definition: TableDefinition<R>;
  run(recipe: Recipe, options: ExperimentOptions): Promise<R>;
  rows(perSeed: readonly R[]): readonly TableRow[];
  claims(perSeed: readonly R[]): readonly TableRow[];
  claimList(perSeed: readonly R[]): Claim[];
  forest(perSeed: readonly R[]): TableFigure;
  figure(perSeed: readonly R[]): TableFigure | undefined;
}

/** A table's claims over seeds: the claims table, and the claims with their numbers where the table has them. */
export function tableClaims<R>(definition: TableDefinition<R>, perSeed: readonly R[]): { rows: readonly TableRow[]; claims?: Claim[] } {
  const claims = definition.claimList?.(perSeed);
  return { rows: definition.claimTable?.(perSeed) ?? claimRows(claims ?? []), ...(claims ? { claims } : {}) };
}

export function tableApi<R>(definition: TableDefinition<R>): TableApi<R> {
  const claimList = (perSeed: readonly R[]) => definition.claimList?.(perSeed) ?? [];
  return {
    definition,
    run: definition.run,
    rows: (perSeed) => Object.values(definition.tables(perSeed)).find((rows) => rows !== undefined) ?? [],
    claims: (perSeed) => tableClaims(definition, perSeed).rows,
    claimList,
    forest: (perSeed) =>
      claimsFigure(claimList(perSeed), {
        title: definition.forestTitle ?? `${definition.title.split(':')[0]}'s claims: per-seed differences (the claim’s way to the right of 0)`,
        unit: definition.unit ?? 'CIDEr ×100',
      }),
    figure: (perSeed) => definition.figure?.(perSeed),
  };
}

/** A result without its per-image scores (hundreds of numbers per split: they serve the claims' intervals). */
const withoutPerImage = <R extends object>(result: R): unknown => ({ ...result, perImage: undefined });
/** A retrieval result without its per-query hits (one number per test image or caption, per direction and K). */
const withoutPerQuery = <R extends object>(result: R): unknown => ({ ...result, perQuery: undefined });

/** Rows of single-seed tables over seeds: one seed's as they are, several with a `seed` column first. */
function overSeedsRows<R>(
  perSeed: readonly R[],
  rowsOf: (result: R) => readonly TableRow[] | undefined,
  seedOf: (result: R, i: number) => number,
): TableRow[] | undefined {
  const each = perSeed.map((r, i) => ({ seed: seedOf(r, i), rows: rowsOf(r) }));
  if (each.every((e) => e.rows === undefined)) return undefined;
  if (each.length === 1) return [...(each[0]!.rows ?? [])];
  return each.flatMap((e) => (e.rows ?? []).map((row) => ({ seed: e.seed, ...row })));
}

/** A result together with the seed it measured (for results that do not carry it). */
export interface Seeded<R> {
  seed: number;
  result: R;
}

const table1: TableDefinition<Seeded<Table1> & { funnels: ReturnType<typeof readFunnels> }> = {
  name: 'cc12m/table1',
  title: "Table 1: the two filtered pools' caption statistics beside the paper's datasets (no training)",
  run: async (recipe, options) => {
    const inputs = await prepareWorldInputs(recipe, options);
    return { seed: recipe.seed, result: await measureTable1(inputs), funnels: readFunnels(inputs) };
  },
  tables: (perSeed) => ({
    table1: overSeedsRows(
      perSeed,
      (r) => table1Rows(r.result),
      (r) => r.seed,
    ),
    directions: overSeedsRows(
      perSeed,
      (r) => table1Directions(r.result),
      (r) => r.seed,
    ),
    funnels: overSeedsRows(
      perSeed,
      (r) => funnelRows(r.funnels),
      (r) => r.seed,
    ),
  }),
  claimList: (perSeed) => table1ClaimList(perSeed.map((r) => r.result)),
  figure: (perSeed) => (perSeed[0] ? rareWordsFigure(perSeed[0].result) : undefined),
};

const table3: TableDefinition<Table3Result> = {
  name: 'cc12m/table3',
  title: 'Table 3: pre-training data (none / CC3M / CC12M / both), fine-tuned on COCO-like, nocaps-like CIDEr by domain',
  run: runTable3,
  tables: (perSeed) => ({ table3: table3SeedRows(perSeed), judge: table3JudgeRows(perSeed), data: table3DataRows(perSeed) }),
  claimList: table3ClaimList,
  figure: table3Figure,
  json: withoutPerImage,
};

const table4: TableDefinition<Table4Result> = {
  name: 'cc12m/table4',
  title: "Table 4: Table 3's runs scored on nocaps-like val and test (CIDEr, SPICE)",
  run: async (recipe, options) => table4Scores(await runTable3(recipe, options), options.runsRoot ?? 'runs'),
  tables: (perSeed) => ({ table4: table4Rows(perSeed) }),
  claimList: table4ClaimList,
  figure: (perSeed) => table4Figure(perSeed, 'test'),
  json: withoutPerImage,
};

const table5: TableDefinition<Table5Result> = {
  name: 'cc12m/table5',
  title: "Table 5: Table 3's fine-tuned runs on the COCO-like test split (BLEU-4, METEOR, ROUGE-L, CIDEr, SPICE)",
  run: async (recipe, options) => cc12mTable5(await runTable3(recipe, options), options),
  tables: (perSeed) => ({ table5: table5Rows(perSeed) }),
  claimList: table5ClaimList,
  figure: table5Figure,
  json: withoutPerImage,
};

const tables6and10: TableDefinition<NarrativesResult> = {
  name: 'cc12m/tables6-10',
  title: 'Tables 6 and 10: pre-training on narratives-like long captions (Table 10) and captioning them (Table 6)',
  run: runNarratives,
  tables: (perSeed) => ({ table10: table10Rows(perSeed), table6: table6Rows(perSeed) }),
  claimList: narrativesClaimList,
  claimTable: narrativesClaims,
  figure: table10Figure,
  json: withoutPerImage,
};

const table7: TableDefinition<Table7Result> = {
  name: 'cc12m/table7',
  title: "Table 7: the CC3M benchmark (pre-train without CC3M's held-out images, fine-tune on CC3M-like, dev and test CIDEr)",
  run: (recipe, options) => runTable7(recipe, options),
  tables: (perSeed) => ({ table7: table7Rows(perSeed) }),
  claimList: table7ClaimList,
  figure: table7Figure,
  json: withoutPerImage,
};

const table8: TableDefinition<Table8Result> = {
  name: 'cc12m/table8',
  title: 'Table 8: image–text retrieval Recall@K of a matching model per pre-training pool, zero-shot and fine-tuned',
  run: runTable8,
  tables: (perSeed) => ({ table8: table8Rows(perSeed) }),
  claimList: table8ClaimList,
  figure: table8Figure,
  unit: 'Recall@K ×100',
  json: withoutPerQuery,
};

const table11: TableDefinition<Table11Result> = {
  name: 'cc12m/table11',
  title: 'Table 11: masked language modelling at each masking rate (recipe ablations.maskingRates) against IC',
  run: runTable11,
  tables: (perSeed) => ({ table11: table11SeedRows(perSeed) }),
  claimList: table11ClaimList,
  json: withoutPerImage,
};

const table12: TableDefinition<Table12Result> = {
  name: 'cc12m/table12',
  title: 'Table 12: pre-training objectives IC, IC+MOC, IC+VLM (recipe ablations.objectives)',
  run: runTable12,
  tables: (perSeed) => ({ table12: table12SeedRows(perSeed) }),
  claimList: table12ClaimList,
  json: withoutPerImage,
};

const fig6: TableDefinition<Fig6Result> = {
  name: 'cc12m/fig6',
  title: 'Fig. 6: fractions of CC12M (recipe ablations.cc12mFractions) against all of CC3M',
  run: runFig6,
  tables: (perSeed) => ({ fig6: fig6SeedRows(perSeed) }),
  claimList: fig6ClaimList,
  json: withoutPerImage,
};

const cc3mTables1to3: TableDefinition<DatasetsResult> = {
  name: 'cc3m/tables1-3',
  title: "Tables 1–3 (and CC12M Table 9): the pipelines' pools, GOOD rates and splits (no training)",
  run: (recipe, options) => measureDatasets(recipe, options),
  tables: (perSeed) => ({
    table1: overSeedsRows(perSeed, table1WorldExamples, (r) => r.seed),
    transforms: overSeedsRows(perSeed, transformCountRows, (r) => r.seed),
    table2: overSeedsRows(perSeed, table2Rows, (r) => r.seed),
    table3: overSeedsRows(perSeed, table3SplitRows, (r) => r.seed),
    table9: overSeedsRows(perSeed, table9Rows, (r) => r.seed),
  }),
  claimList: datasetClaimList,
  // the pools' rows and traces are the data itself: the tables summarise them
  json: (r) => ({
    preset: r.preset,
    seed: r.seed,
    fractions: r.fractions,
    pairs: Object.fromEntries(Object.entries(r.rows).map(([pool, rows]) => [pool, rows?.length])),
  }),
};

const cc3mTables4to7: TableDefinition<CaptionerResult> = {
  name: 'cc3m/tables4-7',
  title: 'Tables 4–7: COCO- vs Conceptual-trained RNN and T2T captioners (1×1, 8×8) on COCO-, Conceptual- and Flickr-like tests',
  forestTitle: "CC3M Tables 4–7's claims: per-pair differences (the claim’s way to the right of 0)",
  run: (recipe, options) => runCc3mCaptioners(recipe, options),
  tables: (perSeed) => ({
    ...Object.fromEntries(Object.keys(CAPTIONER_TABLES).map((table) => [table, captionerTableRows(perSeed, table as keyof typeof CAPTIONER_TABLES)])),
    table4: captionerJudgeRows(perSeed),
  }),
  claimList: captionerClaimList,
  claimTable: captionerClaims,
  figure: captionerFigure,
  json: withoutPerImage,
};

/** Every table, by the name `cckit table` takes. */
export const TABLES = {
  'cc12m/table1': table1,
  'cc12m/table3': table3,
  'cc12m/table4': table4,
  'cc12m/table5': table5,
  'cc12m/tables6-10': tables6and10,
  'cc12m/table7': table7,
  'cc12m/table8': table8,
  'cc12m/table11': table11,
  'cc12m/table12': table12,
  'cc12m/fig6': fig6,
  'cc3m/tables1-3': cc3mTables1to3,
  'cc3m/tables4-7': cc3mTables4to7,
} as const;

export type TableName = keyof typeof TABLES;

/** Names that reach an entry of a combined table (`cc12m/table6` is `cc12m/tables6-10`'s). */
const ALIASES: Record<string, TableName> = {
  'cc12m/table6': 'cc12m/tables6-10',
  'cc12m/table10': 'cc12m/tables6-10',
  'cc12m/table9': 'cc3m/tables1-3',
};

/** The definition named `name` (or an alias of it); an unknown name lists every table. */
export function tableNamed(name: string): TableDefinition<unknown> {
  const key = (name in TABLES ? name : ALIASES[name]) as TableName | undefined;
  if (!key) throw new Error(`no table named '${name}'; the tables: ${Object.keys(TABLES).join(', ')}`);
  return TABLES[key] as unknown as TableDefinition<unknown>;
}

/** One table's results over seeds as JSON: every printed table, the claims, and each seed's result. */
export function tableJson<R>(definition: TableDefinition<R>, recipe: Recipe, seeds: readonly number[], perSeed: readonly R[]): object {
  const { rows, claims } = tableClaims(definition, perSeed);
  return {
    table: definition.name,
    title: definition.title,
    preset: recipe.preset,
    seeds,
    tables: definition.tables(perSeed),
    claims: rows,
    // each claim's per-seed differences (the claim's way > 0) and, where measured, their intervals
    ...(claims ? { claimNumbers: claims.map(({ claim, differences, intervals, verdict }) => ({ claim, verdict, differences, intervals })) } : {}),
    perSeed: perSeed.map((r) => (definition.json ? definition.json(r) : r)),
  };
}
