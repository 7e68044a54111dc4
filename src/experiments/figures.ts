/**
 * Plotly traces the experiments' figures share (the shape src/notebook's show.plot takes).
 */
import type { Spread } from './seeds';

export interface SeedMeanBar {
  name: string;
  /** One category per spread. */
  x: readonly string[];
  /** The spread over seeds of each category's value. */
  spreads: readonly Spread[];
  /** How many seeds the spreads are over: error bars show only with more than one. */
  seeds: number;
  /** Legend and marker fields, placed after `name`. */
  style?: Record<string, unknown>;
  /** A subplot's axes (`xaxis: 'x2'`…), placed last. */
  axes?: Record<string, unknown>;
}

/** A bar per category of the mean over seeds with ± std error bars, both rounded to 0.1 (an unmeasured std draws as 0). */
export function seedMeanBar(bar: SeedMeanBar): Record<string, unknown> {
  const { spreads } = bar;
  return {
    type: 'bar',
    name: bar.name,
    ...bar.style,
    x: [...bar.x],
    y: spreads.map((s) => Number(s.mean.toFixed(1))),
    error_y: { type: 'data', array: spreads.map((s) => Number((Number.isFinite(s.std) ? s.std : 0).toFixed(1))), visible: bar.seeds > 1 },
    ...bar.axes,
  };
}
