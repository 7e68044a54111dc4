/**
 * The mechanism behind CC12M's claim, measured directly (issue #26; no table of either paper): does a concept's
 * frequency in the pre-training pool predict whether the captioner names it by its own name, zero-shot and after
 * COCO fine-tuning, and how fast does fine-tuning erase the tail? Udandarao et al. (2024) found recognition
 * log-linear in pre-training concept frequency over CC3M, CC12M, YFCC and LAION; here the world's ground truth says
 * which objects each nocaps-like image shows and the judge which of them a caption names.
 *
 * Read from Table 3's finished runs (their stored nocaps-val captions and judge verdicts); trains nothing.
 */
import * as fs from 'fs';
import * as path from 'path';

import { readPredictions, PREDICTIONS_DIR } from '../../runs/layout';
import { readEvalImages } from '../../train/data';
import { readJsonFile } from '../../util/json';
import { readPool } from '../world-check';
import { mentionCounts } from '../world-stats';
import type { Table3Result } from './table3';

/** One concept of the nocaps-like val images, for one pre-training pool. */
export interface ConceptNaming {
  concept: string;
  /** Kept captions of the pool that mention it (name or plural). */
  poolCount: number;
  /** nocaps-like val images showing it. */
  images: number;
  /** % of those images whose caption names it by its own name: pre-trained only, and after fine-tuning. */
  zeroShot: number;
  finetuned: number;
}

export interface NamingCurve {
  pretraining: string;
  /** Fine-tuning step (0: the pre-trained model) and the % of out-of-domain images whose caption names a tail object by its own name. */
  steps: number[];
  named: number[];
}

export interface Mechanism {
  seed: number;
  /** Per pool (cc3m, cc12m): every tail concept of nocaps-like val shown in at least `minImages` images. */
  concepts: Record<string, ConceptNaming[]>;
  /** Per Table 3 row with a pre-training pool: naming at every kept fine-tuning checkpoint. */
  curves: NamingCurve[];
}

/** World concepts outside COCO's 80 (the long tail); undefined without the world's concepts.json (real data). */
export function tailConcepts(worldRoot: string | undefined): Set<string> | undefined {
  const file = worldRoot && path.join(worldRoot, 'concepts.json');
  if (!file || !fs.existsSync(file)) return undefined;
  return new Set((readJsonFile(file) as { name: string; coco: boolean }[]).filter((c) => !c.coco).map((c) => c.name));
}

type Named = Map<string, readonly string[]>;

/** Image id → concepts its caption names by their own name (the judge's `named`), from a run's stored split. */
function namedBy(runDir: string, split: string): Named | undefined {
  try {
    return new Map(readPredictions(runDir, split).items.map((i) => [String(i.image_id), i.grounding?.named ?? []]));
  } catch {
    return undefined;
  }
}

const percent = (hits: number, of: number) => (of === 0 ? NaN : (100 * hits) / of);

/**
 * The mechanism for one seed of Table 3: per pool, each tail concept's mention count in the pool against the share
 * of its nocaps-like val images captioned with its name (zero-shot and fine-tuned, by the row pre-trained on that
 * pool alone); per row, the out-of-domain naming rate at each kept fine-tuning checkpoint.
 */
export async function table3Mechanism(result: Table3Result, runsRoot: string, options: { minImages?: number } = {}): Promise<Mechanism> {
  const minImages = options.minImages ?? 3;
  const inputs = result.inputs;
  const tail = tailConcepts(inputs.worldRoot);
  const images = readEvalImages({ path: inputs.nocapsVal, imageRoot: inputs.imageRoot }).filter((i) => i.objects);
  const isTail = (c: string) => (tail ? tail.has(c) : true);
  const shown = new Map<string, string[]>();
  for (const image of images) for (const c of new Set(image.objects!.filter(isTail))) shown.set(c, [...(shown.get(c) ?? []), String(image.imageId)]);
  const concepts = [...shown.keys()].filter((c) => shown.get(c)!.length >= minImages).sort();
  const runDir = (id: string) => path.join(runsRoot, id);
  const rate = (named: Named | undefined, concept: string) => {
    const ids = shown.get(concept)!;
    return named ? percent(ids.filter((id) => named.get(id)?.includes(concept)).length, ids.length) : NaN;
  };

  const byPool: Record<string, ConceptNaming[]> = {};
  for (const pool of ['cc3m', 'cc12m'] as const) {
    const row = result.rows.find((r) => r.pretraining === pool);
    if (!row?.pretrainRun) continue;
    const counts = mentionCounts(
      (await readPool(inputs.pools[pool])).map((r) => r.caption),
      concepts,
    );
    const zeroShot = namedBy(runDir(row.pretrainRun), 'nocaps-val');
    const finetuned = namedBy(runDir(row.finetuneRun), 'nocaps-val');
    byPool[pool] = concepts.map((concept) => ({
      concept,
      poolCount: counts.get(concept) ?? 0,
      images: shown.get(concept)!.length,
      zeroShot: rate(zeroShot, concept),
      finetuned: rate(finetuned, concept),
    }));
  }

  // out-of-domain images and the tail objects each shows: the share whose caption names one of them by its name
  const outImages = images.filter((i) => i.domain === 'out').map((i) => ({ id: String(i.imageId), tail: i.objects!.filter(isTail) }));
  const outRate = (named: Named | undefined) =>
    named ? percent(outImages.filter((i) => i.tail.some((c) => named.get(i.id)?.includes(c))).length, outImages.length) : NaN;
  const curves: NamingCurve[] = [];
  for (const row of result.rows) {
    if (!row.pretrainRun) continue;
    const dir = runDir(row.finetuneRun);
    const predictions = path.join(dir, PREDICTIONS_DIR);
    const steps = fs.existsSync(predictions)
      ? fs
          .readdirSync(predictions)
          .map((f) => /^nocaps-val\.step-(\d+)\.json$/.exec(f))
          .filter((m): m is RegExpExecArray => !!m)
          .map((m) => ({ step: Number(m[1]), split: `nocaps-val.step-${m[1]}` }))
          .sort((a, b) => a.step - b.step)
      : [];
    curves.push({
      pretraining: row.pretraining,
      steps: [0, ...steps.map((s) => s.step)],
      named: [outRate(namedBy(runDir(row.pretrainRun), 'nocaps-val')), ...steps.map((s) => outRate(namedBy(dir, s.split)))],
    });
  }
  return { seed: result.config.seed, concepts: byPool, curves };
}

/**
 * Concept frequency in the pool (log scale) against naming, one point per concept and setting; the zero-shot and
 * fine-tuned points of a concept share its x.
 */
export function mechanismFigure(mechanism: Mechanism): { data: object[]; layout: object } {
  const data: object[] = [];
  const colours: Record<string, string> = { cc3m: '#1f77b4', cc12m: '#d62728' };
  for (const [pool, concepts] of Object.entries(mechanism.concepts))
    for (const setting of ['zeroShot', 'finetuned'] as const)
      data.push({
        type: 'scatter',
        mode: 'markers',
        name: `${pool.toUpperCase()} pre-training, ${setting === 'zeroShot' ? 'zero-shot' : 'fine-tuned on COCO-like'}`,
        x: concepts.map((c) => c.poolCount + 1),
        y: concepts.map((c) => (Number.isFinite(c[setting]) ? Number(c[setting].toFixed(1)) : null)),
        text: concepts.map((c) => `${c.concept} (${c.images} images)`),
        marker: { color: colours[pool], symbol: setting === 'zeroShot' ? 'circle' : 'x', size: 8, opacity: 0.75 },
        hovertemplate: '%{text}<br>pool mentions + 1: %{x}<br>named: %{y}%<extra></extra>',
      });
  return {
    data,
    layout: {
      title: { text: `Does the pool's frequency of a concept predict naming it? nocaps-like val tail concepts, seed ${mechanism.seed}` },
      xaxis: { title: { text: 'mentions of the concept in the pre-training pool + 1 (log)' }, type: 'log' },
      yaxis: { title: { text: '% of its images captioned with its own name' }, range: [-5, 105] },
      height: 420,
    },
  };
}

/** The out-of-domain naming rate at every kept fine-tuning checkpoint (step 0: the pre-trained model). */
export function namingCurvesFigure(mechanism: Mechanism): { data: object[]; layout: object } {
  return {
    data: mechanism.curves.map((c) => ({
      type: 'scatter',
      mode: 'lines+markers',
      name: c.pretraining,
      x: c.steps,
      y: c.named.map((v) => (Number.isFinite(v) ? Number(v.toFixed(1)) : null)),
    })),
    layout: {
      title: { text: `How fast COCO fine-tuning erases the tail: out-of-domain images whose caption names a tail object, seed ${mechanism.seed}` },
      xaxis: { title: { text: 'fine-tuning step (0: pre-trained only)' } },
      yaxis: { title: { text: '% of out-of-domain images' }, rangemode: 'tozero' },
      height: 380,
    },
  };
}

/** Spearman's rank correlation of two equal-length samples (average ranks for ties); NaN below three pairs. */
export function spearman(x: readonly number[], y: readonly number[]): number {
  const pairs = x.map((v, i) => [v, y[i]!] as const).filter(([a, b]) => Number.isFinite(a) && Number.isFinite(b));
  if (pairs.length < 3) return NaN;
  const ranks = (values: number[]) => {
    const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
    const r = new Array<number>(values.length);
    for (let i = 0; i < order.length;) {
      let j = i;
      while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
      for (let k = i; k <= j; k++) r[order[k]![1]] = (i + j) / 2 + 1;
      i = j + 1;
    }
    return r;
  };
  const rx = ranks(pairs.map((p) => p[0]));
  const ry = ranks(pairs.map((p) => p[1]));
  const mean = (rx.length + 1) / 2;
  let num = 0;
  let dx = 0;
  let dy = 0;
  for (let i = 0; i < rx.length; i++) {
    num += (rx[i]! - mean) * (ry[i]! - mean);
    dx += (rx[i]! - mean) ** 2;
    dy += (ry[i]! - mean) ** 2;
  }
  return dx === 0 || dy === 0 ? NaN : num / Math.sqrt(dx * dy);
}

/** Per pool: how many tail concepts, their mean naming (%) zero-shot and fine-tuned, and Spearman's ρ with the pool count. */
export function mechanismSummary(
  mechanism: Mechanism,
): Record<string, { concepts: number; zeroShot: number; finetuned: number; rhoZeroShot: number; rhoFinetuned: number }> {
  const mean = (xs: number[]) => {
    const f = xs.filter(Number.isFinite);
    return f.length ? f.reduce((s, v) => s + v, 0) / f.length : NaN;
  };
  return Object.fromEntries(
    Object.entries(mechanism.concepts).map(([pool, cs]) => [
      pool,
      {
        concepts: cs.length,
        zeroShot: mean(cs.map((c) => c.zeroShot)),
        finetuned: mean(cs.map((c) => c.finetuned)),
        rhoZeroShot: spearman(
          cs.map((c) => c.poolCount),
          cs.map((c) => c.zeroShot),
        ),
        rhoFinetuned: spearman(
          cs.map((c) => c.poolCount),
          cs.map((c) => c.finetuned),
        ),
      },
    ]),
  );
}
