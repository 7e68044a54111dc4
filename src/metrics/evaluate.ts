/**
 * coco-caption's COCOEvalCap in one call: tokenise (unless told the text already is),
 * then run every requested scorer over the same image set.
 */
import * as bleu from './bleu';
import * as cider from './cider';
import * as meteor from './meteor';
import * as rouge from './rouge';
import * as spice from './spice';
import { CountedCorpus, countCorpus } from './ngrams';
import { tokenizeCaption } from '../text/ptb-tokenizer';
import { Candidates, MetricScores, References } from './types';

/** One image to score: its references, the model's caption and (nocaps) its domain. */
export interface CaptionCase {
  imageId: string;
  references: string[];
  candidate: string;
  domain?: string;
  /** Concept names the image shows (the world's ground truth); scored by src/metrics/grounding.ts, not here. */
  objects?: readonly string[];
}

/** Tokenised text of one scoring call, and n-gram counts made once for BLEU and CIDEr-D. */
interface PreparedCall {
  references: References;
  candidates: Candidates;
  ngrams(): CountedCorpus;
}

export const METRIC_FAMILIES = {
  bleu: { names: ['Bleu_1', 'Bleu_2', 'Bleu_3', 'Bleu_4'], score: (call: PreparedCall) => bleu.scoreCounted(call.ngrams()) },
  meteor: { names: ['METEOR'], score: (call: PreparedCall) => meteor.score(call.references, call.candidates) },
  rouge: { names: ['ROUGE_L'], score: (call: PreparedCall) => rouge.score(call.references, call.candidates) },
  cider: { names: ['CIDEr'], score: (call: PreparedCall) => cider.scoreCounted(call.ngrams()) },
  spice: { names: ['SPICE'], score: (call: PreparedCall) => spice.score(call.references, call.candidates) },
} as const satisfies Record<string, { names: readonly string[]; score: (call: PreparedCall) => MetricScores }>;

export type MetricFamily = keyof typeof METRIC_FAMILIES;
/** Every family `--metrics` accepts. */
export const ALL_FAMILIES = Object.keys(METRIC_FAMILIES) as MetricFamily[];
export const ALL_METRIC_NAMES: string[] = ALL_FAMILIES.flatMap((family) => [...METRIC_FAMILIES[family].names]);
/** Families run when none are asked for: coco-caption's scorers. SPICE runs only when named (it parses every caption). */
export const DEFAULT_FAMILIES: MetricFamily[] = ALL_FAMILIES.filter((family) => family !== 'spice');
export const DEFAULT_METRIC_NAMES: string[] = DEFAULT_FAMILIES.flatMap((family) => [...METRIC_FAMILIES[family].names]);

/** The `cckit score` contract: corpus values and per-image values of each metric. */
export interface Evaluation {
  corpus: Record<string, number>;
  per_image: Record<string, Record<string, number>>;
}

export interface EvaluateOptions {
  /** Text is already tokenised: split on spaces only, no PTB tokenisation. */
  tokenized?: boolean;
  /** Metric families or metric names (case-insensitive); default: DEFAULT_FAMILIES (all but SPICE). */
  metrics?: readonly string[];
}

/** Resolves user-given metric words ("bleu", "Bleu_4", "cider") to families and names. */
export function resolveMetrics(requested: readonly string[] | undefined): { families: MetricFamily[]; names: string[] } {
  if (!requested || requested.length === 0) return { families: [...DEFAULT_FAMILIES], names: [...DEFAULT_METRIC_NAMES] };
  const families = new Set<MetricFamily>();
  const names = new Set<string>();
  for (const word of requested) {
    const lower = word.trim().toLowerCase();
    const family = ALL_FAMILIES.find((f) => f === lower || (f === 'rouge' && lower === 'rouge_l'));
    const name = ALL_METRIC_NAMES.find((n) => n.toLowerCase() === lower);
    if (family && !name) {
      families.add(family);
      METRIC_FAMILIES[family].names.forEach((n) => names.add(n));
    } else if (name) {
      families.add(ALL_FAMILIES.find((f) => (METRIC_FAMILIES[f].names as readonly string[]).includes(name))!);
      names.add(name);
    } else {
      throw new Error(`unknown metric "${word}"; choose from ${[...ALL_FAMILIES, ...ALL_METRIC_NAMES].join(', ')}`);
    }
  }
  return { families: ALL_FAMILIES.filter((f) => families.has(f)), names: ALL_METRIC_NAMES.filter((n) => names.has(n)) };
}

/** Scores the cases with coco-caption's metrics. */
export function evaluate(cases: readonly CaptionCase[], options: EvaluateOptions = {}): Evaluation {
  const { families, names } = resolveMetrics(options.metrics);
  const prepare = options.tokenized ? (text: string) => text : tokenizeCaption;
  const references: References = {};
  const candidates: Candidates = {};
  for (const c of cases) {
    if (c.imageId in candidates) throw new Error(`image ${c.imageId} appears twice`);
    references[c.imageId] = c.references.map(prepare);
    candidates[c.imageId] = prepare(c.candidate);
  }
  let counted: CountedCorpus | undefined;
  const call: PreparedCall = { references, candidates, ngrams: () => (counted ??= countCorpus(references, candidates)) };
  const evaluation: Evaluation = { corpus: {}, per_image: {} };
  for (const family of families) {
    const scores = METRIC_FAMILIES[family].score(call);
    for (const name of METRIC_FAMILIES[family].names) {
      if (!names.includes(name)) continue;
      evaluation.corpus[name] = scores[name].corpus;
      evaluation.per_image[name] = scores[name].perImage;
    }
  }
  return evaluation;
}

/** nocaps's domains, and the name of the whole split, as its evaluation server reports them. */
export const NOCAPS_DOMAINS = ['in', 'near', 'out'] as const;
export type NocapsDomain = (typeof NOCAPS_DOMAINS)[number];

/**
 * Every metric on the whole set ("entire") and on each domain's images alone, as the
 * nocaps server reports them: each domain is scored as its own set, so CIDEr's document
 * frequencies come from that domain's references. Domains with no image are left out.
 */
export function evaluateByDomain(cases: readonly CaptionCase[], options: EvaluateOptions = {}): Record<string, Evaluation> {
  const result: Record<string, Evaluation> = { entire: evaluate(cases, options) };
  const domains = new Map<string, CaptionCase[]>();
  for (const c of cases) {
    if (c.domain === undefined) throw new Error(`image ${c.imageId}: no domain given (need in, near or out)`);
    const list = domains.get(c.domain) ?? [];
    list.push(c);
    domains.set(c.domain, list);
  }
  const ordered = [...NOCAPS_DOMAINS.filter((d) => domains.has(d)), ...[...domains.keys()].filter((d) => !(NOCAPS_DOMAINS as readonly string[]).includes(d))];
  for (const domain of ordered) result[domain] = evaluate(domains.get(domain)!, options);
  return result;
}
