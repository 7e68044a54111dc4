/**
 * CC3M ∩ CC12M de-duplication by normalised URL (the CC12M README reports ~63K shared URLs).
 * The two files have opposite column orders; readTsv detects each.
 */
import { detectTsvLayout, readTsv, TsvWriter } from '../data/tsv';

/** Lower-cased scheme and host, no default port, no fragment, no trailing slash; path and query kept. */
export function normaliseUrl(url: string): string {
  try {
    const parsed = new URL(url.trim());
    parsed.hash = '';
    let text = parsed.toString();
    if (text.endsWith('/') && parsed.pathname !== '/') text = text.slice(0, -1);
    return text;
  } catch {
    return url.trim();
  }
}

export interface OverlapReport {
  a: { file: string; rows: number; distinct: number };
  b: { file: string; rows: number; distinct: number };
  shared: number;
  /** Rows of B written to `out` (B without the URLs A has). */
  written?: number;
}

/** Counts URLs of B that A has too; with `out`, writes B minus the overlap (B's own column order). */
export async function overlap(fileA: string, fileB: string, out?: string): Promise<OverlapReport> {
  const seenA = new Set<string>();
  let rowsA = 0;
  for await (const row of readTsv(fileA)) {
    rowsA++;
    seenA.add(normaliseUrl(row.url));
  }
  const sharedUrls = new Set<string>();
  const seenB = new Set<string>();
  let rowsB = 0;
  const writer = out ? TsvWriter.create(out, { layout: await detectTsvLayout(fileB) }) : undefined;
  for await (const row of readTsv(fileB)) {
    rowsB++;
    const url = normaliseUrl(row.url);
    seenB.add(url);
    if (seenA.has(url)) {
      sharedUrls.add(url);
      continue;
    }
    if (writer) {
      const pending = writer.write(row);
      if (pending) await pending;
    }
  }
  await writer?.close();
  const report: OverlapReport = {
    a: { file: fileA, rows: rowsA, distinct: seenA.size },
    b: { file: fileB, rows: rowsB, distinct: seenB.size },
    shared: sharedUrls.size,
  };
  if (out) report.written = writer?.count ?? 0;
  return report;
}
