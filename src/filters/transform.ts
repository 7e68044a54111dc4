/**
 * CC3M §3 "Text transformation with hypernymization" (Sharma et al. 2018), and the low-count
 * concept pruning that follows it.
 *
 * The paper ran Google Cloud Natural Language over each alt-text and used the Google Knowledge
 * Graph to map entities to hypernyms: "noun modifiers of certain types (proper nouns, numbers,
 * units) are removed; dates, durations, and preposition-based locations (e.g., 'in Los Angeles')
 * are removed; named-entities are identified, matched against the KG entries, and substitute with
 * their hypernym; resulting coordination noun-phrases with the same head (e.g., 'actor and actor')
 * are resolved into a single, plural head noun (e.g., 'actors')". Here wink-nlp (src/filters/nlp.ts)
 * gives tokens, POS tags and lemmas, persons come from src/filters/persons.ts, and WordNet 3.1 is the
 * open stand-in for the Knowledge Graph (instances: places; hypernyms: fine-grained nouns). Dates and
 * durations are found by patterns over the tokens (months, years, weekdays, "10 minutes", …).
 *
 * ## Which nouns are hypernymised
 * `hypernymRule` (src/filters/hypernyms.ts) chooses. 'entities' (the default, the paper's rule): named things
 * only: persons as below, capitalised runs WordNet knows as instances → their class ("Canada" → country,
 * "Manitoba" → province), removed before a noun or in a locative phrase; the image's labels or the caption's
 * words pick the sense; common nouns stay. 'every-noun' (cckit's earlier rule; the embedded world until
 * issue #26) adds rules 1 and 2 below and its own place rule (`handlePlaces` without labels).
 *  1. Nouns naming a concept of the injected concept catalog (src/wordnet/catalog.ts; multi-word
 *     names such as "spotted owl" match as one): with `catalogRule: 'long-tail'` (default) the
 *     catalog's fine-grained concepts become their hypernym and its common concepts are kept;
 *     'all' hypernymises common concepts too; 'none' keeps all. Real data gets the WordNet catalog
 *     (the default: beagle → hound, dachshund → dog, dog stays dog); the embedded world's callers
 *     pass the world's catalog (src/world/catalog.ts: durian → fruit, sitar → instrument, the 80
 *     COCO concepts kept).
 *  2. Any other noun is hypernymised when WordNet says it is fine-grained and rare: its first noun
 *     sense is a concrete thing (lexicographer files animal, artifact, food, plant), a leaf of the
 *     hierarchy (no hyponyms), and its noun senses carry fewer than `rareBelow` SemCor tags (default
 *     1: never tagged). Its replacement is the nearest hypernym on the first hypernym path whose head
 *     word is a common (≥ 2 SemCor tags), non-abstract noun ("kumquat" → "fruit").
 * Named entities: a person becomes the occupation word before the name ("actor Harrison Ford" →
 * "actor"), else "person"; a place outside a locative prepositional phrase becomes "city",
 * "country", "place", or its class for a landmark ("the Eiffel Tower" → "the tower").
 *
 * ## Low-count concept pruning (CC3M §3, end)
 * "we cluster all resolved entities … and remove all the <image, caption> pairs that contain
 * entities whose class count is below 100". `ConceptCounter` counts, over a dataset's transformed
 * captions, the concept nouns of each caption (lemmatised nouns, once per caption); a caption is
 * kept when every one of its concepts has a count ≥ the threshold. 100 was for 3.3M pairs;
 * `ConceptPruner` scales it to the pairs that reach the stage (src/filters/scale.ts).
 *
 * ## Layout
 * This file runs the passes in order; each lives in src/filters/transform/ so it reads on its own: `dates.ts`,
 * `places.ts`, `modifiers.ts`, `hypernymise.ts`, `coordination.ts`, over the token pieces of `pieces.ts`, with
 * the word lists in `words.ts`, the options in `options.ts` and the pruning stage in `concept-pruning.ts`.
 */
import { analyse, Token } from './nlp';
import { CandidatePair, Verdict, keep, reject } from './types';
import { PERSON_TOKEN } from '../text/tokens';
import { findPersons } from './persons';
import { Cc3mTransformOptions, DEFAULT_CC3M_TRANSFORM } from './transform/options';
import { Piece, nounBase, render } from './transform/pieces';
import { dropDates } from './transform/dates';
import { handlePlaces } from './transform/places';
import { dropModifiers } from './transform/modifiers';
import { hypernymise } from './transform/hypernymise';
import { mergeCoordination } from './transform/coordination';

export type { Cc3mTransformOptions } from './transform/options';
export { DEFAULT_CC3M_TRANSFORM } from './transform/options';
export type { ScaledCount } from './transform/concept-pruning';
export { ConceptCounter, ConceptPruner, conceptsOf } from './transform/concept-pruning';

/** Whether most letters are upper case, or most words are capitalised (no case signal). */
function noisyCase(text: string): boolean {
  const words = text.match(/\p{L}[\p{L}'’-]*/gu) ?? [];
  if (words.length < 3) return false;
  const upper = words.filter((w) => w.length >= 2 && w === w.toUpperCase()).length;
  if (upper / words.length >= 0.8) return true;
  const cap = words.filter((w) => w[0] !== w[0]!.toLowerCase()).length;
  return cap / words.length >= 0.85;
}

/** CC3M §3's caption rewrite as a pipeline stage (src/filters/pipeline.ts PairStage). */
export class Cc3mTransform {
  readonly name = 'transform';
  readonly options: Cc3mTransformOptions;

  constructor(options: Partial<Cc3mTransformOptions> = {}) {
    this.options = { ...DEFAULT_CC3M_TRANSFORM, ...options };
  }

  /** PairStage-compatible entry point (src/filters/pipeline.ts). */
  check(pair: CandidatePair): Verdict {
    return this.transform(pair.caption, pair.tags);
  }

  /** The transformed caption, or a rejection (`transform:too-short`). `labels`: the image's tags, if any. */
  transform(caption: string, labels?: readonly string[]): Verdict {
    const out = this.rewrite(caption, labels);
    const words = out.match(/[\p{L}\p{N}<>]+/gu) ?? [];
    if (words.length < this.options.minTokens)
      return reject('transform:too-short', `"${out.slice(0, 200)}" has ${words.length} words after the transform; at least ${this.options.minTokens}`);
    return keep(out);
  }

  /** The rewritten caption without the length check (`labels` pick senses under the 'entities' rule). */
  rewrite(caption: string, labels?: readonly string[]): string {
    const o = this.options;
    let text = caption.replace(/\s+/g, ' ').trim();
    // §3 named entities, persons: role word or "person" (CC12M's <PERSON> placeholder too)
    if (o.replaceEntities) text = this.replaceNames(text);
    const noisy = noisyCase(text);
    if (noisy) text = text.toLowerCase();
    const pieces: Piece[] = analyse(text).tokens.map((t: Token, i, all) => ({
      text: t.text,
      lower: t.lower,
      pos: t.pos,
      space: i === 0 ? '' : text.slice(all[i - 1]!.end, t.start),
      isWord: t.isWord,
      capital: t.isCapitalised,
      gone: false,
      fixed: false,
    }));
    if (o.removeDates) dropDates(pieces);
    if (o.removeLocations || o.replaceEntities) handlePlaces(pieces, noisy, o, o.hypernymRule === 'entities' ? (labels ?? []) : undefined);
    if (o.removeModifiers) dropModifiers(pieces, noisy, o.hypernymRule);
    if (o.hypernymize && o.hypernymRule === 'every-noun') hypernymise(pieces, o);
    // "durian fruit" → "fruit fruit" → "fruit": a replacement equal to its neighbour collapses
    let kept = pieces.filter((p) => !p.gone);
    kept = kept.filter((p, i) => !(p.fixed && kept[i + 1] !== undefined && kept[i + 1]!.isWord && nounBase(kept[i + 1]!.lower) === nounBase(p.lower)));
    if (o.mergeCoordination) kept = mergeCoordination(kept);
    return render(kept, o.lowercase);
  }

  private replaceNames(text: string): string {
    let out = '';
    let at = 0;
    const spans = findPersons(text).map((s) => ({ start: s.start, end: s.end, role: s.role }));
    for (let i = text.indexOf(PERSON_TOKEN); i >= 0; i = text.indexOf(PERSON_TOKEN, i + 1))
      spans.push({ start: i, end: i + PERSON_TOKEN.length, role: undefined });
    spans.sort((a, b) => a.start - b.start);
    for (const s of spans) {
      if (s.start < at) continue;
      if (s.role !== undefined) {
        // "Actor Harrison Ford attends" → "Actor attends": the role word stands for the person
        out += text.slice(at, s.start).replace(/\s+$/, '');
      } else out += text.slice(at, s.start) + 'person';
      at = s.end;
    }
    return out + text.slice(at);
  }
}
