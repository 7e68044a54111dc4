/** Plain-text tables for terminals and logs (notebooks get HTML from the kernel's helpers). */

export type Cell = string | number | null | undefined;

function formatCell(value: Cell, digits: number): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') return Number.isFinite(value) ? value.toFixed(digits) : String(value);
  return value;
}

/** Renders rows under a header, numbers right-aligned to `digits` decimals. */
export function formatTable(header: readonly string[], rows: readonly (readonly Cell[])[], digits = 3): string {
  const text = rows.map((row) => row.map((cell) => formatCell(cell, digits)));
  const widths = header.map((h, c) => Math.max(h.length, ...text.map((row) => (row[c] ?? '').length)));
  const numeric = header.map((_, c) => rows.every((row) => typeof row[c] === 'number' || row[c] == null));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, c) => (numeric[c] ? cell.padStart(widths[c]) : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...text.map(line)].join('\n');
}
