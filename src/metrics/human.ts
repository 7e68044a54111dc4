/**
 * The "Human" row of a captioning table: how well one human reference agrees with the others.
 * As coco-caption's human baseline and nocaps's, each image's first reference is scored as the
 * candidate against its remaining references, with corpus CIDEr-D (×100) and the PTB
 * tokenisation of `evaluate`. With domains (nocaps), each domain is also scored as its own set,
 * as the nocaps server does (`evaluateByDomain`).
 */
import { CaptionCase, evaluate, evaluateByDomain } from './evaluate';

export interface HumanImage {
  references: string[];
  domain?: string;
}

/** CIDEr-D ×100 overall and per domain present ("in", "near", "out", …). */
export type HumanScores = { overall: number } & Record<string, number>;

/**
 * Leave-one-out CIDEr-D ×100 of the references: the first reference of each image against the
 * others. Images with fewer than two references are skipped; no usable image gives NaN.
 */
export function leaveOneOutCider(images: readonly HumanImage[]): HumanScores {
  const cases: CaptionCase[] = [];
  images.forEach((image, i) => {
    if (image.references.length < 2) return;
    cases.push({ imageId: String(i), candidate: image.references[0]!, references: image.references.slice(1), domain: image.domain });
  });
  if (cases.length === 0) return { overall: NaN };
  const withDomains = cases.every((c) => c.domain !== undefined);
  if (!withDomains) return { overall: 100 * evaluate(cases, { metrics: ['cider'] }).corpus.CIDEr! };
  const scores: HumanScores = { overall: NaN };
  for (const [domain, evaluation] of Object.entries(evaluateByDomain(cases, { metrics: ['cider'] }))) {
    scores[domain === 'entire' ? 'overall' : domain] = 100 * evaluation.corpus.CIDEr!;
  }
  return scores;
}
