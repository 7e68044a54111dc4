/**
 * The Captions sidebar's comparison of two runs (page side): draws what the extension host sends (the
 * pairs already filtered and sorted by src/runs/compare.ts, the counts and their words) and sends the
 * filter / sort / selection changes back. Nothing is computed here but the HTML.
 */
import { compareSide, diffBadge } from '../src/captionsHtml';
import { escapeHtml, highlight, highlightHtml } from '../src/ngrams';

interface Side {
  caption: string;
  score?: number;
  grounding?: { named: string[]; byKind?: string[]; hallucinated: string[] };
  verdict?: { naming: string; hallucinates: boolean; label: string };
}

export interface Pair {
  id: string;
  domain?: string;
  references: string[];
  a: Side;
  b: Side;
  diff?: number;
  diffText?: string;
  better?: 'a' | 'b' | 'tie';
  thumb?: string;
  thumbNote?: string;
}

export interface CompareFilters {
  domains: string[];
  verdict: string;
  sort: 'diff-desc' | 'diff-asc' | 'id';
}

export interface CompareState {
  a: { id: string; name?: string; status: string; dir: string };
  b: { id: string; name?: string; status: string; dir: string };
  splits: string[];
  split: string;
  metric: string;
  summary: string;
  domains: string;
  verdicts: string;
  unmatched: string;
  onlyA: number;
  onlyB: number;
  paired: number;
  hasDomains: boolean;
  hasVerdicts: boolean;
  verdictOptions: { value: string; label: string }[];
  filters: CompareFilters;
  pairs: Pair[];
}

const side = (s: Side) => ({
  caption: s.caption,
  ...(s.score !== undefined ? { score: s.score } : {}),
  ...(s.grounding ? { grounding: s.grounding } : {}),
  ...(s.verdict ? { verdict: s.verdict.label } : {}),
});

function detail(p: Pair, metric: string): string {
  return (
    `<section class="detail compare-detail" data-id="${escapeHtml(p.id)}">` +
    (p.thumb
      ? `<img class="large" src="${escapeHtml(p.thumb)}" alt="image ${escapeHtml(p.id)}">`
      : `<div class="noimg large">${escapeHtml(p.thumbNote ?? 'no thumbnail')}</div>`) +
    `<div class="meta"><span class="id">#${escapeHtml(p.id)}</span>${p.domain ? `<span class="domain ${escapeHtml(p.domain)}">${escapeHtml(p.domain)}</span>` : ''}${diffBadge(p.diff, p.diffText, p.better, metric)}</div>` +
    compareSide('A', side(p.a), p.references, metric) +
    compareSide('B', side(p.b), p.references, metric) +
    `<ol class="refs">${p.references.map((r) => `<li>${highlightHtml(highlight(r, [p.a.caption, p.b.caption]))}</li>`).join('')}</ol>` +
    '</section>'
  );
}

function label(r: { id: string; name?: string }): string {
  return r.name ? `${r.id} — ${r.name}` : r.id;
}

/**
 * The filters last sent to the host: the page's own state once the user changed one, so that a second change
 * made before the host's answer to the first builds on the first (the host's echo may be one step behind).
 */
let latest: CompareFilters | undefined;

/** The comparison below the header; `selected` is the image shown large. */
export function renderCompare(c: CompareState, notice: string | undefined, selected: string | undefined): string {
  const f = latest ?? c.filters;
  const sel = c.pairs.find((p) => p.id === selected) ?? c.pairs[0];
  const fmt = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(3));
  return (
    '<div class="summary compare-summary">' +
    `<div class="runs"><span class="tag">A</span>${escapeHtml(label(c.a))}</div><div class="runs"><span class="tag b">B</span>${escapeHtml(label(c.b))}</div>` +
    `<div class="cmp-line totals">${escapeHtml(c.summary)}</div>` +
    (c.domains ? `<div class="cmp-line domains">${escapeHtml(c.domains)}</div>` : '') +
    (c.verdicts ? `<div class="cmp-line verdicts">${escapeHtml(c.verdicts)}</div>` : '') +
    (c.unmatched ? `<div class="cmp-line unmatched">${escapeHtml(c.unmatched)}</div>` : '') +
    '</div>' +
    (notice ? `<p class="muted notice">${escapeHtml(notice)}</p>` : '') +
    '<fieldset class="filters compare-filters">' +
    (c.hasDomains
      ? ['in', 'near', 'out']
          .map((d) => `<label class="dom"><input type="checkbox" data-cdomain="${d}"${f.domains.includes(d) ? ' checked' : ''}>${d}</label>`)
          .join('')
      : '') +
    (c.hasVerdicts
      ? `<label>Verdict <select id="cverdict"><option value="">any</option>${c.verdictOptions
          .map((o) => `<option value="${escapeHtml(o.value)}"${f.verdict === o.value ? ' selected' : ''}>${escapeHtml(o.label)}</option>`)
          .join('')}</select></label>`
      : '') +
    `<label>Sort <select id="csort">${[
      ['diff-desc', `B − A ${c.metric}: high → low`],
      ['diff-asc', `B − A ${c.metric}: low → high`],
      ['id', 'image id'],
    ]
      .map(([v, l]) => `<option value="${v}"${f.sort === v ? ' selected' : ''}>${escapeHtml(l!)}</option>`)
      .join('')}</select></label>` +
    '</fieldset>' +
    (sel ? detail(sel, c.metric) : '') +
    `<div class="count">${c.pairs.length} of ${c.paired} paired images${c.onlyA + c.onlyB ? ` (${c.onlyA} only in A, ${c.onlyB} only in B: not compared)` : ''}</div>` +
    '<ul class="items pairs">' +
    c.pairs
      .map(
        (p) =>
          `<li class="item pair${sel && p.id === sel.id ? ' selected' : ''}" data-id="${escapeHtml(p.id)}" tabindex="0">` +
          (p.thumb
            ? `<img class="thumb" src="${escapeHtml(p.thumb)}" alt="">`
            : `<div class="thumb noimg"${p.thumbNote ? ` title="${escapeHtml(p.thumbNote)}"` : ''}></div>`) +
          '<div class="text">' +
          `<div class="cap a"><span class="tag">A</span>${escapeHtml(p.a.caption)}</div>` +
          `<div class="cap b"><span class="tag b">B</span>${escapeHtml(p.b.caption)}</div>` +
          `<div class="meta">${p.domain ? `<span class="domain ${escapeHtml(p.domain)}">${escapeHtml(p.domain)}</span>` : ''}${diffBadge(p.diff, p.diffText, p.better, c.metric)}` +
          `<span class="score" title="${escapeHtml(c.metric)} of A, B">${fmt(p.a.score)} → ${fmt(p.b.score)}</span></div>` +
          (p.a.verdict || p.b.verdict
            ? `<div class="verdicts"><span class="verdict">A: ${escapeHtml(p.a.verdict?.label ?? '–')}</span> <span class="verdict">B: ${escapeHtml(p.b.verdict?.label ?? '–')}</span></div>`
            : '') +
          '</div></li>',
      )
      .join('') +
    '</ul>'
  );
}

/** Wires the comparison's controls: filter / sort changes go to the host, a click selects an image here. */
export function bindCompare(c: CompareState, send: (filters: CompareFilters) => void, select: (id: string) => void): void {
  const change = (patch: (f: CompareFilters) => Partial<CompareFilters>) => {
    const base = latest ?? c.filters;
    latest = { ...base, domains: [...base.domains], ...patch(base) };
    send(latest);
  };
  document.querySelectorAll<HTMLInputElement>('input[data-cdomain]').forEach((cb) =>
    cb.addEventListener('change', () => {
      const d = cb.dataset.cdomain!;
      change((f) => ({ domains: cb.checked ? [...new Set([...f.domains, d])] : f.domains.filter((x) => x !== d) }));
    }),
  );
  const verdict = document.getElementById('cverdict') as HTMLSelectElement | null;
  verdict?.addEventListener('change', () => change(() => ({ verdict: verdict.value })));
  const sort = document.getElementById('csort') as HTMLSelectElement | null;
  sort?.addEventListener('change', () => change(() => ({ sort: sort.value as CompareFilters['sort'] })));
  document.querySelectorAll<HTMLElement>('li.pair').forEach((li) => {
    const pick = () => select(li.dataset.id!);
    li.addEventListener('click', pick);
    li.addEventListener('keydown', (e) => (e.key === 'Enter' || e.key === ' ') && pick());
  });
}
