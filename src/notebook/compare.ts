/**
 * `show.compare(runA, runB, split, options)`: two runs' captions of the same images as one notebook output.
 * The comparison itself (pairing by image id, B − A, verdicts, counts, filters, sorting) is
 * src/runs/compare.ts, which the Captions sidebar uses too; this file reads the runs and builds the bundle:
 * a caption grid (`application/vnd.cckit.captions+json` with a `compare` part, what the VS Code extension's
 * caption renderer draws), an HTML table (Jupyter) and text.
 */
import { predictionSplits, readPredictions, readRunInfo } from '../runs/layout';
import {
  comparePredictions,
  domainText,
  selectPairs,
  signed,
  summaryText,
  unmatchedNote,
  VERDICT_CHANGES,
  verdictText,
  type ComparedPair,
  type ComparedSide,
  type CompareSelection,
  type Comparison,
  type VerdictFilter,
} from '../runs/compare';
import { CAPTIONS_MIME, escapeHtml, RUN_MIME, type MimeBundle } from './mime';
import { thumbImage, type ImageMode } from './thumbs';

export interface CompareRunsOptions extends CompareSelection {
  /** Per-image metric compared (default CIDEr). */
  metric?: string;
  /** Differences within ± this (raw scale) are ties (default 1e-9). */
  tie?: number;
  /** Scale of the scores shown (default 100, like the tables; 1 = coco-caption's raw scale). */
  scale?: number;
  /** Thumbnails (A's, else B's; only files inside their run) as data: URIs (default), paths relative to `baseDir`, or none. */
  images?: ImageMode;
  baseDir?: string;
  title?: string;
  /** Names of A and B in the output (default: their run.json names, else their ids). */
  labels?: { a?: string; b?: string };
  /** In VS Code, also point the Captions sidebar at the comparison (default true). */
  sidebar?: boolean;
}

/** Pairs are shown at most this many unless `limit` says otherwise. */
export const DEFAULT_COMPARE_LIMIT = 50;

function predictionsOf(which: 'A' | 'B', runDir: string, split: string) {
  const splits = predictionSplits(runDir);
  if (!splits.includes(split))
    throw new Error(`run ${which} (${runDir}) has no predictions for ${split}; it has ${splits.length ? splits.join(', ') : 'none'}`);
  return readPredictions(runDir, split);
}

/** The comparison of two runs' predictions on `split` (see src/runs/compare.ts). */
export function compareRuns(runA: string, runB: string, split: string, options: { metric?: string; tie?: number } = {}): Comparison {
  return comparePredictions(predictionsOf('A', runA, split), predictionsOf('B', runB, split), options);
}

function runLabel(runDir: string, fallback: string): string {
  try {
    return readRunInfo(runDir).name ?? fallback;
  } catch {
    return fallback;
  }
}

/** What a filter / sort shows, in words. */
export function selectionText(selection: CompareSelection): string {
  const sort = { 'diff-desc': 'by B − A, largest first', 'diff-asc': 'by B − A, smallest first', id: 'by image id' }[selection.sort ?? 'diff-desc'];
  const parts = [sort];
  if (selection.domain !== undefined) parts.push(`domain ${typeof selection.domain === 'string' ? selection.domain : selection.domain.join(', ')}`);
  if (selection.verdict !== undefined) parts.push(`verdict: ${verdictFilterText(selection.verdict)}`);
  return parts.join('; ');
}

function verdictFilterText(v: VerdictFilter): string {
  if (typeof v === 'string') return VERDICT_CHANGES.find((c) => c.value === v)?.label ?? v;
  return [v.a ? `A ${v.a}` : '', v.b ? `B ${v.b}` : ''].filter(Boolean).join(', ');
}

const fmt = (x: number | undefined, scale: number, digits: number) => (x === undefined ? '–' : (x * scale).toFixed(digits));

function sideHtml(label: string, s: ComparedSide, scale: number, digits: number): string {
  const v = s.verdict ? ` <small style="opacity:.8">(${escapeHtml(s.verdict.label)})</small>` : '';
  const objects = s.grounding
    ? [
        ...s.grounding.named.map((o) => `<span style="color:#1a7f37">${escapeHtml(o)}</span>`),
        ...(s.grounding.byKind ?? []).map((o) => `<span style="color:#9a6700">${escapeHtml(o)} (hypernym)</span>`),
        ...s.grounding.hallucinated.map((o) => `<span style="color:#cf222e"><s>${escapeHtml(o)}</s></span>`),
      ].join(', ')
    : '';
  return (
    `<td style="text-align:left;vertical-align:top"><b>${escapeHtml(label)}</b> ${escapeHtml(s.caption)}${v}` +
    (objects ? `<br><small>${objects}</small>` : '') +
    `</td><td style="text-align:right;vertical-align:top">${fmt(s.score, scale, digits)}</td>`
  );
}

/** The bundle `show.compare` publishes. */
export function compareBundle(runA: string, runB: string, split: string, options: CompareRunsOptions = {}): MimeBundle {
  const c = compareRuns(runA, runB, split, options);
  const scale = options.scale ?? 100;
  const digits = scale === 1 ? 3 : 1;
  const metric = scale === 1 ? c.metric : `${c.metric}×${scale}`;
  const selection: CompareSelection = {
    ...(options.domain !== undefined ? { domain: options.domain } : {}),
    ...(options.verdict !== undefined ? { verdict: options.verdict } : {}),
    sort: options.sort ?? 'diff-desc',
    limit: options.limit ?? DEFAULT_COMPARE_LIMIT,
  };
  const matching = selectPairs(c, { ...selection, limit: undefined });
  const shown = matching.slice(0, selection.limit);
  const labelA = options.labels?.a ?? runLabel(runA, c.a.run);
  const labelB = options.labels?.b ?? runLabel(runB, c.b.run);
  const title = options.title ?? `A: ${labelA} vs B: ${labelB} (${split})`;
  const summary = summaryText(c.summary, c.metric, { scale, digits });
  const domains = domainText(c, { scale, digits });
  const verdicts = verdictText(c.summary);
  const unmatched = unmatchedNote(c);
  const shownText = `Showing ${shown.length} of ${matching.length} matching (${c.pairs.length} paired), ${selectionText(selection)}.`;
  const images = options.images ?? 'data';
  const imageOf = (p: ComparedPair) => thumbImage(runA, p.a.thumb, images, options.baseDir) ?? thumbImage(runB, p.b.thumb, images, options.baseDir);
  const scaled = (x: number | undefined) => (x === undefined ? undefined : Number((x * scale).toFixed(digits)));
  const items = shown.map((p) => {
    const image = imageOf(p);
    const sa = scaled(p.a.score);
    const sb = scaled(p.b.score);
    return {
      id: p.id,
      ...(image ? { image } : {}),
      caption: p.a.caption,
      references: p.references,
      ...(sa !== undefined ? { score: sa } : {}),
      metric,
      ...(p.domain ? { domain: p.domain } : {}),
      ...(p.a.grounding ? { grounding: p.a.grounding } : {}),
      ...(p.a.verdict ? { verdict: p.a.verdict.label } : {}),
      b: {
        caption: p.b.caption,
        ...(sb !== undefined ? { score: sb } : {}),
        ...(p.b.grounding ? { grounding: p.b.grounding } : {}),
        ...(p.b.verdict ? { verdict: p.b.verdict.label } : {}),
      },
      ...(p.diff !== undefined ? { diff: scaled(p.diff), diffText: signed(p.diff * scale, digits), better: p.better } : {}),
    };
  });
  const payload = {
    version: 1,
    title,
    compare: {
      a: labelA,
      b: labelB,
      split,
      metric,
      summary,
      ...(domains ? { domains } : {}),
      ...(verdicts ? { verdicts } : {}),
      ...(unmatched ? { unmatched } : {}),
      shown: shownText,
    },
    items,
  };

  const text = [
    title,
    summary,
    ...(domains ? [domains] : []),
    ...(verdicts ? [verdicts] : []),
    ...(unmatched ? [unmatched] : []),
    shownText,
    ...shown.flatMap((p) => [
      `${p.id}${p.domain ? ` [${p.domain}]` : ''}  B − A ${p.diff === undefined ? '–' : signed(p.diff * scale, digits)}`,
      `    A ${fmt(p.a.score, scale, digits)}: ${p.a.caption}${p.a.verdict ? `  (${p.a.verdict.label})` : ''}`,
      `    B ${fmt(p.b.score, scale, digits)}: ${p.b.caption}${p.b.verdict ? `  (${p.b.verdict.label})` : ''}`,
    ]),
  ].join('\n');

  const anyImage = items.some((it) => it.image);
  const diffCell = (p: ComparedPair) => {
    const color = p.better === 'b' ? '#1a7f37' : p.better === 'a' ? '#cf222e' : 'inherit';
    return `<td style="text-align:right;vertical-align:top;color:${color}"><b>${p.diff === undefined ? '–' : escapeHtml(signed(p.diff * scale, digits))}</b></td>`;
  };
  const html =
    `<div class="cckit-compare"><h4 style="margin:4px 0">${escapeHtml(title)}</h4>` +
    `<p style="margin:2px 0">${escapeHtml(summary)}</p>` +
    (domains ? `<p style="margin:2px 0">${escapeHtml(domains)}</p>` : '') +
    (verdicts ? `<p style="margin:2px 0">${escapeHtml(verdicts)}</p>` : '') +
    (unmatched ? `<p style="margin:2px 0"><b>${escapeHtml(unmatched)}</b></p>` : '') +
    `<p style="margin:2px 0;opacity:.8">${escapeHtml(shownText)}</p>` +
    '<table class="cckit-table"><thead><tr>' +
    (anyImage ? '<th></th>' : '') +
    `<th style="text-align:left">image</th><th style="text-align:left">A: ${escapeHtml(labelA)}</th><th style="text-align:right">${escapeHtml(metric)}</th>` +
    `<th style="text-align:left">B: ${escapeHtml(labelB)}</th><th style="text-align:right">${escapeHtml(metric)}</th><th style="text-align:right">B − A</th>` +
    '</tr></thead><tbody>' +
    shown
      .map((p, i) => {
        const image = items[i]!.image;
        return (
          '<tr>' +
          (anyImage ? `<td style="vertical-align:top">${image ? `<img src="${escapeHtml(image)}" style="width:96px" alt="">` : ''}</td>` : '') +
          `<td style="text-align:left;vertical-align:top">${escapeHtml(p.id)}${p.domain ? ` <small>${escapeHtml(p.domain)}</small>` : ''}</td>` +
          sideHtml('A', p.a, scale, digits) +
          sideHtml('B', p.b, scale, digits) +
          diffCell(p) +
          '</tr>'
        );
      })
      .join('') +
    '</tbody></table></div>';

  return {
    [CAPTIONS_MIME]: payload,
    'text/html': html,
    'text/plain': text,
    ...(options.sidebar === false ? {} : { [RUN_MIME]: { runDir: runA, split, compareWith: runB } }),
  };
}
