/**
 * The Captions sidebar's page script (runs inside the webview; bundled by esbuild). Receives the run from
 * the extension by message, filters and sorts in place, and shows the selected image large with the
 * n-grams shared by caption and references highlighted, and (world data) the objects each caption
 * names or hallucinates with the split's recall / CHAIR figures. Filter state survives the view being hidden.
 * With "compare with…" it shows two runs side by side instead (compare.ts; filtered and sorted by the host).
 */
import { groundingChips, groundingSummary, type GroundingFiguresView } from '../src/captionsHtml';
import { escapeHtml, highlight, highlightHtml, ngramPrecision } from '../src/ngrams';
import { bindCompare, renderCompare, type CompareState } from './compare';

interface Item {
  id: string;
  caption: string;
  references: string[];
  domain?: string;
  thumb?: string;
  /** Why there is no thumbnail (outside the run, untrusted workspace). */
  thumbNote?: string;
  scores: Record<string, number>;
  grounding?: { named: string[]; hallucinated: string[] };
}
interface RunSummary {
  id: string;
  name?: string;
  status: string;
  dir: string;
}
interface StateMessage {
  type: 'state';
  runs: RunSummary[];
  runsRoot?: string;
  error?: string;
  /** Runs the shown run can be compared with (same split). */
  candidates?: RunSummary[];
  /** Run B when comparing; `compare` is the comparison (absent with an error). */
  compareDir?: string;
  compare?: CompareState;
  /** A line above the run (e.g. why thumbnails are not shown). */
  notice?: string;
  run?: {
    dir: string;
    info: { id: string; name?: string; status: string };
    splits: string[];
    split: string;
    decoder?: string;
    items: Item[];
    corpus?: Record<string, number>;
    domains?: Record<string, Record<string, number>>;
    grounding?: { overall: GroundingFiguresView } & Partial<Record<string, GroundingFiguresView>>;
  };
}
interface Filters {
  domains: string[];
  min: string;
  max: string;
  word: string;
  sort: 'score-desc' | 'score-asc' | 'id' | 'caption';
  selected?: string;
  /** The image shown large in a comparison. */
  compareSelected?: string;
}

declare function acquireVsCodeApi(): { postMessage(m: unknown): void; getState(): unknown; setState(s: unknown): void };
const vscode = acquireVsCodeApi();
const app = document.getElementById('app')!;
const METRIC = 'CIDEr';

let data: StateMessage | undefined;
const filters: Filters = { domains: ['in', 'near', 'out'], min: '', max: '', word: '', sort: 'score-desc', ...((vscode.getState() as Partial<Filters>) ?? {}) };

function save(): void {
  vscode.setState(filters);
}

function score(it: Item): number | undefined {
  const v = it.scores[METRIC];
  return typeof v === 'number' ? v : undefined;
}

function fmt(n: number | undefined): string {
  return n === undefined ? '–' : n.toFixed(3);
}

export function visibleItems(items: Item[], f: Filters): Item[] {
  const min = f.min.trim() === '' ? -Infinity : Number(f.min);
  const max = f.max.trim() === '' ? Infinity : Number(f.max);
  const word = f.word.trim().toLowerCase();
  const out = items.filter((it) => {
    if (it.domain && !f.domains.includes(it.domain)) return false;
    const s = score(it);
    if ((Number.isFinite(min) || Number.isFinite(max)) && (s === undefined || s < min || s > max)) return false;
    if (word && !(it.caption.toLowerCase().includes(word) || it.references.some((r) => r.toLowerCase().includes(word)))) return false;
    return true;
  });
  const by = {
    'score-desc': (a: Item, b: Item) => (score(b) ?? -Infinity) - (score(a) ?? -Infinity),
    'score-asc': (a: Item, b: Item) => (score(a) ?? Infinity) - (score(b) ?? Infinity),
    id: (a: Item, b: Item) => a.id.localeCompare(b.id, undefined, { numeric: true }),
    caption: (a: Item, b: Item) => a.caption.localeCompare(b.caption),
  }[f.sort];
  return out.sort(by);
}

function detail(it: Item): string {
  const prec = ngramPrecision(it.caption, it.references);
  const scores = Object.entries(it.scores)
    .map(([k, v]) => `<span><b>${escapeHtml(k)}</b> ${fmt(v)}</span>`)
    .join(' ');
  return (
    `<section class="detail" data-id="${escapeHtml(it.id)}">` +
    (it.thumb
      ? `<img class="large" src="${escapeHtml(it.thumb)}" alt="image ${escapeHtml(it.id)}">`
      : `<div class="noimg large">${escapeHtml(it.thumbNote ?? 'no thumbnail')}</div>`) +
    `<div class="pred">${highlightHtml(highlight(it.caption, it.references))}</div>` +
    `<div class="meta"><span class="id">#${escapeHtml(it.id)}</span>${it.domain ? `<span class="domain ${escapeHtml(it.domain)}">${escapeHtml(it.domain)}</span>` : ''}${scores}</div>` +
    groundingChips(it.grounding) +
    `<div class="prec">n-gram precision: ${prec.map((p, i) => `${i + 1}: ${(p * 100).toFixed(0)}%`).join(' · ')}</div>` +
    `<ol class="refs">${it.references.map((r) => `<li>${highlightHtml(highlight(r, [it.caption]))}</li>`).join('')}</ol>` +
    '</section>'
  );
}

const runLabel = (r: { id: string; name?: string }) => (r.name ? `${r.id} — ${r.name}` : r.id);

/** Run (A), split, and "compare with…" (B). */
function header(d: StateMessage): string {
  const runs = d.runs;
  const cmp = d.compare;
  const current = cmp ? { dir: cmp.a.dir, id: cmp.a.id } : d.run ? { dir: d.run.dir, id: d.run.info.id } : undefined;
  const splits = cmp?.splits ?? d.run?.splits;
  const split = cmp?.split ?? d.run?.split;
  const runOptions = runs
    .map((r) => `<option value="${escapeHtml(r.dir)}"${current && r.dir === current.dir ? ' selected' : ''}>${escapeHtml(runLabel(r))}</option>`)
    .join('');
  let html = `<header><label>${d.compareDir ? 'A' : 'Run'} <select id="run">${current && !runs.some((r) => r.dir === current.dir) ? `<option value="${escapeHtml(current.dir)}" selected>${escapeHtml(current.id)}</option>` : ''}${runOptions}</select></label>`;
  if (splits)
    html += ` <label>Split <select id="split">${splits.map((s) => `<option${s === split ? ' selected' : ''}>${escapeHtml(s)}</option>`).join('')}</select></label>`;
  const candidates = d.candidates ?? [];
  if (current && (candidates.length > 0 || d.compareDir)) {
    const b = d.compareDir;
    const known = candidates.some((r) => r.dir === b);
    html +=
      `<label class="compare-with">${b ? 'B' : 'Compare with'} <select id="compare"><option value="">${b ? 'no comparison' : '…'}</option>` +
      (b && !known ? `<option value="${escapeHtml(b)}" selected>${escapeHtml(cmp?.b.id ?? b)}</option>` : '') +
      candidates.map((r) => `<option value="${escapeHtml(r.dir)}"${r.dir === b ? ' selected' : ''}>${escapeHtml(runLabel(r))}</option>`).join('') +
      '</select></label>' +
      (b ? '<button id="swap" title="Swap A and B">A ⇄ B</button>' : '');
  }
  return html + '</header>';
}

function render(): void {
  if (!data) return;
  const run = data.run;
  let html = header(data);
  if (data.compare && !data.error) {
    const c = data.compare;
    if (!filters.compareSelected || !c.pairs.some((p) => p.id === filters.compareSelected)) filters.compareSelected = c.pairs[0]?.id;
    app.innerHTML = html + renderCompare(c, data.notice, filters.compareSelected);
    bind();
    bindCompare(
      c,
      (f) => vscode.postMessage({ type: 'compareFilters', filters: f }),
      (id) => {
        filters.compareSelected = id;
        update();
      },
    );
    return;
  }
  if (data.error || !run) {
    app.innerHTML = html + `<p class="muted">${escapeHtml(data.error ?? 'No run.')}</p>`;
    bind();
    return;
  }
  const corpus = run.corpus
    ? Object.entries(run.corpus)
        .map(([k, v]) => `<span><b>${escapeHtml(k)}</b> ${fmt(v)}</span>`)
        .join(' ')
    : '';
  const shown = visibleItems(run.items, filters);
  if (!filters.selected || !run.items.some((i) => i.id === filters.selected)) filters.selected = shown[0]?.id;
  const selected = run.items.find((i) => i.id === filters.selected);
  html +=
    `<div class="summary"><span class="status ${escapeHtml(run.info.status)}">${escapeHtml(run.info.status)}</span> ${escapeHtml(run.info.name ?? run.info.id)}${run.decoder ? ` · ${escapeHtml(run.decoder)}` : ''}` +
    (corpus ? `<div class="corpus">${corpus}</div>` : '') +
    groundingSummary(run.grounding) +
    '</div>' +
    (data.notice ? `<p class="muted notice">${escapeHtml(data.notice)}</p>` : '') +
    '<fieldset class="filters">' +
    ['in', 'near', 'out']
      .map((d) => `<label class="dom"><input type="checkbox" data-domain="${d}"${filters.domains.includes(d) ? ' checked' : ''}>${d}</label>`)
      .join('') +
    `<label>${METRIC} <input id="min" type="number" step="0.1" placeholder="min" value="${escapeHtml(filters.min)}">–<input id="max" type="number" step="0.1" placeholder="max" value="${escapeHtml(filters.max)}"></label>` +
    `<input id="word" type="search" placeholder="word in caption or references" value="${escapeHtml(filters.word)}">` +
    `<label>Sort <select id="sort">${[
      ['score-desc', `${METRIC} high → low`],
      ['score-asc', `${METRIC} low → high`],
      ['id', 'image id'],
      ['caption', 'caption'],
    ]
      .map(([v, l]) => `<option value="${v}"${filters.sort === v ? ' selected' : ''}>${l}</option>`)
      .join('')}</select></label>` +
    '</fieldset>' +
    (selected ? detail(selected) : '') +
    `<div class="count">${shown.length} of ${run.items.length} predictions</div>` +
    '<ul class="items">' +
    shown
      .map(
        (it) =>
          `<li class="item${it.id === filters.selected ? ' selected' : ''}" data-id="${escapeHtml(it.id)}" tabindex="0">` +
          (it.thumb
            ? `<img class="thumb" src="${escapeHtml(it.thumb)}" alt="">`
            : `<div class="thumb noimg"${it.thumbNote ? ` title="${escapeHtml(it.thumbNote)}"` : ''}></div>`) +
          `<div class="text"><div class="cap">${escapeHtml(it.caption)}</div><div class="meta">${it.domain ? `<span class="domain ${escapeHtml(it.domain)}">${escapeHtml(it.domain)}</span>` : ''}<span class="score">${METRIC} ${fmt(score(it))}</span></div>${groundingChips(it.grounding)}</div></li>`,
      )
      .join('') +
    '</ul>';
  app.innerHTML = html;
  bind();
}

function bind(): void {
  const run = document.getElementById('run') as HTMLSelectElement | null;
  run?.addEventListener('change', () => vscode.postMessage({ type: 'selectRun', dir: run.value }));
  const split = document.getElementById('split') as HTMLSelectElement | null;
  split?.addEventListener('change', () => vscode.postMessage({ type: 'selectSplit', split: split.value }));
  const compare = document.getElementById('compare') as HTMLSelectElement | null;
  compare?.addEventListener('change', () => vscode.postMessage({ type: 'compareWith', dir: compare.value }));
  document.getElementById('swap')?.addEventListener('click', () => vscode.postMessage({ type: 'swapRuns' }));
  document.querySelectorAll<HTMLInputElement>('input[data-domain]').forEach((cb) =>
    cb.addEventListener('change', () => {
      const d = cb.dataset.domain!;
      filters.domains = cb.checked ? [...new Set([...filters.domains, d])] : filters.domains.filter((x) => x !== d);
      update();
    }),
  );
  for (const id of ['min', 'max', 'word'] as const) {
    const el = document.getElementById(id) as HTMLInputElement | null;
    el?.addEventListener('input', () => {
      filters[id] = el.value;
      update(id);
    });
  }
  const sort = document.getElementById('sort') as HTMLSelectElement | null;
  sort?.addEventListener('change', () => {
    filters.sort = sort.value as Filters['sort'];
    update();
  });
  document.querySelectorAll<HTMLElement>('li.item').forEach((li) => {
    const pick = () => {
      filters.selected = li.dataset.id;
      update();
    };
    li.addEventListener('click', pick);
    li.addEventListener('keydown', (e) => (e.key === 'Enter' || e.key === ' ') && pick());
  });
}

/** Re-render keeping the focus (and caret) in the input being typed in. */
function update(focusId?: string): void {
  save();
  const caret = focusId ? (document.getElementById(focusId) as HTMLInputElement | null)?.selectionStart : null;
  render();
  if (focusId) {
    const el = document.getElementById(focusId) as HTMLInputElement | null;
    el?.focus();
    if (el && caret !== null && caret !== undefined && el.type !== 'number') el.setSelectionRange(caret, caret);
  }
}

window.addEventListener('message', (e: MessageEvent) => {
  const m = e.data as StateMessage;
  if (m?.type === 'state') {
    data = m;
    render();
  }
});
vscode.postMessage({ type: 'ready' });
