/**
 * The 'every-noun' rule's noun hypernymisation (rules 1 and 2 of transform.ts's module comment): catalog concepts and
 * rare, fine-grained WordNet nouns become a common hypernym. The 'entities' rule does not run it.
 */
import { wordnet } from '../../wordnet';
import { headWord } from '../../wordnet/nouns';
import { synsetTagCount } from '../../wordnet/sense-tags';
import { wordnetCatalog } from '../../wordnet/catalog';
import type { Cc3mTransformOptions } from './options';
import { Piece, nounBase, pluralOf, replaceRun } from './pieces';
import { ABSTRACT, CONCRETE_LEX_FILES } from './words';

const tagMemo = new Map<string, number>();

/** SemCor tags over the noun synsets of a lemma. */
function nounTagCount(lemma: string): number {
  let n = tagMemo.get(lemma);
  if (n === undefined) {
    n = wordnet()
      .synsetsOfLemma(lemma, 'n')
      .reduce((s, id) => s + synsetTagCount(id), 0);
    tagMemo.set(lemma, n);
  }
  return n;
}

const fallbackMemo = new Map<string, string | null>();

/** Rule 2: the basic-level hypernym of a rare, fine-grained concrete noun, or null. */
function wordnetHypernym(lemma: string, rareBelow: number): string | null {
  const key = `${rareBelow}:${lemma}`;
  const memo = fallbackMemo.get(key);
  if (memo !== undefined) return memo;
  let out: string | null = null;
  const wn = wordnet();
  const senses = wn.synsetsOfLemma(lemma, 'n');
  const first = senses[0];
  if (first !== undefined && nounTagCount(lemma) < rareBelow) {
    const rec = wn.synset(first);
    const leaf = !rec.pointers.some((p) => p.symbol === '~' || p.symbol === '~i');
    const instance = rec.pointers.some((p) => p.symbol === '@i');
    if (leaf && !instance && CONCRETE_LEX_FILES.has(rec.lexFileNum)) {
      let cur = first;
      for (let depth = 0; depth < 12 && out === null; depth++) {
        const up = wn.hypernyms(cur)[0];
        if (up === undefined) break;
        cur = up;
        const name = wn.synset(up).lemmas[0]!.replace(/_/g, ' ');
        const head = headWord(name);
        if (ABSTRACT.has(name) || ABSTRACT.has(head) || head === lemma) continue;
        if (nounTagCount(head) >= 2) out = head;
      }
    }
  }
  fallbackMemo.set(key, out);
  return out;
}

/** Replaces the catalog's concepts (rule 1) and rare WordNet nouns (rule 2) among the live pieces by their hypernym. */
export function hypernymise(p: Piece[], o: Cc3mTransformOptions): void {
  const catalog = o.catalog ?? wordnetCatalog();
  const longest = Math.min(catalog.longestName, 3);
  const live = p.filter((t) => !t.gone);
  for (let i = 0; i < live.length; i++) {
    const t = live[i]!;
    if (t.fixed || !t.isWord || !/^[\p{L}-]+$/u.test(t.lower)) continue;
    let done = false;
    for (let len = Math.min(longest, live.length - i); len >= 1 && !done; len--) {
      const run = live.slice(i, i + len);
      if (run.some((u) => u.fixed || !/^[\p{L}-]+$/u.test(u.lower))) continue;
      const last = run[len - 1]!;
      if (last.pos !== 'NOUN' && last.pos !== 'PROPN' && !(len > 1 && last.pos === 'ADJ')) continue;
      const base = nounBase(last.lower);
      const isPlural = base !== last.lower;
      const name = [...run.slice(0, -1).map((u) => u.lower), base].join(' ');
      const concept = catalog.concept(name);
      if (concept === undefined) continue;
      done = true;
      const replace = o.catalogRule === 'all' || (o.catalogRule === 'long-tail' && !concept.common);
      if (!replace) {
        run.forEach((u) => (u.fixed = true));
        break;
      }
      const hyper = concept.hypernym;
      replaceRun(live, i, len, isPlural ? pluralOf(hyper) : hyper);
    }
    if (done || t.pos !== 'NOUN') continue;
    const base = nounBase(t.lower);
    const hyper = wordnetHypernym(base, o.rareBelow);
    if (hyper !== null) replaceRun(live, i, 1, base !== t.lower ? pluralOf(hyper) : hyper);
  }
}
