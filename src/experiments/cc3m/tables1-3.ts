/**
 * CC3M's dataset tables (1: alt-text → caption, 2: pair quality, 3: splits) and CC12M's Table 9 (out-of-domain
 * coverage) as rows beside the papers' numbers, from `measureDatasets` (src/experiments/cc3m-dataset.ts); no
 * training. Notebook 02 shows them; each function is one table, figure or the claims.
 */
import { paperNumbers } from '../../report/paper';
import { claimOver, type Claim } from '../claims';
import { CALIBRATION } from '../../world/calibration';
import { examplesPerTransform, namesLeft, SPLITS, traceCc3mTransform, transformCounts, TRANSFORMS, type DatasetsResult } from '../cc3m-dataset';

type Row = Record<string, string | number>;
type Figure = { data: object[]; layout: object };

const POOLS = [
  ['web', 'raw web pool'],
  ['cc3m', 'CC3M pool'],
  ['cc12m', 'CC12M pool'],
] as const;
const pct = (x: number | undefined): number | string => (x !== undefined && Number.isFinite(x) ? Number((100 * x).toFixed(1)) : '—');
const f1 = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x.toFixed(1) : '—');
const fInt = (x: number) => x.toLocaleString('en-US');
const LABEL = Object.fromEntries(TRANSFORMS.map((t) => [t.kind, t.label]));
const marks = (t: { transforms: readonly string[] }) => t.transforms.join(', ') || '—';

interface Cc3mPaper {
  examples: { alt_text_to_caption: [string, string][] };
  dataset_human_eval_good: Record<'1+' | '2+' | '3', number>;
  table_dataset_splits: Record<
    string,
    { examples: number; unique_tokens: number; tokens_per_caption_mean?: number; mean?: number; std: number; median: number }
  >;
}
const cc3mPaper = () => paperNumbers().cc3m as unknown as Cc3mPaper;

/** CC3M Table 1, the paper's own examples: its caption beside cckit's transform of the same alt-text. */
export function table1PaperExamples(): Row[] {
  return cc3mPaper().examples.alt_text_to_caption.map(([alt, caption]) => {
    const t = traceCc3mTransform(alt);
    const same = t.caption !== null && t.caption.replace(/[.]$/, '') === caption.toLowerCase().replace(/[.]$/, '');
    return {
      'alt-text': alt,
      'paper caption': caption,
      'cckit CC3M caption': t.caption ?? `— (${t.rejected})`,
      'same as the paper': same ? 'yes' : 'no',
      'rewrites that acted': marks(t),
      'cckit CC12M': t.cc12m,
    };
  });
}

/** CC3M Table 1 on the world: the first kept pair in which each rewrite acted, and the CC12M caption of its alt-text. */
export function table1WorldExamples(m: DatasetsResult): Row[] {
  // the relaxed pipeline's own output: the CC12M-like pool itself no longer holds the CC3M-like images
  const cc12m = new Map((m.cc12mPipeline ?? m.rows.cc12m ?? []).map((r) => [r.url, r.caption]));
  const cc12mOf = (url: string) => cc12m.get(url) ?? `— (rejected: ${m.cc12mRejects?.get(url) ?? 'not in the pool'})`;
  return [...examplesPerTransform(m.traces ?? []).entries()].map(([kind, t]) => {
    const traced = t as NonNullable<DatasetsResult['traces']>[number];
    return {
      'example of': LABEL[kind]!,
      'alt-text': traced.altText,
      'CC3M caption': traced.kept,
      'rewrites that acted': marks(traced),
      'names removed': traced.names.join(', ') || '—',
      'CC12M caption': cc12mOf(traced.url),
    };
  });
}

/** How often each rewrite acted over the CC3M pool. */
export function transformCountRows(m: DatasetsResult): Row[] {
  const traces = m.traces ?? [];
  const counts = transformCounts(traces);
  return TRANSFORMS.map((t) => ({
    rewrite: t.label,
    'CC3M pairs where it acted': counts[t.kind],
    '% of the pool': Number(((100 * counts[t.kind]) / Math.max(1, traces.length)).toFixed(1)),
  }));
}

/** The person check of the trace: alt-texts naming a person (world truth), all names detected, names left. */
export function personCheck(m: DatasetsResult): { named: number; detected: number; left: number } {
  const traces = m.traces ?? [];
  const named = traces.filter((t) => t.truthNames.length > 0);
  return {
    named: named.length,
    detected: named.filter((t) => t.truthNames.every((n) => t.names.includes(n))).length,
    left: namesLeft(traces, (t) => t.truthNames).length,
  };
}

/** CC3M Table 2 on the world: every pair of each pool judged against the image's objects (undefined on real pools). */
export function table2Rows(m: DatasetsResult): Row[] | undefined {
  const Q = m.quality;
  if (!Q) return undefined;
  return POOLS.map(([p, name]) => ({
    pool: name,
    pairs: Q[p]!.pairs,
    'GOOD %': pct(Q[p]!.goodRate),
    'GOOD % if absent persons are not counted': pct(Q[p]!.goodExceptPersonsRate),
    'names an absent object %': pct(Q[p]!.hallucinationRate),
    'names an absent person %': pct(Q[p]!.personHallucinationRate),
    'names no object %': pct(Q[p]!.noObjectRate),
    'absent objects named most': Q[p]!.topHallucinations.map(([w, n]) => `${w} ${n}`).join(', '),
  }));
}

/** CC3M Table 2 beside the paper: % of pairs judged GOOD by the raters (CC3M) and by the CC12M check. */
export function table2PaperRows(m: DatasetsResult): Row[] | undefined {
  const Q = m.quality;
  if (!Q) return undefined;
  const good = cc3mPaper().dataset_human_eval_good;
  const cc12mPrecision = paperNumbers().cc12m.table1_stats.cc12m.precision as number;
  return [
    {
      pool: 'CC3M',
      'paper: 1+ of 3 GOOD': pct(good['1+']),
      'paper: 2+ of 3': pct(good['2+']),
      'paper: 3 of 3': pct(good['3']),
      'paper: CC12M check': '—',
      'here: exact judge (vs 3 of 3)': pct(Q.cc3m!.goodRate),
      'here: text describes image (vs 2+)': pct(Q.cc3m!.describesImageRate),
    },
    {
      pool: 'CC12M',
      'paper: 1+ of 3 GOOD': '— (not rated)',
      'paper: 2+ of 3': '— (not rated)',
      'paper: 3 of 3': '— (not rated)',
      'paper: CC12M check': pct(cc12mPrecision),
      'here: exact judge (vs 3 of 3)': pct(Q.cc12m!.goodRate),
      'here: text describes image (vs 2+)': pct(Q.cc12m!.describesImageRate),
    },
    {
      pool: 'raw web',
      'paper: 1+ of 3 GOOD': '— (not reported)',
      'paper: 2+ of 3': '— (not reported)',
      'paper: 3 of 3': '— (not reported)',
      'paper: CC12M check': '— (not reported)',
      'here: exact judge (vs 3 of 3)': pct(Q.web!.goodRate),
      'here: text describes image (vs 2+)': pct(Q.web!.describesImageRate),
    },
  ];
}

/** Pairs judged GOOD per pool (three readings), with the paper's CC3M 3-of-3 and 2+ lines. */
export function table2Figure(m: DatasetsResult): Figure | undefined {
  const Q = m.quality;
  if (!Q) return undefined;
  const good = cc3mPaper().dataset_human_eval_good;
  const bars = (name: string, key: 'goodRate' | 'goodExceptPersonsRate' | 'describesImageRate') => ({
    type: 'bar',
    name,
    x: POOLS.map(([, n]) => n),
    y: POOLS.map(([p]) => 100 * Q[p]![key]),
  });
  return {
    data: [
      bars('exact judge: GOOD', 'goodRate'),
      bars('GOOD if absent persons are not counted', 'goodExceptPersonsRate'),
      bars('text describes image (world label)', 'describesImageRate'),
    ],
    layout: {
      title: { text: `Pairs judged GOOD (%), ${m.preset} world; the paper's CC3M 3-of-3 and 2+ lines` },
      barmode: 'group',
      yaxis: { title: { text: '% of pairs' }, range: [0, 100] },
      shapes: [100 * good['3'], 100 * good['2+']].map((y) => ({ type: 'line', xref: 'paper', x0: 0, x1: 1, y0: y, y1: y, line: { dash: 'dot', width: 1 } })),
      height: 360,
    },
  };
}

/** CC3M Table 3: the CC3M pool split by URL hash beside the paper's splits. */
export function table3SplitRows(m: DatasetsResult): Row[] {
  const paperSplits = cc3mPaper().table_dataset_splits;
  return SPLITS.map((split) => {
    const s = m.splits[split];
    const p = paperSplits[split];
    const mean = p?.tokens_per_caption_mean ?? p?.mean;
    return {
      split,
      examples: fInt(s.examples),
      'unique tokens': fInt(s.uniqueTokens),
      'tokens per caption': `${f1(s.mean)} ± ${f1(s.std)}`,
      median: s.median,
      'paper: examples': p ? fInt(p.examples) : '—',
      'paper: unique tokens': p ? fInt(p.unique_tokens) : '—',
      'paper: tokens per caption': p ? `${f1(mean)} ± ${f1(p.std)}` : '—',
      'paper: median': p ? p.median : '—',
    };
  });
}

/** CC12M Table 9: coverage of nocaps-like val's out-of-domain concepts by each pool, at each k (undefined on real pools). */
export function table9Rows(m: DatasetsResult): Row[] | undefined {
  const C = m.coverage;
  if (!C) return undefined;
  const N = C.concepts.length;
  return C.ks.map((k) => ({
    'mentioned in ≥ k captions': `k = ${k}`,
    ...Object.fromEntries(POOLS.map(([p, name]) => [`${name} %`, pct(C.share[p]![k])])),
    ...Object.fromEntries(POOLS.map(([p, name]) => [`${name} (concepts)`, Math.round(C.share[p]![k]! * N)])),
    paper: '— (no Table 9 numbers in paper-numbers.json)',
  }));
}

export function table9Figure(m: DatasetsResult): Figure | undefined {
  const C = m.coverage;
  if (!C) return undefined;
  return {
    data: POOLS.map(([p, name]) => ({ type: 'bar', name, x: C.ks.map((k) => `≥ ${k} captions`), y: C.ks.map((k) => 100 * C.share[p]![k]!) })),
    layout: {
      title: { text: `Out-of-domain concepts covered (% of ${C.concepts.length}), ${m.preset} world` },
      barmode: 'group',
      yaxis: { title: { text: '% of concepts' }, range: [0, 100] },
      height: 340,
    },
  };
}

/** The out-of-domain concepts the CC12M pool mentions most, and each pool's count: what hypernymisation took out. */
export function table9TopConcepts(m: DatasetsResult, top = 8): Row[] | undefined {
  const C = m.coverage;
  if (!C) return undefined;
  return [...C.concepts]
    .sort((a, b) => C.mentions.cc12m![b]! - C.mentions.cc12m![a]! || a.localeCompare(b))
    .slice(0, top)
    .map((c) => ({ concept: c, 'raw web captions': C.mentions.web![c]!, 'CC3M captions': C.mentions.cc3m![c]!, 'CC12M captions': C.mentions.cc12m![c]! }));
}

/** One of the papers' dataset checks on one seed's pools: the measured figure and its difference, > 0 the claim's way. */
export interface DatasetCheck {
  claim: string;
  paper: string;
  here: string;
  /** In the registry metric's unit (share % points, tokens, count), > 0 the claim's way. */
  difference: number;
}

/**
 * The papers' dataset claims measured on one seed's pools, each as a difference the claim's way; `datasetClaimList`
 * decides them over seeds by the one rule (`claimOver`), with the registry's margins and directions.
 */
export function datasetChecks(m: DatasetsResult): DatasetCheck[] {
  const checks: DatasetCheck[] = [];
  const paper = cc3mPaper();
  const good = paper.dataset_human_eval_good;
  const cc12mPrecision = paperNumbers().cc12m.table1_stats.cc12m.precision as number;
  if ((m.traces ?? []).length > 0) {
    const persons = personCheck(m);
    // "A ≥ B" with A the 0 names the paper's pipeline keeps and B the names kept here
    checks.push({
      claim: 'CC3M captions keep no person name (Table 1)',
      paper: 'names → hypernyms ("actor")',
      here: `${persons.left} of ${persons.named} alt-texts with names (world truth) keep one`,
      difference: -persons.left,
    });
    const target = CALIBRATION.find((t) => t.id === 'person-share')!;
    const [min, max] = [target.accept.min as number, target.accept.max as number];
    const cc12m = m.rows.cc12m ?? [];
    const share = cc12m.filter((r) => r.caption.includes('<PERSON>')).length / Math.max(1, cc12m.length);
    // inside the range the world check accepts for "about a quarter": the distance to its nearer edge, outside negative
    checks.push({
      claim: 'about a quarter of CC12M captions carry <PERSON>',
      paper: `about ${100 * (target.paper.cc12m as number)}% (CC12M §3.1)`,
      here: `${pct(share)}% (world check accepts ${100 * min}–${100 * max}%; the difference is the distance inside that range)`,
      difference: 100 * Math.min(share - min, max - share),
    });
  }
  const Q = m.quality;
  if (Q) {
    const readings = [
      ['goodRate', 'exact judge'],
      ['goodExceptPersonsRate', 'judge, absent persons not counted'],
      ['describesImageRate', 'world label describesImage'],
    ] as const;
    for (const [key, name] of readings)
      checks.push({
        claim: `CC3M pairs are GOOD more often than CC12M pairs (${name})`,
        paper: `${pct(good['3'])} (3 of 3) / ${pct(good['2+'])} (2+) vs ${pct(cc12mPrecision)}`,
        here: `${pct(Q.cc3m![key])} vs ${pct(Q.cc12m![key])}`,
        difference: 100 * (Q.cc3m![key] - Q.cc12m![key]),
      });
    for (const [key, name] of readings.slice(0, 2))
      checks.push({
        claim: `the CC3M pipeline raises quality over the raw web (${name})`,
        paper: "no raw-web figure (the filters' stated aim)",
        here: `${pct(Q.cc3m![key])} vs ${pct(Q.web![key])}`,
        difference: 100 * (Q.cc3m![key] - Q.web![key]),
      });
  }
  // Table 3: held-out captions at least as long as train's (the registry's tokens margin decides "as long")
  const S = m.splits;
  const paperSplits = paper.table_dataset_splits;
  for (const split of ['validation', 'test'] as const)
    checks.push({
      claim: `${split} captions are as long as train's (Table 3)`,
      paper: `${f1(paperSplits.train!.tokens_per_caption_mean)} vs ${f1(paperSplits[split]!.mean)}`,
      here: `${f1(S.train.mean)} vs ${f1(S[split].mean)}`,
      difference: S[split].mean - S.train.mean,
    });
  checks.push({
    claim: 'caption lengths are skewed right: median below mean (Table 3, train)',
    paper: `${paperSplits.train!.median} < ${f1(paperSplits.train!.tokens_per_caption_mean)}`,
    here: `${S.train.median} vs ${f1(S.train.mean)}`,
    difference: S.train.mean - S.train.median,
  });
  const C = m.coverage;
  if (C)
    checks.push({
      claim: 'CC12M covers more out-of-domain concepts than CC3M, at every k (CC12M Table 9)',
      paper: 'CC12M covers more',
      here: C.ks.map((k) => `k=${k}: ${pct(C.share.cc12m![k])} vs ${pct(C.share.cc3m![k])}`).join('; '),
      // "at every k": the smallest lead over the k's
      difference: Math.min(...C.ks.map((k) => 100 * (C.share.cc12m![k]! - C.share.cc3m![k]!))),
    });
  return checks;
}

/** The dataset claims over seeds, each decided by the one rule on its per-seed differences. */
export function datasetClaimList(perSeed: readonly DatasetsResult[]): Claim[] {
  const bySeed = perSeed.map(datasetChecks);
  const texts = [...new Set(bySeed.flat().map((c) => c.claim))];
  return texts.map((text) => {
    const checks = bySeed.map((seed) => seed.find((c) => c.claim === text));
    const first = checks.find((c) => c !== undefined)!;
    return claimOver(
      text,
      first.paper,
      checks.map((c) => c?.difference ?? NaN),
      { columns: { 'measured here (seed by seed)': checks.map((c) => c?.here ?? '—').join(' | ') } },
    );
  });
}
