/**
 * HTML of a caption grid (`application/vnd.cckit.captions+json`), shared by the notebook renderer; pure
 * (strings only) so it is tested in plain Node. Every text is escaped; images only as `data:image/` URIs.
 * A grid with a `compare` part (`show.compare`) shows two runs' captions per image, A above B, with the
 * difference B − A and each caption's grounding verdict; the chips and badges serve the sidebar too.
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
  /** The grounding judge's verdict: present objects named (green chips), by a hypernym (amber), mentions hallucinated (red). */
  grounding?: Grounding;
  /** The verdict in words ("by name · hallucinates"). */
  verdict?: string;
  /** A comparison's run B on the same image (the item's own caption is run A's). */
  b?: { caption: string; score?: number; grounding?: Grounding; verdict?: string };
  /** B − A, as shown ("+12.3"), and which run's caption scores higher ('a', 'b', 'tie'). */
  diff?: number;
  diffText?: string;
  better?: string;
}

type Grounding = { named?: readonly string[]; byKind?: readonly string[]; hallucinated?: readonly string[] };

/** What a comparison grid says above its cards (texts made by src/runs/compare.ts). */
export interface CompareHeader {
  a?: string;
  b?: string;
  metric?: string;
  summary?: string;
  domains?: string;
  verdicts?: string;
  unmatched?: string;
  shown?: string;
}

export interface CaptionsPayload {
  version?: number;
  title?: string;
  items?: CaptionItem[];
  compare?: CompareHeader;
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
.cckit-captions .chip.kind { color: #d29922; }
.cckit-captions p.cmp { margin: 2px 0; font-size: 12px; } .cckit-captions p.cmp.unmatched { font-weight: 600; }
.cckit-captions .side { margin: 4px 0; padding-left: 4px; border-left: 3px solid rgba(128,128,128,.4); }
.cckit-captions .side.b { border-left-color: rgba(56,139,253,.7); }
.cckit-captions .side .caption { margin: 0 0 2px; }
.cckit-captions .tag { font-size: 10px; font-weight: 700; border-radius: 3px; padding: 0 4px; margin-right: 4px; background: rgba(128,128,128,.3); }
.cckit-captions .verdict { font-size: 11px; opacity: .85; }
.cckit-captions .diff { font-weight: 700; border-radius: 8px; padding: 0 6px; border: 1px solid currentColor; }
.cckit-captions .diff.pos { color: #3fb950; } .cckit-captions .diff.neg { color: #f85149; } .cckit-captions .diff.tie { opacity: .8; }
`;

/** Object chips of one caption: named objects green, named by a hypernym amber, hallucinated mentions red; '' without a verdict. */
export function groundingChips(grounding: Grounding | undefined): string {
  if (!grounding) return '';
  const chips = [
    ...(grounding.named ?? []).map((o) => `<span class="chip named" title="named, in the image">${escapeHtml(o)}</span>`),
    ...(grounding.byKind ?? []).map((o) => `<span class="chip kind" title="named by a hypernym only, in the image">${escapeHtml(o)}</span>`),
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

function imageHtml(it: CaptionItem, anyImage: boolean, trusted: boolean): string {
  if (!anyImage) return '';
  return trusted && typeof it.image === 'string' && it.image.startsWith('data:image/')
    ? `<img class="thumb" src="${escapeHtml(it.image)}" alt="${escapeHtml(it.id ?? '')}">`
    : `<div class="noimg">${escapeHtml(!trusted && it.image ? 'image hidden (untrusted workspace)' : (it.imageNote ?? 'no image'))}</div>`;
}

/** A comparison grid: the counts, then per image both captions (A, B), the difference and the references. */
function renderCompare(payload: CaptionsPayload, header: CompareHeader, trusted: boolean): string {
  const items = payload.items ?? [];
  const anyImage = items.some((it) => it.image !== undefined || it.imageNote !== undefined);
  const metric = header.metric ?? items.find((it) => it.metric)?.metric ?? 'CIDEr';
  const lines = [header.summary, header.domains, header.verdicts].filter((t): t is string => !!t).map((t) => `<p class="cmp">${escapeHtml(t)}</p>`);
  if (header.unmatched) lines.push(`<p class="cmp unmatched">${escapeHtml(header.unmatched)}</p>`);
  if (header.shown) lines.push(`<p class="cmp muted">${escapeHtml(header.shown)}</p>`);
  const runs =
    header.a || header.b
      ? `<p class="cmp"><span class="tag">A</span>${escapeHtml(header.a ?? '')} <span class="tag">B</span>${escapeHtml(header.b ?? '')}</p>`
      : '';
  const cards = items.map((it) => {
    const refs = it.references ?? [];
    return (
      `<div class="card pair" data-id="${escapeHtml(String(it.id ?? ''))}">${imageHtml(it, anyImage, trusted)}` +
      `<div class="meta">${it.id !== undefined ? `<span class="id">${escapeHtml(String(it.id))}</span>` : ''}` +
      `${it.domain ? `<span class="domain ${escapeHtml(it.domain)}">${escapeHtml(it.domain)}</span>` : ''}${diffBadge(it.diff, it.diffText, it.better, metric)}</div>` +
      compareSide('A', it, refs, metric) +
      (it.b ? compareSide('B', it.b, refs, metric) : '') +
      (refs.length ? `<ul>${refs.map((r) => `<li>${escapeHtml(r)}</li>`).join('')}</ul>` : '') +
      '</div>'
    );
  });
  return (
    `<div class="cckit-captions cckit-compare">` +
    (payload.title ? `<h4>${escapeHtml(payload.title)}</h4>` : '') +
    runs +
    lines.join('') +
    `<div class="grid">${cards.join('')}</div></div>`
  );
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(3);
}

/** The difference B − A as a badge: green when B is better, red when A is (`better`); `text` as given ("+12.3"). */
export function diffBadge(diff: number | undefined, text: string | undefined, better: string | undefined, metric = 'CIDEr'): string {
  if (diff === undefined) return `<span class="diff tie" title="no ${escapeHtml(metric)} on both sides">B − A –</span>`;
  const cls = better === 'b' ? 'pos' : better === 'a' ? 'neg' : 'tie';
  return `<span class="diff ${cls}" title="${escapeHtml(metric)} of B minus A">B − A ${escapeHtml(text ?? String(diff))}</span>`;
}

/** One run's caption of a compared image: tag (A / B), caption with n-grams shared with the references, score, verdict, chips. */
export function compareSide(
  tag: 'A' | 'B',
  s: { caption: string; score?: number; grounding?: Grounding; verdict?: string },
  refs: readonly string[],
  metric: string,
): string {
  return (
    `<div class="side ${tag.toLowerCase()}"><div class="caption"><span class="tag">${tag}</span>${highlightHtml(highlight(s.caption, [...refs]))}</div>` +
    `<div class="meta">${typeof s.score === 'number' ? `<span class="score">${escapeHtml(metric)} ${escapeHtml(fmt(s.score))}</span>` : ''}` +
    `${s.verdict ? `<span class="verdict">${escapeHtml(s.verdict)}</span>` : ''}</div>` +
    groundingChips(s.grounding) +
    '</div>'
  );
}

export function renderCaptions(payload: CaptionsPayload, trusted: boolean): string {
  if (payload.compare) return renderCompare(payload, payload.compare, trusted);
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
