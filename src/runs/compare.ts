/**
 * Two runs' predictions on one split, side by side: images paired by image id, the per-image score
 * difference B − A (CIDEr unless told), each caption's verdict of the ground-truth judge where the run has
 * one (names a present object by name, only by a hypernym, or nothing; hallucinates or not), and summary
 * counts (images B beats A on, ties, mean difference; images only one run has, counted, not dropped).
 * `selectPairs` filters (domain, verdict) and sorts (by the difference, either way) what is shown.
 *
 * Defined once for every view of a comparison: the Captions sidebar (extension/src/runs.ts, through
 * ./layout) and `show.compare` in notebooks (src/notebook/compare.ts). Pure: no file access, no imports;
 * a PredictionsFile of ./layout is a `ComparableFile`.
 */

export type Domain = 'in' | 'near' | 'out';
export const DOMAINS: readonly Domain[] = ['in', 'near', 'out'];

/** What a predictions file holds of one image, as far as a comparison reads it. */
export interface ComparableItem {
  image_id: string | number;
  caption: string;
  references?: string[];
  domain?: string;
  thumb?: string;
  scores?: Record<string, number>;
  grounding?: { named: string[]; byKind?: string[]; hallucinated: string[]; mentions?: number };
}

export interface ComparableFile {
  run: string;
  split: string;
  decoder?: string;
  items: readonly ComparableItem[];
}

/** How a caption refers to what its image shows: a present object by its name, only by a hypernym, or none. */
export type Naming = 'name' | 'kind' | 'none';

/** The judge's verdict on one caption, summed up. */
export interface Verdict {
  naming: Naming;
  /** At least one object mention names nothing in the image. */
  hallucinates: boolean;
  /** "by name", "by hypernym", "nothing present named", with "· hallucinates" when it does. */
  label: string;
}

const NAMING_LABEL: Record<Naming, string> = { name: 'by name', kind: 'by hypernym', none: 'nothing present named' };

export function verdictOf(grounding: ComparableItem['grounding']): Verdict | undefined {
  if (!grounding) return undefined;
  const naming: Naming = grounding.named.length > 0 ? 'name' : (grounding.byKind?.length ?? 0) > 0 ? 'kind' : 'none';
  const hallucinates = grounding.hallucinated.length > 0;
  return { naming, hallucinates, label: NAMING_LABEL[naming] + (hallucinates ? ' · hallucinates' : '') };
}

/** One side's verdict kinds a filter can ask for; `not-name` is `kind` or `none`, `clean` is no hallucination. */
export type VerdictKind = Naming | 'not-name' | 'hallucinates' | 'clean';
/** Verdict changes between A and B (the questions a comparison is for). */
export type VerdictChange = 'b-names' | 'a-names' | 'b-hallucinates' | 'a-hallucinates' | 'differ' | 'same';
/** A change, or a kind asked of A and / or B; pairs without the verdicts asked about do not pass. */
export type VerdictFilter = VerdictChange | { a?: VerdictKind; b?: VerdictKind };

/** The verdict changes, labelled for menus. */
export const VERDICT_CHANGES: readonly { value: VerdictChange; label: string }[] = [
  { value: 'b-names', label: 'B names an object by name, A does not' },
  { value: 'a-names', label: 'A names an object by name, B does not' },
  { value: 'b-hallucinates', label: 'B hallucinates, A does not' },
  { value: 'a-hallucinates', label: 'A hallucinates, B does not' },
  { value: 'differ', label: 'verdicts differ' },
  { value: 'same', label: 'verdicts agree' },
];

const CHANGE_KINDS: Partial<Record<VerdictChange, { a: VerdictKind; b: VerdictKind }>> = {
  'b-names': { a: 'not-name', b: 'name' },
  'a-names': { a: 'name', b: 'not-name' },
  'b-hallucinates': { a: 'clean', b: 'hallucinates' },
  'a-hallucinates': { a: 'hallucinates', b: 'clean' },
};

function isKind(v: Verdict, kind: VerdictKind): boolean {
  switch (kind) {
    case 'not-name':
      return v.naming !== 'name';
    case 'hallucinates':
      return v.hallucinates;
    case 'clean':
      return !v.hallucinates;
    default:
      return v.naming === kind;
  }
}

export interface ComparedSide {
  caption: string;
  /** The compared metric's per-image score (raw coco-caption scale), when the run has it. */
  score?: number;
  scores: Record<string, number>;
  grounding?: ComparableItem['grounding'];
  verdict?: Verdict;
  /** Thumbnail path relative to that run's directory, as its predictions name it. */
  thumb?: string;
}

export interface ComparedPair {
  id: string;
  domain?: Domain;
  /** References of the image (A's, else B's). */
  references: string[];
  a: ComparedSide;
  b: ComparedSide;
  /** B − A of the metric; undefined when a side has no score. */
  diff?: number;
  /** Which caption scores higher ('tie' within the tolerance); undefined when unscored. */
  better?: 'a' | 'b' | 'tie';
}

export interface CompareSummary {
  /** Images in both runs. */
  paired: number;
  bBetter: number;
  aBetter: number;
  ties: number;
  /** Paired images without a score on one side (no difference). */
  unscored: number;
  /** Means over the scored pairs; undefined when there are none. */
  meanA?: number;
  meanB?: number;
  meanDiff?: number;
  /** Pairs with a verdict on both sides, and how the verdicts change among them. */
  judged: number;
  bNames: number;
  aNames: number;
  bHallucinates: number;
  aHallucinates: number;
}

export interface Comparison {
  split: string;
  metric: string;
  /** Differences within ± this count as ties. */
  tie: number;
  a: { run: string; decoder?: string; images: number };
  b: { run: string; decoder?: string; images: number };
  /** In A's order. */
  pairs: ComparedPair[];
  /** Image ids only one run has (not compared), in that run's order. */
  onlyA: string[];
  onlyB: string[];
  /** Image ids a run lists more than once (its first item is compared). */
  duplicatesA: string[];
  duplicatesB: string[];
  summary: CompareSummary;
  byDomain: Partial<Record<Domain, CompareSummary>>;
  /** Whether any pair has a domain, a verdict (so a view offers those filters). */
  hasDomains: boolean;
  hasVerdicts: boolean;
}

export interface CompareOptions {
  /** Per-image metric to compare (default CIDEr). */
  metric?: string;
  /** Differences within ± this are ties (default 1e-9). */
  tie?: number;
}

function side(it: ComparableItem, metric: string): ComparedSide {
  const score = it.scores?.[metric];
  const verdict = verdictOf(it.grounding);
  return {
    caption: it.caption,
    ...(typeof score === 'number' && Number.isFinite(score) ? { score } : {}),
    scores: it.scores ?? {},
    ...(it.grounding ? { grounding: it.grounding } : {}),
    ...(verdict ? { verdict } : {}),
    ...(it.thumb ? { thumb: it.thumb } : {}),
  };
}

function byId(items: readonly ComparableItem[]): { map: Map<string, ComparableItem>; order: string[]; duplicates: string[] } {
  const map = new Map<string, ComparableItem>();
  const order: string[] = [];
  const duplicates = new Set<string>();
  for (const it of items) {
    const id = String(it.image_id);
    if (map.has(id)) duplicates.add(id);
    else {
      map.set(id, it);
      order.push(id);
    }
  }
  return { map, order, duplicates: [...duplicates] };
}

function asDomain(d: string | undefined): Domain | undefined {
  return d === 'in' || d === 'near' || d === 'out' ? d : undefined;
}

/** Pairs two predictions files of one split by image id. */
export function comparePredictions(a: ComparableFile, b: ComparableFile, options: CompareOptions = {}): Comparison {
  if (a.split !== b.split) throw new Error(`runs ${a.run} and ${b.run} are on different splits (${a.split}, ${b.split}): compare runs on one split`);
  const metric = options.metric ?? 'CIDEr';
  const tie = options.tie ?? 1e-9;
  const A = byId(a.items);
  const B = byId(b.items);
  const pairs: ComparedPair[] = [];
  for (const id of A.order) {
    const ia = A.map.get(id)!;
    const ib = B.map.get(id);
    if (!ib) continue;
    const sa = side(ia, metric);
    const sb = side(ib, metric);
    const diff = sa.score !== undefined && sb.score !== undefined ? sb.score - sa.score : undefined;
    const domain = asDomain(ia.domain) ?? asDomain(ib.domain);
    pairs.push({
      id,
      ...(domain ? { domain } : {}),
      references: ia.references ?? ib.references ?? [],
      a: sa,
      b: sb,
      ...(diff !== undefined ? { diff, better: Math.abs(diff) <= tie ? 'tie' : diff > 0 ? 'b' : 'a' } : {}),
    });
  }
  const byDomain: Partial<Record<Domain, CompareSummary>> = {};
  for (const d of DOMAINS) {
    const inD = pairs.filter((p) => p.domain === d);
    if (inD.length > 0) byDomain[d] = summarizePairs(inD);
  }
  return {
    split: a.split,
    metric,
    tie,
    a: { run: a.run, ...(a.decoder ? { decoder: a.decoder } : {}), images: A.order.length },
    b: { run: b.run, ...(b.decoder ? { decoder: b.decoder } : {}), images: B.order.length },
    pairs,
    onlyA: A.order.filter((id) => !B.map.has(id)),
    onlyB: B.order.filter((id) => !A.map.has(id)),
    duplicatesA: A.duplicates,
    duplicatesB: B.duplicates,
    summary: summarizePairs(pairs),
    byDomain,
    hasDomains: pairs.some((p) => p.domain !== undefined),
    hasVerdicts: pairs.some((p) => p.a.verdict !== undefined || p.b.verdict !== undefined),
  };
}

const mean = (xs: number[]): number | undefined => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : undefined);

/** Counts and means of a set of pairs (all of a comparison, a domain, or what a filter shows). */
export function summarizePairs(pairs: readonly ComparedPair[]): CompareSummary {
  const scored = pairs.filter((p) => p.diff !== undefined);
  const judged = pairs.filter((p) => p.a.verdict && p.b.verdict);
  const count = (change: VerdictChange) => judged.filter((p) => verdictPasses(p, change)).length;
  const meanA = mean(scored.map((p) => p.a.score!));
  const meanB = mean(scored.map((p) => p.b.score!));
  const meanDiff = mean(scored.map((p) => p.diff!));
  return {
    paired: pairs.length,
    bBetter: scored.filter((p) => p.better === 'b').length,
    aBetter: scored.filter((p) => p.better === 'a').length,
    ties: scored.filter((p) => p.better === 'tie').length,
    unscored: pairs.length - scored.length,
    ...(meanA !== undefined ? { meanA } : {}),
    ...(meanB !== undefined ? { meanB } : {}),
    ...(meanDiff !== undefined ? { meanDiff } : {}),
    judged: judged.length,
    bNames: count('b-names'),
    aNames: count('a-names'),
    bHallucinates: count('b-hallucinates'),
    aHallucinates: count('a-hallucinates'),
  };
}

function verdictPasses(p: ComparedPair, filter: VerdictFilter): boolean {
  const va = p.a.verdict;
  const vb = p.b.verdict;
  if (filter === 'differ' || filter === 'same') {
    if (!va || !vb) return false;
    const same = va.naming === vb.naming && va.hallucinates === vb.hallucinates;
    return filter === 'same' ? same : !same;
  }
  const kinds = typeof filter === 'string' ? CHANGE_KINDS[filter] : filter;
  if (!kinds) throw new Error(`unknown verdict filter "${String(filter)}"`);
  if (kinds.a !== undefined && !(va && isKind(va, kinds.a))) return false;
  if (kinds.b !== undefined && !(vb && isKind(vb, kinds.b))) return false;
  return true;
}

export type CompareSort = 'diff-desc' | 'diff-asc' | 'id';

export interface CompareSelection {
  /** Only these nocaps domains (one or several); pairs without a domain do not pass. */
  domain?: Domain | readonly Domain[];
  verdict?: VerdictFilter;
  /** By B − A, largest first (default) or smallest first (pairs without a difference last either way), or by image id. */
  sort?: CompareSort;
  /** At most this many pairs, after sorting. */
  limit?: number;
}

const byImageId = (a: ComparedPair, b: ComparedPair) => a.id.localeCompare(b.id, undefined, { numeric: true });

/** The pairs a view shows: filtered by domain and verdict, sorted, cut to `limit`. */
export function selectPairs(pairs: Comparison | readonly ComparedPair[], selection: CompareSelection = {}): ComparedPair[] {
  const all = 'pairs' in pairs ? pairs.pairs : pairs;
  const domains = selection.domain === undefined ? undefined : typeof selection.domain === 'string' ? [selection.domain] : selection.domain;
  const verdict = selection.verdict;
  const out = all.filter((p) => (!domains || (p.domain !== undefined && domains.includes(p.domain))) && (verdict === undefined || verdictPasses(p, verdict)));
  const sort = selection.sort ?? 'diff-desc';
  if (sort === 'id') out.sort(byImageId);
  else {
    const sign = sort === 'diff-desc' ? -1 : 1;
    out.sort((x, y) => {
      if (x.diff === undefined || y.diff === undefined) return x.diff === undefined ? (y.diff === undefined ? byImageId(x, y) : 1) : -1;
      return sign * (x.diff - y.diff) || byImageId(x, y);
    });
  }
  return selection.limit !== undefined && selection.limit >= 0 ? out.slice(0, selection.limit) : out;
}

// ---- words, shared by the views ----------------------------------------------------------------------

/** A signed number: "+0.523", "−1.200" (a real minus sign), "0.000". */
export function signed(x: number, digits = 3): string {
  const s = Math.abs(x).toFixed(digits);
  if (Number(s) === 0) return (0).toFixed(digits);
  return (x > 0 ? '+' : '−') + s;
}

function ids(list: readonly string[], max = 8): string {
  const shown = list.slice(0, max).join(', ');
  return list.length > max ? `${shown}, … (${list.length - max} more)` : shown;
}

const images = (n: number) => `${n} image${n === 1 ? '' : 's'}`;

/** Why some images are not compared (in one run only, listed twice), or '' when all are. */
export function unmatchedNote(c: Comparison): string {
  const parts: string[] = [];
  if (c.onlyA.length) parts.push(`${images(c.onlyA.length)} only in A (${c.a.run}: ${ids(c.onlyA)})`);
  if (c.onlyB.length) parts.push(`${images(c.onlyB.length)} only in B (${c.b.run}: ${ids(c.onlyB)})`);
  let note = parts.length ? `${parts.join('; ')}: not compared.` : '';
  const dup = [...c.duplicatesA.map((id) => `A ${id}`), ...c.duplicatesB.map((id) => `B ${id}`)];
  if (dup.length) note += `${note ? ' ' : ''}Listed more than once (the first is compared): ${ids(dup)}.`;
  return note;
}

/** "B − A CIDEr: mean +0.123 over 12 images; B better on 8, A better on 2, ties on 2." (scores × `scale`). */
export function summaryText(s: CompareSummary, metric: string, options: { scale?: number; digits?: number } = {}): string {
  const scale = options.scale ?? 1;
  const digits = options.digits ?? (scale === 1 ? 3 : 1);
  const name = scale === 1 ? metric : `${metric}×${scale}`;
  const scored = s.paired - s.unscored;
  const mean = s.meanDiff !== undefined ? `mean ${signed(s.meanDiff * scale, digits)} over ${images(scored)}` : `no ${metric} on both sides`;
  const unscored = s.unscored ? `, ${s.unscored} without a score on both sides` : '';
  return `B − A ${name}: ${mean}; B better on ${s.bBetter}, A better on ${s.aBetter}, ties on ${s.ties}${unscored}.`;
}

/** "Of 12 images judged on both sides: B names an object by name where A does not on 3, …", or ''. */
export function verdictText(s: CompareSummary): string {
  if (s.judged === 0) return '';
  return (
    `Of ${images(s.judged)} judged in both runs: B names a present object by name where A does not on ${s.bNames}, A where B does not on ${s.aNames}; ` +
    `B hallucinates where A does not on ${s.bHallucinates}, A where B does not on ${s.aHallucinates}.`
  );
}

/** "By domain: in +42.2 (B better on 1 of 2) · near … · out …", or '' without domains (scores × `scale`). */
export function domainText(c: Comparison, options: { scale?: number; digits?: number } = {}): string {
  const scale = options.scale ?? 1;
  const digits = options.digits ?? (scale === 1 ? 3 : 1);
  const parts = DOMAINS.flatMap((d) => {
    const s = c.byDomain[d];
    if (!s) return [];
    const mean = s.meanDiff !== undefined ? signed(s.meanDiff * scale, digits) : '–';
    return [`${d} ${mean} (B better on ${s.bBetter} of ${s.paired})`];
  });
  return parts.length ? `Mean B − A by domain: ${parts.join(' · ')}.` : '';
}
