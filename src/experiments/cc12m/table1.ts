/**
 * CC12M Table 1 and the two pipelines' funnels on the prepared pools (notebook 01), no training: each pipeline's
 * pairs per stage with its rejection reasons, the CC3M paper's yields beside, the same alt-texts through both
 * pipelines, and the pools' statistics (pairs, token/type, caption length, rare words) beside the paper's with the
 * direction of each difference.
 */
import * as fs from 'fs';
import * as path from 'path';

import { fastTokenize } from '../../text/fast-tokenizer';
import { formatLength, tsvStats } from '../../data/stats';
import type { CaptionStatistics } from '../../data/stats';
import { paperNumbers } from '../../report/paper';
import { InputError } from '../../util/json';
import type { Inputs } from '../recipe';
import { tailConcepts } from './mechanism';
import { claimOver, type Claim } from '../claims';

type Row = Record<string, string | number>;
type Figure = { data: object[]; layout: object };
type Pool = 'cc3m' | 'cc12m';
const POOLS: readonly Pool[] = ['cc3m', 'cc12m'];

/** One stage of a pipeline's funnel.jsonl: pairs in and out, rejections by reason. */
export interface FunnelStage {
  stage: string;
  in: number;
  out: number;
  rejected: Record<string, number>;
}

const lines = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);

/** Each pipeline's funnel, read beside its pool (none when the pools were given as files). */
export function readFunnels(inputs: Inputs): Partial<Record<Pool, FunnelStage[]>> {
  const out: Partial<Record<Pool, FunnelStage[]>> = {};
  for (const pool of POOLS) {
    const file = path.join(path.dirname(inputs.pools[pool]), 'funnel.jsonl');
    if (!fs.existsSync(file)) continue;
    out[pool] = lines(file).map((l, i) => {
      try {
        return JSON.parse(l) as FunnelStage;
      } catch {
        throw new InputError(file, `line ${i + 1}: not a JSON funnel stage`);
      }
    });
    // the CC12M-like pool then drops the CC3M-like pool's images (inputs.ts, CC12M §3): the funnel's last stage
    const disjoint = path.join(path.dirname(inputs.pools[pool]), 'overlap.json');
    if (pool === 'cc12m' && fs.existsSync(disjoint)) out[pool].push(disjointStage(disjoint));
  }
  return out;
}

/** The stage `overlap.json` records: the relaxed pipeline's pairs in, those whose image the CC3M-like pool has out. */
function disjointStage(file: string): FunnelStage {
  let report: { b?: { rows?: unknown }; written?: unknown };
  try {
    report = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof report;
  } catch {
    throw new InputError(file, 'not a JSON overlap report');
  }
  const pairsIn = report.b?.rows;
  const pairsOut = report.written;
  if (typeof pairsIn !== 'number' || typeof pairsOut !== 'number') throw new InputError(file, 'no b.rows and written counts');
  return { stage: 'disjoint from cc3m', in: pairsIn, out: pairsOut, rejected: { 'image in the cc3m pool': pairsIn - pairsOut } };
}

/** Pairs left after each stage, one line per pipeline. */
export function funnelFigure(funnels: Partial<Record<Pool, FunnelStage[]>>): Figure {
  const stages = [...new Set(Object.values(funnels).flatMap((f) => f.map((s) => s.stage)))];
  return {
    data: Object.entries(funnels).map(([pool, f]) => ({
      type: 'scatter',
      mode: 'lines+markers',
      name: `${pool.toUpperCase()} pipeline`,
      x: f.map((s) => s.stage),
      y: f.map((s) => s.out),
    })),
    layout: {
      title: { text: `Pairs left after each stage (web pool of ${funnels.cc12m?.[0]?.in ?? funnels.cc3m?.[0]?.in} pairs)` },
      xaxis: { title: { text: 'stage' }, categoryorder: 'array', categoryarray: stages },
      yaxis: { title: { text: 'pairs kept' }, rangemode: 'tozero' },
      height: 380,
    },
  };
}

/** Each stage: pairs in, pairs out, pass rate and the rejection reasons, most first. */
export function funnelRows(funnels: Partial<Record<Pool, FunnelStage[]>>): Row[] {
  return Object.entries(funnels).flatMap(([pool, f]) =>
    f
      .filter((s) => s.stage !== 'read')
      .map((s) => ({
        pipeline: pool,
        stage: s.stage,
        in: s.in,
        out: s.out,
        'pass %': Number(((100 * s.out) / Math.max(1, s.in)).toFixed(1)),
        'rejected because':
          Object.entries(s.rejected)
            .sort((a, b) => b[1] - a[1])
            .map(([r, n]) => `${r.replace(/^[^:]+:/, '')} ${n}`)
            .join(', ') || '—',
      })),
  );
}

/** The CC3M paper's yields beside the world's CC3M pipeline (undefined without its funnel). */
export function yieldRows(funnels: Partial<Record<Pool, FunnelStage[]>>): Row[] | undefined {
  const f = funnels.cc3m;
  if (!f) return undefined;
  const y = paperNumbers().cc3m.pipeline_yield as Record<string, string>;
  const pass = (stage: string) => {
    const s = f.find((x) => x.stage === stage);
    return s ? (100 * s.out) / Math.max(1, s.in) : NaN;
  };
  return [
    { stage: 'image', 'CC3M paper (web scale)': `discards ${y.image_filter_discards}`, 'CC3M pipeline here': `discards ${(100 - pass('image')).toFixed(0)}%` },
    { stage: 'text', 'CC3M paper (web scale)': `passes ${y.text_filter_passes}`, 'CC3M pipeline here': `passes ${pass('text').toFixed(0)}%` },
    {
      stage: 'image-text',
      'CC3M paper (web scale)': `discards ${y.image_text_filter_discards}`,
      'CC3M pipeline here': `discards ${(100 - pass('image-text')).toFixed(0)}%`,
    },
    {
      stage: 'overall',
      'CC3M paper (web scale)': y.overall_pass_rate!,
      'CC3M pipeline here': `${((100 * f[f.length - 1]!.out) / f[0]!.in).toFixed(1)}% of ${f[0]!.in} pairs`,
    },
  ];
}

/** The URL → caption of a pool (the pipelines write CC3M caption-first and CC12M URL-first). */
function byUrl(file: string): Map<string, string> {
  return new Map(
    lines(file).map((l): [string, string] => {
      const [a = '', b = ''] = l.split('\t');
      return a.includes('://') ? [a, b] : [b, a];
    }),
  );
}

/**
 * The same alt-texts through both pipelines (world only: the raw web pool): the first pairs, pairs both kept with
 * different captions, pairs with `<PERSON>`; and the counts.
 */
export function sameAltTexts(inputs: Inputs): { rows: Row[]; both: number; differ: number; persons: number; cc12m: number } | undefined {
  const webFile = inputs.worldRoot && path.join(inputs.worldRoot, 'web', 'cc12m.tsv');
  if (!webFile || !fs.existsSync(webFile)) return undefined;
  const kept = { cc3m: byUrl(inputs.pools.cc3m), cc12m: byUrl(inputs.pools.cc12m) };
  const web = lines(webFile).map((l) => l.split('\t') as [string, string]);
  const both = web.filter(([url]) => kept.cc3m.has(url) && kept.cc12m.has(url));
  const differ = both.filter(([url]) => kept.cc3m.get(url)!.toLowerCase() !== kept.cc12m.get(url)!.toLowerCase().replace(/[.]$/, ''));
  const persons = web.filter(([url]) => kept.cc12m.get(url)?.includes('<PERSON>'));
  const shown = [...new Map([...web.slice(0, 6), ...differ.slice(0, 6), ...persons.slice(0, 3)].map((r) => [r[0], r])).values()];
  return {
    rows: shown.map(([url, alt]) => ({ url, 'alt-text': alt, 'CC3M caption': kept.cc3m.get(url) ?? '—', 'CC12M caption': kept.cc12m.get(url) ?? '—' })),
    both: both.length,
    differ: differ.length,
    persons: persons.length,
    cc12m: kept.cc12m.size,
  };
}

interface Table1Paper {
  cc3m: { pairs: number; token_type_ratio: number; caption_len_mean: number; caption_len_std: number };
  cc12m: { pairs: number; token_type_ratio: number; caption_len_mean: number; caption_len_std: number };
  rare_word_counts_cc3m_to_cc12m: Record<string, [number, number]>;
}

export interface Table1 {
  stats: Record<Pool, CaptionStatistics>;
  /** The paper's rare words, then this world's four most CC12M-leaning long-tail words. */
  rareWords: string[];
  worldRareWords: string[];
  paper: Table1Paper;
}

/** The world's long-tail words: names of its non-COCO concepts, frequent in the CC12M pool, rare or absent in CC3M's. */
function worldRareWords(inputs: Inputs, top = 4): string[] {
  const tail = tailConcepts(inputs.worldRoot);
  if (!tail) return [];
  const longTail = new Set([...tail].filter((name) => /^[a-z]+$/.test(name)));
  const counts = (file: string) => {
    const m = new Map<string, number>();
    for (const caption of byUrl(file).values()) for (const t of fastTokenize(caption)) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  };
  const c3 = counts(inputs.pools.cc3m);
  const c12 = counts(inputs.pools.cc12m);
  return [...c12.entries()]
    .filter(([w, n]) => longTail.has(w) && n >= 3)
    .sort((a, b) => b[1] / ((c3.get(b[0]) ?? 0) + 1) - a[1] / ((c3.get(a[0]) ?? 0) + 1) || a[0].localeCompare(b[0]))
    .slice(0, top)
    .map(([w]) => w);
}

/** CC12M Table 1's statistics of both pools (the `cckit stats` tokenizer), with the paper's and the world's rare words. */
export async function measureTable1(inputs: Inputs): Promise<Table1> {
  const paper = paperNumbers().cc12m.table1_stats as unknown as Table1Paper;
  const world = worldRareWords(inputs);
  const rareWords = [...Object.keys(paper.rare_word_counts_cc3m_to_cc12m), ...world];
  const stats = {} as Record<Pool, CaptionStatistics>;
  for (const pool of POOLS) stats[pool] = await tsvStats(inputs.pools[pool], { rareWords });
  return { stats, rareWords, worldRareWords: world, paper };
}

const f = (x: number, d = 1) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

/** CC12M Table 1: the two pools beside the paper's datasets. */
export function table1Rows(t: Table1): Row[] {
  const { stats: s, paper: p } = t;
  return [
    {
      statistic: '# image-text pairs',
      'CC3M (here)': f(s.cc3m.pairs, 0),
      'CC12M (here)': f(s.cc12m.pairs, 0),
      'CC3M (paper)': f(p.cc3m.pairs, 0),
      'CC12M (paper)': f(p.cc12m.pairs, 0),
    },
    {
      statistic: 'token/type ratio',
      'CC3M (here)': f(s.cc3m.tokenTypeRatio),
      'CC12M (here)': f(s.cc12m.tokenTypeRatio),
      'CC3M (paper)': f(p.cc3m.token_type_ratio),
      'CC12M (paper)': f(p.cc12m.token_type_ratio),
    },
    {
      statistic: 'caption length (tokens)',
      'CC3M (here)': formatLength(s.cc3m),
      'CC12M (here)': formatLength(s.cc12m),
      'CC3M (paper)': `${f(p.cc3m.caption_len_mean)} ± ${f(p.cc3m.caption_len_std)}`,
      'CC12M (paper)': `${f(p.cc12m.caption_len_mean)} ± ${f(p.cc12m.caption_len_std)}`,
    },
    ...t.rareWords.map((w) => {
      const counts = p.rare_word_counts_cc3m_to_cc12m[w];
      return {
        statistic: `"${w}"${counts ? '' : ' (this world)'}`,
        'CC3M (here)': f(s.cc3m.rareWords[w] ?? 0, 0),
        'CC12M (here)': f(s.cc12m.rareWords[w] ?? 0, 0),
        'CC3M (paper)': counts ? f(counts[0], 0) : '—',
        'CC12M (paper)': counts ? f(counts[1], 0) : '—',
      };
    }),
    {
      statistic: 'tokens / types',
      'CC3M (here)': `${f(s.cc3m.tokens, 0)} / ${f(s.cc3m.types, 0)}`,
      'CC12M (here)': `${f(s.cc12m.tokens, 0)} / ${f(s.cc12m.types, 0)}`,
      'CC3M (paper)': '—',
      'CC12M (paper)': '—',
    },
  ];
}

/** CC12M vs CC3M: the direction of each difference, in the paper and here. */
export function table1Directions(t: Table1): Row[] {
  const { stats: s, paper: p } = t;
  const paperRare = (i: 0 | 1) => Object.values(p.rare_word_counts_cc3m_to_cc12m).reduce((sum, c) => sum + c[i], 0);
  const worldRare = (pool: Pool) => t.worldRareWords.reduce((sum, w) => sum + (s[pool].rareWords[w] ?? 0), 0);
  const dir = (a: number, b: number) => (a > b ? 'CC12M higher' : a < b ? 'CC12M lower' : 'equal');
  const checks: [string, number, number, number, number][] = [
    ['# image-text pairs', s.cc12m.pairs, s.cc3m.pairs, p.cc12m.pairs, p.cc3m.pairs],
    ['token/type ratio (lower: more diverse vocabulary)', s.cc12m.tokenTypeRatio, s.cc3m.tokenTypeRatio, p.cc12m.token_type_ratio, p.cc3m.token_type_ratio],
    ['mean caption length', s.cc12m.lengthMean, s.cc3m.lengthMean, p.cc12m.caption_len_mean, p.cc3m.caption_len_mean],
    ['caption length spread (std)', s.cc12m.lengthStd, s.cc3m.lengthStd, p.cc12m.caption_len_std, p.cc3m.caption_len_std],
    [`rare-word counts (paper: its four words; here: ${t.worldRareWords.join(', ')})`, worldRare('cc12m'), worldRare('cc3m'), paperRare(1), paperRare(0)],
  ];
  return checks.map(([what, here12, here3, paper12, paper3]) => ({
    statistic: what,
    paper: dir(paper12, paper3),
    here: dir(here12, here3),
    same: dir(paper12, paper3) === dir(here12, here3) ? 'yes' : 'no',
  }));
}

/**
 * Table 1's claims over seeds (each seed a world of its own): CC12M's captions are longer (mean tokens), and its
 * vocabulary has the longer tail (fewer tokens per type: CC3M's ratio minus CC12M's).
 */
export function table1ClaimList(perSeed: readonly Table1[]): Claim[] {
  const p = (perSeed[0]?.paper ?? paperNumbers().cc12m.table1_stats) as unknown as Table1Paper;
  return [
    claimOver(
      "CC12M's captions are longer than CC3M's (mean tokens, CC12M Table 1)",
      `${p.cc12m.caption_len_mean} vs ${p.cc3m.caption_len_mean}`,
      perSeed.map((t) => t.stats.cc12m.lengthMean - t.stats.cc3m.lengthMean),
    ),
    claimOver(
      'CC12M has fewer tokens per type than CC3M (a longer tail, CC12M Table 1)',
      `${p.cc12m.token_type_ratio} vs ${p.cc3m.token_type_ratio}`,
      perSeed.map((t) => t.stats.cc3m.tokenTypeRatio - t.stats.cc12m.tokenTypeRatio),
      { measuredAs: 'CC3M − CC12M tokens per type: ' },
    ),
  ];
}

/** Rare-word token counts in the two pools. */
export function rareWordsFigure(t: Table1): Figure {
  return {
    data: POOLS.map((pool) => ({ type: 'bar', name: pool.toUpperCase(), x: t.rareWords, y: t.rareWords.map((w) => t.stats[pool].rareWords[w] ?? 0) })),
    layout: {
      title: { text: 'Rare-word token counts in the two filtered pools (this world)' },
      barmode: 'group',
      yaxis: { title: { text: 'tokens' } },
      height: 340,
    },
  };
}
