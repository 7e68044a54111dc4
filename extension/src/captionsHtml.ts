/**
 * HTML of a caption grid (`application/vnd.cckit.captions+json`), shared by the notebook renderer; pure
 * (strings only) so it is tested in plain Node. Every text is escaped; images only as `data:image/` URIs.
 */
import { escapeHtml, highlight, highlightHtml } from './ngrams';

export interface CaptionItem {
  id?: string;
  image?: string;
  imageNote?: string;
  caption: string;
  references?: string[];
  score?: number;
  metric?: string;
  domain?: string;
  /** The grounding judge's verdict: present objects named (green chips), mentions hallucinated (red). */
  grounding?: { named?: string[]; hallucinated?: string[] };
}

export interface CaptionsPayload {
  version?: number;
  title?: string;
  items?: CaptionItem[];
}

export const CAPTIONS_STYLE = `
.cckit-captions { font-family: var(--vscode-font-family); color: var(--vscode-foreground); }
.cckit-captions h4 { margin: 4px 0 8px; font-weight: 600; }
.cckit-captions .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: 10px; }
.cckit-captions .card { border: 1px solid var(--vscode-editorWidget-border, rgba(128,128,128,.35)); border-radius: 4px; padding: 6px; background: var(--vscode-editorWidget-background, transparent); }
.cckit-captions .thumb { width: 100%; aspect-ratio: 4 / 3; object-fit: cover; border-radius: 3px; display: block; background: rgba(128,128,128,.15); }
.cckit-captions .noimg { width: 100%; aspect-ratio: 4 / 3; display: flex; align-items: center; justify-content: center; font-size: 11px; opacity: .7; background: rgba(128,128,128,.12); border-radius: 3px; text-align: center; }
.cckit-captions .caption { margin: 6px 0 4px; font-weight: 600; line-height: 1.3; }
.cckit-captions .meta { font-size: 11px; opacity: .85; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.cckit-captions .domain { border-radius: 8px; padding: 0 6px; border: 1px solid currentColor; }
.cckit-captions .domain.in { color: #3fb950; } .cckit-captions .domain.near { color: #d29922; } .cckit-captions .domain.out { color: #f85149; }
.cckit-captions ul { margin: 4px 0 0; padding-left: 16px; font-size: 12px; opacity: .9; }
.cckit-captions mark { background: rgba(255, 200, 0, .25); color: inherit; border-radius: 2px; }
.cckit-captions .chips { display: flex; gap: 4px; flex-wrap: wrap; margin: 4px 0 0; font-size: 11px; }
.cckit-captions .chip { border-radius: 8px; padding: 0 6px; border: 1px solid currentColor; }
.cckit-captions .chip.named { color: #3fb950; } .cckit-captions .chip.hallucinated { color: #f85149; }
.cckit-captions mark.ng2 { background: rgba(255, 170, 0, .4); } .cckit-captions mark.ng3, .cckit-captions mark.ng4 { background: rgba(255, 120, 0, .5); }
`;

/** Object chips of one caption: named objects green, hallucinated mentions red; '' without a verdict. */
export function groundingChips(grounding: { named?: readonly string[]; hallucinated?: readonly string[] } | undefined): string {
  if (!grounding) return '';
  const chips = [
    ...(grounding.named ?? []).map((o) => `<span class="chip named" title="named, in the image">${escapeHtml(o)}</span>`),
    ...(grounding.hallucinated ?? []).map((o) => `<span class="chip hallucinated" title="hallucinated, not in the image">${escapeHtml(o)}</span>`),
  ];
  return chips.length ? `<div class="chips">${chips.join('')}</div>` : '';
}

/** Figures of the grounding judge (shares, shown as percentages). */
export interface GroundingFiguresView {
  recall: number;
  objectRecall: number;
  chairS: number;
  chairI: number;
}

/** The split's recall / CHAIR line: overall, then in / near / out when present; '' without figures. */
export function groundingSummary(grounding: ({ overall?: GroundingFiguresView } & Partial<Record<string, GroundingFiguresView>>) | undefined): string {
  const overall = grounding?.overall;
  if (!overall) return '';
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const line = (f: GroundingFiguresView) =>
    `<span><b>recall</b> ${pct(f.recall)}</span> <span><b>obj. recall</b> ${pct(f.objectRecall)}</span> ` +
    `<span><b>CHAIR<sub>s</sub></b> ${pct(f.chairS)}</span> <span><b>CHAIR<sub>i</sub></b> ${pct(f.chairI)}</span>`;
  const domains = (['in', 'near', 'out'] as const)
    .filter((d) => grounding[d])
    .map((d) => `<span class="domain ${d}">${d}</span> <span>CHAIR<sub>s</sub> ${pct(grounding[d]!.chairS)}</span>`)
    .join(' ');
  return `<div class="grounding">${line(overall)}${domains ? ` ${domains}` : ''}</div>`;
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(3);
}

export function renderCaptions(payload: CaptionsPayload, trusted: boolean): string {
  const items = payload.items ?? [];
  // A grid without any image (captions only) gets no image boxes at all.
  const anyImage = items.some((it) => it.image !== undefined || it.imageNote !== undefined);
  const cards = items.map((it) => {
    const refs = it.references ?? [];
    const img = !anyImage
      ? ''
      : trusted && typeof it.image === 'string' && it.image.startsWith('data:image/')
        ? `<img class="thumb" src="${escapeHtml(it.image)}" alt="${escapeHtml(it.id ?? '')}">`
        : `<div class="noimg">${escapeHtml(!trusted && it.image ? 'image hidden (untrusted workspace)' : (it.imageNote ?? 'no image'))}</div>`;
    const score = typeof it.score === 'number' ? `<span class="score">${escapeHtml(it.metric ?? 'CIDEr')} ${escapeHtml(fmt(it.score))}</span>` : '';
    const domain = it.domain ? `<span class="domain ${escapeHtml(it.domain)}">${escapeHtml(it.domain)}</span>` : '';
    const id = it.id !== undefined ? `<span class="id">${escapeHtml(String(it.id))}</span>` : '';
    return (
      `<div class="card" data-id="${escapeHtml(String(it.id ?? ''))}">${img}` +
      `<div class="caption">${highlightHtml(highlight(it.caption, refs))}</div>` +
      `<div class="meta">${id}${domain}${score}</div>` +
      groundingChips(it.grounding) +
      (refs.length ? `<ul>${refs.map((r) => `<li>${highlightHtml(highlight(r, [it.caption]))}</li>`).join('')}</ul>` : '') +
      '</div>'
    );
  });
  return `<div class="cckit-captions">` + (payload.title ? `<h4>${escapeHtml(payload.title)}</h4>` : '') + `<div class="grid">${cards.join('')}</div></div>`;
}
