import { loadTf } from '../../tf/backend';
import { batchTensors, type LabelledImages, type LabelSpace } from './data';
import type { WorldCnn } from './model';

/** Held-out metrics of the pre-training head: mAP over concepts present, top-1 precision, recall@k. */
export function evaluateLabels(model: WorldCnn, data: LabelledImages, concepts: number, batchSize = 64): { mAP: number; top1: number; recallAtK: number } {
  const tf = loadTf();
  const n = data.pixels.length;
  const scores = new Float32Array(n * concepts);
  const onlyConcepts: LabelSpace = { names: Array.from({ length: concepts }, String), ofConcept: Array.from({ length: concepts }, (_, c) => [c]) };
  for (let start = 0; start < n; start += batchSize) {
    const idx = Array.from({ length: Math.min(batchSize, n - start) }, (_, k) => start + k);
    const { x, y } = batchTensors(tf, data, idx, onlyConcepts);
    const logits = model.logits(x);
    const all = logits.dataSync();
    const width = logits.shape[1];
    for (let k = 0; k < idx.length; k++) scores.set(all.subarray(k * width, k * width + concepts), (start + k) * concepts);
    tf.dispose([x, y, logits]);
  }
  let top1 = 0;
  let recall = 0;
  for (let i = 0; i < n; i++) {
    const truth = new Set(data.concepts[i]);
    const row = Array.from(scores.subarray(i * concepts, (i + 1) * concepts), (v, c) => [v, c] as const).sort((a, b) => b[0] - a[0]);
    if (truth.has(row[0]![1])) top1++;
    const k = truth.size;
    recall += row.slice(0, k).filter(([, c]) => truth.has(c)).length / k;
  }
  // average precision per concept over the held-out images, for concepts with ≥ 1 positive
  let apSum = 0;
  let apCount = 0;
  for (let c = 0; c < concepts; c++) {
    const positives = data.concepts.reduce((s, l) => s + (l.includes(c) ? 1 : 0), 0);
    if (positives === 0) continue;
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b * concepts + c]! - scores[a * concepts + c]! || a - b);
    let hits = 0;
    let ap = 0;
    order.forEach((i, rank) => {
      if (data.concepts[i]!.includes(c)) {
        hits++;
        ap += hits / (rank + 1);
      }
    });
    apSum += ap / positives;
    apCount++;
  }
  return { mAP: apCount ? apSum / apCount : 0, top1: n ? top1 / n : 0, recallAtK: n ? recall / n : 0 };
}
