/**
 * Results generated, not typed (issue #43): every claim of the registry (claims-registry.ts) with the verdict the one
 * rule (`decide`) gives it on the committed notebooks' numbers, written as docs/results.md and as JSON by
 * `cckit results`. A test regenerates the file from the committed notebooks and fails on any difference.
 *
 * Where the numbers come from, in order:
 * 1. the claims record a notebook cell publishes with its claims table (`show.claims`: the output's metadata under
 *    `CLAIMS_METADATA_KEY`, one `ClaimsRecord` with each claim's decided numbers);
 * 2. for a notebook executed before that record existed, its printed claims table: the "measured (per seed)" column's
 *    per-seed differences (0.1 precision) and each seed's printed interval, decided here by the same rule. Its
 *    verdict words in the table are the old rule's and are not read. Checks that have no per-seed differences (CC3M's
 *    dataset checks on one world, CC3M Tables 4–7's pair counts) keep their printed verdict where it is one of the
 *    rule's words, and are marked as such.
 * Notebook 10 (the small preset, one seed) is a replicate of Table 3 at another preset, not the registry's
 * measurement; a claim measured by two tables takes the first of its `measuredBy` that a notebook holds.
 */
import { claimOver, claimsSummary, DECISIONS, intervalText, rankClaim, toDecideText, type Claim, type Decided, type Decision, type Interval } from './claims';
import { CLAIMS, MARGINS, registeredClaim, type RegisteredClaim } from './claims-registry';
import * as fs from 'fs';
import * as path from 'path';

/** The preset whose runs the registry's verdicts come from (the committed notebooks' default). */
export const REGISTRY_PRESET = 'tiny';

/** Where a notebook output keeps its claims record (display_data metadata; renderers ignore it). */
export const CLAIMS_METADATA_KEY = 'cckit.claims';

/** One claims table as a notebook published it. */
export interface ClaimsRecord {
  /** `cckit table` name. */
  table: string;
  preset: string;
  seeds: number[];
  claims: { id?: string; claim: string; differences: number[]; decided: Decided }[];
}

/** The record `show.claims` attaches to a claims table. */
export function claimsRecord(table: string, preset: string, seeds: readonly number[], claims: readonly Claim[]): ClaimsRecord {
  return {
    table,
    preset,
    seeds: [...seeds],
    claims: claims.map((c) => ({ ...(c.id ? { id: c.id } : {}), claim: c.claim, differences: c.differences, decided: c.decided })),
  };
}

/** A registry claim's result: the verdict and the numbers, or why there is none. */
export interface ClaimResult {
  claim: RegisteredClaim;
  verdict: Decision | 'not tested here';
  /** The notebook and table it was read from, and how. */
  source?: { notebook: string; table: string; how: 'claims record' | 'printed per-seed differences' | 'printed check' };
  decided?: Decided;
  differences?: number[];
}

/** What results read and write of a notebook: its cells (other fields are kept as they are). */
export interface NotebookJson {
  cells: NotebookCell[];
}
export interface NotebookCell {
  cell_type: string;
  id?: string;
  metadata?: Record<string, unknown>;
  source?: string | string[];
  outputs?: { output_type: string; data?: Record<string, unknown>; metadata?: Record<string, unknown> }[];
}

/** The tables each committed notebook measures at the default preset (for tables printed before claims records). */
const NOTEBOOK_TABLES: Record<string, string[]> = {
  '02-cc3m-dataset.ipynb': ['cc3m/tables1-3'],
  '03-table3-pretraining-data.ipynb': ['cc12m/table3'],
  '04-table4-nocaps-val-test.ipynb': ['cc12m/table4'],
  '05-cc3m-captioners.ipynb': ['cc3m/tables4-7'],
  '06-table5-coco-benchmark.ipynb': ['cc12m/table5'],
  '07-narratives.ipynb': ['cc12m/tables6-10'],
  '08-table8-retrieval.ipynb': ['cc12m/table8'],
  '09-table7-cc3m-benchmark.ipynb': ['cc12m/table7'],
  '11-ablations.ipynb': ['cc12m/table11', 'cc12m/table12', 'cc12m/fig6'],
};

const text = (t: unknown): string => (Array.isArray(t) ? t.join('') : typeof t === 'string' ? t : '');

function unescapeHtml(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);
}

/** The rows of every HTML table in a notebook's outputs, as header → cell. */
function htmlTables(notebook: NotebookJson): Record<string, string>[][] {
  const tables: Record<string, string>[][] = [];
  for (const cell of notebook.cells)
    for (const output of cell.outputs ?? []) {
      const html = text(output.data?.['text/html']);
      for (const table of html.matchAll(/<table[^>]*>([\s\S]*?)<\/table>/g)) {
        const headers = [...table[1]!.matchAll(/<th(?:\s[^>]*)?>([\s\S]*?)<\/th>/g)].map((m) => unescapeHtml(m[1]!));
        const rows = [...table[1]!.matchAll(/<tr>((?:<td(?:\s[^>]*)?>[\s\S]*?<\/td>)+)<\/tr>/g)].map((row) => {
          const cells = [...row[1]!.matchAll(/<td(?:\s[^>]*)?>([\s\S]*?)<\/td>/g)].map((m) => unescapeHtml(m[1]!));
          return Object.fromEntries(headers.map((h, i) => [h, cells[i] ?? '']));
        });
        tables.push(rows);
      }
    }
  return tables;
}

const NUMBER = /[-+−]?\d+(?:\.\d+)?/;
const toNumber = (s: string): number => Number(s.replace('−', '-'));

/**
 * A printed "measured (per seed)" cell as per-seed differences and intervals: "+6.7 [+2.4, +11.0]; +2.7 [-1.1, +7.0]",
 * "+5.0, -2.0", "out gain − larger in/near gain: -2.1 [-20.3, +8.7]; …", or ranks "6/6 pairs, τ 1.00; 4/6 pairs, τ 0.33".
 */
export function parsePrintedDifferences(cell: string): { differences: number[]; intervals?: (Interval | undefined)[]; taus?: boolean } | undefined {
  if (/τ/.test(cell)) {
    const taus = [...cell.matchAll(/τ (-?\d+(?:\.\d+)?)/g)].map((m) => Number(m[1]));
    return taus.length > 0 ? { differences: taus, taus: true } : undefined;
  }
  const body = cell.includes(': ') ? cell.slice(cell.lastIndexOf(': ') + 2) : cell;
  const withIntervals = /\[/.test(body);
  const items = body.split(withIntervals ? '; ' : ', ').map((s) => s.trim());
  const differences: number[] = [];
  const intervals: (Interval | undefined)[] = [];
  for (const item of items) {
    const m = item.match(new RegExp(`^(${NUMBER.source}|—)(?: \\[(${NUMBER.source}), (${NUMBER.source})\\]| \\(no interval\\))?$`));
    if (!m) return undefined;
    differences.push(m[1] === '—' ? NaN : toNumber(m[1]!));
    intervals.push(m[2] !== undefined ? { low: toNumber(m[2]), high: toNumber(m[3]!) } : undefined);
  }
  return withIntervals ? { differences, intervals } : { differences };
}

type Found = Omit<ClaimResult, 'claim' | 'verdict'> & { verdict: Decision };

/** What one notebook holds for each registered claim it measures, by registry id. */
function notebookFindings(name: string, notebook: NotebookJson): Map<string, Found> {
  const found = new Map<string, Found>();
  const records = notebook.cells.flatMap((c) => (c.outputs ?? []).map((o) => o.metadata?.[CLAIMS_METADATA_KEY] as ClaimsRecord | undefined)).filter((r) => r);
  // the registry's verdicts are the default preset's; other presets' records (notebook 10) are replicates shown there
  for (const record of (records as ClaimsRecord[]).filter((r) => r.preset === REGISTRY_PRESET))
    for (const c of record.claims) {
      const entry = registeredClaim(c.claim);
      if (!entry || found.has(entry.id)) continue;
      found.set(entry.id, {
        verdict: c.decided.verdict,
        decided: c.decided,
        differences: c.differences,
        source: { notebook: name, table: record.table, how: 'claims record' },
      });
    }
  if (records.length > 0) return found;
  const tables = NOTEBOOK_TABLES[name];
  if (!tables) return found;
  for (const rows of htmlTables(notebook))
    for (const row of rows) {
      const entry = row.claim ? registeredClaim(row.claim) : undefined;
      if (!entry || found.has(entry.id)) continue;
      const table = entry.measuredBy!.find((m) => tables.includes(m.table) && m.texts.includes(row.claim!))?.table;
      if (!table) continue;
      const printed = row['measured (per seed)'] !== undefined ? parsePrintedDifferences(row['measured (per seed)']) : undefined;
      if (printed) {
        const claim = printed.taus
          ? rankClaim(
              row.claim!,
              '',
              printed.differences.map((tau) => ({ pairs: 0, agreeing: 0, tau })),
            )
          : claimOver(row.claim!, '', printed.differences, printed.intervals ? { intervals: printed.intervals } : {});
        found.set(entry.id, {
          verdict: claim.verdict,
          decided: claim.decided,
          differences: claim.differences,
          source: { notebook: name, table, how: 'printed per-seed differences' },
        });
        continue;
      }
      // a check's printed verdict: the same check now says "contradicted" where it said "does not hold"
      const printedWord = row.verdict ?? row.here ?? '';
      const word = (printedWord === 'does not hold' ? 'contradicted' : printedWord) as Decision;
      if ((DECISIONS as readonly string[]).includes(word)) found.set(entry.id, { verdict: word, source: { notebook: name, table, how: 'printed check' } });
    }
  return found;
}

/** Every registry claim's result from the notebooks (name → parsed .ipynb JSON). */
export function collectResults(notebooks: ReadonlyMap<string, NotebookJson>): ClaimResult[] {
  const findings = [...notebooks].sort(([a], [b]) => a.localeCompare(b)).map(([name, nb]) => notebookFindings(name, nb));
  return CLAIMS.map((claim): ClaimResult => {
    if (!claim.measuredBy) return { claim, verdict: 'not tested here' };
    // the first table of measuredBy that some notebook measured
    for (const m of claim.measuredBy)
      for (const f of findings) {
        const hit = f.get(claim.id);
        if (hit && hit.source!.table === m.table) return { claim, ...hit };
      }
    return { claim, verdict: 'not measured' };
  });
}

/** `cckit results --json`: the registry with each claim's verdict and interval. */
export function resultsJson(results: readonly ClaimResult[]): { claims: Record<string, unknown>[] } {
  const num = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? Number(x.toFixed(3)) : null);
  return {
    claims: results.map((r) => ({
      id: r.claim.id,
      paper: r.claim.paper,
      table: r.claim.where,
      statement: r.claim.statement,
      metric: r.claim.metric,
      split: r.claim.split,
      direction: r.claim.direction,
      verdict: r.verdict,
      seeds: r.decided?.seeds ?? null,
      estimate: num(r.decided?.estimate),
      low: num(r.decided?.low),
      high: num(r.decided?.high),
      margin: MARGINS[r.claim.metric].margin,
      supports: r.decided?.supports ?? null,
      measuredIn: r.source ? `${r.source.notebook} (${r.source.table})` : null,
      how: r.source?.how ?? null,
      ...(r.claim.notTested ? { notTested: r.claim.notTested } : {}),
      ...(r.decided?.reason ? { reason: r.decided.reason } : {}),
    })),
  };
}

/** Text as Markdown shows it literally: `<PERSON>` is not an HTML tag to hide. */
const literal = (s: string) => s.replace(/</g, '&lt;').replace(/>/g, '&gt;');
const cell = (s: string) => literal(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The tally of one paper's claims: verdict → count, and how many decided claims go the paper's way. */
export function tally(results: readonly ClaimResult[]): {
  counts: Record<string, number>;
  decided: number;
  tested: number;
  forPaper: number;
  againstPaper: number;
} {
  const counts: Record<string, number> = {};
  for (const r of results) counts[r.verdict] = (counts[r.verdict] ?? 0) + 1;
  const decidedResults = results.filter((r) => r.verdict === 'holds' || r.verdict === 'contradicted' || r.verdict === 'no difference');
  const tested = results.filter((r) => r.verdict !== 'not tested here').length;
  const forPaper = decidedResults.filter((r) => r.decided?.supports ?? r.verdict === 'holds').length;
  return { counts, decided: decidedResults.length, tested, forPaper, againstPaper: decidedResults.length - forPaper };
}

/** docs/results.md. */
export function resultsMarkdown(results: readonly ClaimResult[]): string {
  const lines: string[] = [
    '# Results: every claim of both papers',
    '',
    '<!-- Generated by `cckit results` from the committed notebooks; do not edit. test/results.test.ts regenerates it. -->',
    '',
    'Each claim of the registry (`src/experiments/claims-registry.ts`) with the verdict of the one rule (`decide`,',
    "`src/experiments/claims.ts`): the 95% interval of the mean difference over seeds (Student's t; with one seed, its",
    'bootstrap over the evaluated images) **holds** above 0, is **contradicted** below 0, is **no difference** inside ±',
    'the margin of its metric (for an "A ≥ B" claim that is the claim holding), and is **undecided** otherwise, with the',
    'smallest effect the design detects and about how many seeds would decide it. Margins, stated before the runs:',
    '',
    '| metric | margin | why |',
    '|---|---|---|',
    ...Object.entries(MARGINS).map(([metric, m]) => `| ${metric} | ${m.margin} | ${cell(m.reason)} |`),
    '',
    'Numbers are read from the claims record each notebook publishes with its claims table, or, for a notebook executed',
    'before that record existed, from its printed per-seed differences (0.1 precision), decided here by the same rule;',
    '"printed check" marks a check with no per-seed numbers (a count on one world, CC3M Tables 4–7 over collapsed',
    'captioners) whose printed verdict is kept.',
    '',
    '## Tally',
    '',
    '| paper | claims | tested | holds | contradicted | no difference | undecided | not testable | not measured | not tested here | decided | decided the paper’s way |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const paper of ['CC12M', 'CC3M'] as const) {
    const rs = results.filter((r) => r.claim.paper === paper);
    const t = tally(rs);
    const n = (v: string) => t.counts[v] ?? 0;
    lines.push(
      `| ${paper} | ${rs.length} | ${t.tested} | ${n('holds')} | ${n('contradicted')} | ${n('no difference')} | ${n('undecided')} | ${n('not testable')} | ${n('not measured')} | ${n('not tested here')} | ${t.decided} of ${t.tested} | ${t.forPaper} (against: ${t.againstPaper}) |`,
    );
  }
  for (const paper of ['CC12M', 'CC3M'] as const) {
    lines.push(
      '',
      `## ${paper === 'CC12M' ? 'CC12M (Changpinyo et al., CVPR 2021)' : 'CC3M (Sharma et al., ACL 2018)'}`,
      '',
      '| claim | where | statement | metric | seeds | mean [95% interval] | verdict | what would decide it | measured in |',
      '|---|---|---|---|---|---|---|---|---|',
    );
    for (const r of results.filter((x) => x.claim.paper === paper)) {
      const d = r.decided;
      const source = r.source ? `${r.source.notebook}${r.source.how === 'claims record' ? '' : ` (${r.source.how})`}` : '';
      const why = r.verdict === 'not tested here' ? (r.claim.notTested ?? '') : d ? toDecideText(d, r.claim.metric === 'Kendall τ' ? 2 : 1) : '';
      lines.push(
        `| \`${r.claim.id}\` | ${cell(r.claim.where)} | ${cell(r.claim.statement)} | ${r.claim.metric} (${r.claim.direction}) | ${d?.seeds ?? ''} | ${d ? intervalText(d, r.claim.metric === 'Kendall τ' ? 2 : 1) : ''} | ${r.verdict} | ${cell(why)} | ${cell(source)} |`,
      );
    }
  }
  const notes = results.filter((r) => r.claim.note);
  if (notes.length > 0) {
    lines.push('', '## Notes', '');
    for (const r of notes) lines.push(`- \`${r.claim.id}\`: ${r.claim.note}`);
  }
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------------------
// The notebooks' result sentences, generated

/** A markdown cell `cckit results` writes: its metadata holds `{ cckit: { generated: 'claims' } }`. */
export const GENERATED_CELL = { key: 'cckit', kind: 'claims' } as const;

const isGenerated = (cell: NotebookCell): boolean =>
  cell.cell_type === 'markdown' && (cell.metadata?.[GENERATED_CELL.key] as { generated?: string } | undefined)?.generated === GENERATED_CELL.kind;

const recordsOf = (cell: NotebookCell): ClaimsRecord[] =>
  (cell.outputs ?? []).map((o) => o.metadata?.[CLAIMS_METADATA_KEY] as ClaimsRecord | undefined).filter((r): r is ClaimsRecord => r !== undefined);

/** "seed 0", "seeds 0–4", "seeds 0, 2, 5". */
function seedsText(seeds: readonly number[]): string {
  if (seeds.length === 1) return `seed ${seeds[0]}`;
  const contiguous = seeds.every((s, i) => i === 0 || s === seeds[i - 1]! + 1);
  return contiguous ? `seeds ${seeds[0]}–${seeds.at(-1)}` : `seeds ${seeds.join(', ')}`;
}

/**
 * The result sentences of one claims record, every number and verdict word computed: the tally, then each claim by
 * verdict with its mean and 95% interval in the claim's metric (the registry's), and for an undecided claim what
 * would decide it.
 */
export function claimsProse(record: ClaimsRecord): string {
  const lines = [
    `**Result** (${record.table}, ${record.preset} preset, ${seedsText(record.seeds)}; written by \`cckit results\` from the claims record above, not by hand): ${claimsSummary(
      record.claims.map((c) => c.decided.verdict),
      record.seeds.length,
    )}`,
    '',
  ];
  for (const verdict of DECISIONS)
    for (const c of record.claims.filter((x) => x.decided.verdict === verdict)) {
      const metric = registeredClaim(c.claim)?.metric;
      const digits = metric === 'Kendall τ' ? 2 : 1;
      const numbers = Number.isFinite(c.decided.estimate) ? `: ${intervalText(c.decided, digits)}${metric ? ` ${metric}` : ''}` : '';
      const why = verdict === 'holds' || verdict === 'contradicted' || verdict === 'no difference' ? '' : toDecideText(c.decided, digits);
      lines.push(`- **${verdict}**: ${literal(c.claim)}${numbers}${why ? ` (${why})` : ''}`);
    }
  return lines.join('\n');
}

/** nbformat's source: lines, each but the last ending in a newline. */
function sourceLines(text: string): string[] {
  const lines = text.split('\n');
  return lines.map((line, i) => (i < lines.length - 1 ? `${line}\n` : line)).filter((line) => line !== '');
}

/**
 * The notebook with a generated result cell after each cell that published claims records (its sentences from
 * `claimsProse`), replacing the generated cells it had; generated cells no record precedes any more are dropped.
 * `changed` says whether anything differs.
 */
export function withGeneratedProse(notebook: NotebookJson): { notebook: NotebookJson; changed: boolean } {
  const cells: NotebookCell[] = [];
  let made = 0;
  for (let i = 0; i < notebook.cells.length; i++) {
    const cell = notebook.cells[i]!;
    if (isGenerated(cell)) continue;
    cells.push(cell);
    const records = recordsOf(cell);
    if (records.length === 0) continue;
    made++;
    const previous = notebook.cells[i + 1] && isGenerated(notebook.cells[i + 1]!) ? notebook.cells[i + 1]! : undefined;
    cells.push({
      cell_type: 'markdown',
      id: previous?.id ?? `cckit-result-${made}`,
      metadata: { [GENERATED_CELL.key]: { generated: GENERATED_CELL.kind } },
      source: sourceLines(records.map(claimsProse).join('\n\n')),
    });
  }
  const next = { ...notebook, cells };
  return { notebook: next, changed: JSON.stringify(next) !== JSON.stringify(notebook) };
}

// ---------------------------------------------------------------------------------------------------------------
// The scorecard: every claim of both papers at once (notebooks/12-scorecard.ipynb)

/** The notebooks of a folder, parsed (name → JSON); a file that is not JSON is an error naming it. */
export function readNotebooks(folder: string): Map<string, NotebookJson> {
  const out = new Map<string, NotebookJson>();
  for (const name of fs.readdirSync(folder).filter((n) => n.endsWith('.ipynb'))) {
    const file = path.join(folder, name);
    try {
      out.set(name, JSON.parse(fs.readFileSync(file, 'utf8')) as NotebookJson);
    } catch (e) {
      throw new Error(`${file}: not a notebook (${(e as Error).message})`);
    }
  }
  return out;
}

/** Every registry claim's result from the notebooks in `folder`. */
export function resultsOfNotebooks(folder: string): ClaimResult[] {
  return collectResults(readNotebooks(folder));
}

/** The tally per paper, as docs/results.md prints it: one row per paper with each verdict's count. */
export function tallyRows(results: readonly ClaimResult[]): Record<string, string | number>[] {
  return (['CC12M', 'CC3M'] as const).map((paper) => {
    const rs = results.filter((r) => r.claim.paper === paper);
    const t = tally(rs);
    const n = (v: string) => t.counts[v] ?? 0;
    return {
      paper,
      claims: rs.length,
      tested: t.tested,
      holds: n('holds'),
      contradicted: n('contradicted'),
      'no difference': n('no difference'),
      undecided: n('undecided'),
      'not testable': n('not testable'),
      'not measured': n('not measured'),
      'not tested here': n('not tested here'),
      decided: `${t.decided} of ${t.tested}`,
      "decided the paper's way": `${t.forPaper} (against: ${t.againstPaper})`,
    };
  });
}

/** One row per registry claim: paper, id, where, statement, metric, seeds, mean [95% interval], verdict, what would decide it. */
export function scorecardRows(results: readonly ClaimResult[]): Record<string, string>[] {
  return results.map((r) => {
    const d = r.decided;
    const digits = r.claim.metric === 'Kendall τ' ? 2 : 1;
    return {
      paper: r.claim.paper,
      claim: r.claim.id,
      where: r.claim.where,
      statement: r.claim.statement,
      metric: `${r.claim.metric} (${r.claim.direction})`,
      seeds: d ? String(d.seeds) : '',
      'mean [95% interval]': d ? intervalText(d, digits) : '',
      verdict: r.verdict,
      'what would decide it': r.verdict === 'not tested here' ? (r.claim.notTested ?? '') : d ? toDecideText(d, digits) : '',
    };
  });
}

const SCORECARD_COLOURS: Record<string, string> = {
  holds: '#2a9d4b',
  contradicted: '#c0392b',
  'no difference': '#5b8def',
  undecided: '#c9a227',
};

/**
 * One forest plot of every claim with an interval, grouped by paper. The claims are in different units (CIDEr, R@1,
 * share points, tokens, τ), so each is drawn in units of its own 95% half-width: the mean at estimate / half-width and
 * the interval from one below it to one above, so a bar clear of 0 is a decided direction whatever the metric; the
 * hover gives the numbers in the claim's own unit. Claims without an interval (not measured, not testable, not tested
 * here) are in the table, not the plot.
 */
export function scorecardFigure(results: readonly ClaimResult[]): { data: object[]; layout: object } {
  const drawn = results.filter((r) => r.decided && Number.isFinite(r.decided.low) && Number.isFinite(r.decided.high) && r.decided.high > r.decided.low);
  const papers = ['CC12M', 'CC3M'] as const;
  // rows from the top: each paper's claims, a blank row between the papers
  const placed: { result: ClaimResult; y: number }[] = [];
  let y = drawn.length + papers.length - 1;
  for (const paper of papers) {
    for (const result of drawn.filter((r) => r.claim.paper === paper)) placed.push({ result, y: y-- });
    y--;
  }
  const data: object[] = [];
  for (const [verdict, colour] of Object.entries(SCORECARD_COLOURS)) {
    const group = placed.filter((p) => p.result.verdict === verdict);
    if (group.length === 0) continue;
    const scaled = group.map(({ result }) => {
      const d = result.decided!;
      return Number((d.estimate / ((d.high - d.low) / 2)).toFixed(3));
    });
    data.push({
      type: 'scatter',
      mode: 'markers',
      name: verdict,
      x: scaled,
      y: group.map((p) => p.y),
      error_x: { type: 'constant', value: 1, visible: true },
      marker: { symbol: 'diamond', size: 10, color: colour },
      text: group.map(({ result }) => {
        const d = result.decided!;
        const digits = result.claim.metric === 'Kendall τ' ? 2 : 1;
        return `${result.claim.paper} · ${result.claim.id}<br>${result.claim.statement}<br>${intervalText(d, digits)} ${result.claim.metric} over ${d.seeds} seed${d.seeds === 1 ? '' : 's'}: ${verdict}`;
      }),
      hovertemplate: '%{text}<extra></extra>',
    });
  }
  const label = (r: ClaimResult) => `${r.claim.paper} · ${r.claim.id.replace(/^cc(12|3)m\./, '')}`;
  return {
    data,
    layout: {
      title: { text: 'Every claim with an interval: mean ÷ 95% half-width (clear of 0: decided)' },
      xaxis: { title: { text: "mean ÷ 95% half-width (the claim's way to the right of 0)" }, zeroline: true, zerolinewidth: 2, zerolinecolor: '#444' },
      yaxis: {
        tickmode: 'array',
        tickvals: placed.map((p) => p.y),
        ticktext: placed.map((p) => label(p.result)),
        automargin: true,
        range: [0.4, drawn.length + papers.length - 0.4],
      },
      height: Math.max(300, 80 + 22 * (drawn.length + papers.length)),
      margin: { l: 20, r: 20, t: 60, b: 50 },
    },
  };
}
