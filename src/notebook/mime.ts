/**
 * What every notebook output of cckit is made of: MIME bundles, the MIME types cckit's own outputs use, and
 * HTML escaping. No imports, so display.ts and the output builders (compare.ts) share it without a loop.
 */

export type MimeBundle = Record<string, unknown>;

export const CAPTIONS_MIME = 'application/vnd.cckit.captions+json';
/** Points the VS Code extension's Captions sidebar at a run directory (`show.run`), or at two (`show.compare`). */
export const RUN_MIME = 'application/vnd.cckit.run+json';
export const PLOTLY_MIME = 'application/vnd.plotly.v1+json';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
