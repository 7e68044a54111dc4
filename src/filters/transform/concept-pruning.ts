/** CC3M §3's low-count concept pruning, the dataset stage after the transform (see transform.ts's module comment). */
import { scaledThreshold } from '../scale';
import { analyse } from '../nlp';
import { Verdict, keep, reject } from '../types';
import { PERSON_TOKEN } from '../../text/tokens';
import { nounBase } from './pieces';

/** Nouns that are not concepts (placeholders, generic words). */
const NOT_CONCEPTS = new Set([PERSON_TOKEN.toLowerCase(), 'thing', 'things', 'image', 'photo', 'picture', 'view', 'other']);

/** The concepts of a (transformed) caption: lemmatised nouns, each once. */
export function conceptsOf(caption: string): string[] {
  const out = new Set<string>();
  for (const t of analyse(caption).tokens) {
    if (t.pos !== 'NOUN' || !/^[\p{L}-]+$/u.test(t.lower)) continue;
    const base = nounBase(t.lower);
    if (!NOT_CONCEPTS.has(base)) out.add(base);
  }
  return [...out];
}

/** First pass: counts each concept once per caption over a dataset. */
export class ConceptCounter {
  private readonly counts = new Map<string, number>();
  captions = 0;

  add(caption: string): string[] {
    const concepts = conceptsOf(caption);
    for (const c of concepts) this.counts.set(c, (this.counts.get(c) ?? 0) + 1);
    this.captions++;
    return concepts;
  }

  count(concept: string): number {
    return this.counts.get(concept) ?? 0;
  }

  /** All concepts with their counts, most frequent first. */
  entries(): Array<[string, number]> {
    return [...this.counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  }

  /** Second pass: keep a caption when every concept's count is ≥ threshold. */
  check(caption: string, threshold: number): Verdict {
    const rare = conceptsOf(caption).find((c) => this.count(c) < threshold);
    return rare === undefined ? keep(caption) : reject('prune:rare-concept', `"${rare}" seen in ${this.count(rare)} kept captions; at least ${threshold}`);
  }
}

/** A pruning threshold stated for the paper's corpus: `threshold` at `atPairs` pairs, never below `floor` once scaled. */
export interface ScaledCount {
  threshold: number;
  atPairs: number;
  floor: number;
}

/**
 * CC3M §3's low-count concept pruning as a two-pass dataset stage (src/filters/pipeline.ts
 * DatasetStage): observe every caption, then check each. The threshold is a fixed count, or the
 * paper's (src/filters/presets.ts CC3M_CONCEPT_PRUNING) scaled (src/filters/scale.ts) to the
 * number of captions observed, fixed at the first check. The pipeline and the tests use this one.
 */
export class ConceptPruner {
  readonly name = 'prune';
  readonly counter = new ConceptCounter();
  private fixed: number | undefined;
  constructor(readonly rule: number | ScaledCount) {}
  observe(caption: string): void {
    this.counter.add(caption);
  }
  /** The count a concept needs (for a scaled rule: at the number of captions observed so far). */
  threshold(): number {
    if (this.fixed !== undefined) return this.fixed;
    const r = this.rule;
    return typeof r === 'number' ? r : scaledThreshold(r.threshold, this.counter.captions, r.atPairs, r.floor);
  }
  check(caption: string): Verdict {
    this.fixed ??= this.threshold();
    return this.counter.check(caption, this.fixed);
  }
}
