/**
 * Notebook renderer for `application/vnd.plotly.v1+json` (what `show.plot` publishes, and what Jupyter's
 * plotly outputs carry). plotly.js comes bundled (plotly.js-dist-min): nothing is loaded from the network.
 * In an untrusted workspace the figure is not drawn (plotly builds DOM from strings in the figure);
 * a text summary stands in for it.
 */
import type { ActivationFunction, OutputItem } from 'vscode-notebook-renderer';
import Plotly = require('plotly.js-dist-min');

interface Figure {
  data?: Array<Record<string, unknown>>;
  layout?: Record<string, unknown>;
  config?: Record<string, unknown>;
}

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(name).trim();
  return v || fallback;
}

/** The figure's layout with VS Code's colours where the figure sets none. */
function themed(layout: Record<string, unknown> = {}): Record<string, unknown> {
  const fg = cssVar('--vscode-editor-foreground', cssVar('--vscode-foreground', '#333'));
  const grid = cssVar('--vscode-editorWidget-border', 'rgba(128,128,128,0.3)');
  const axis = (a: unknown) => ({ gridcolor: grid, zerolinecolor: grid, ...((a as object) ?? {}) });
  return {
    paper_bgcolor: 'rgba(0,0,0,0)',
    plot_bgcolor: 'rgba(0,0,0,0)',
    height: 420,
    margin: { t: 50, r: 20, b: 50, l: 60 },
    ...layout,
    font: { color: fg, ...((layout.font as object) ?? {}) },
    xaxis: axis(layout.xaxis),
    yaxis: axis(layout.yaxis),
  };
}

function summary(fig: Figure): string {
  const title = (fig.layout?.title as { text?: string } | string | undefined) ?? '';
  const t = typeof title === 'string' ? title : (title.text ?? '');
  const traces = (fig.data ?? []).map((d) => `${String(d.type ?? 'scatter')}${d.name ? ` "${String(d.name)}"` : ''}`).join(', ');
  return `Plotly figure${t ? ` "${t}"` : ''}: ${traces || 'no traces'}.`;
}

export const activate: ActivationFunction = (ctx) => ({
  renderOutputItem(item: OutputItem, element: HTMLElement) {
    const fig = item.json() as Figure;
    element.replaceChildren();
    if (!ctx.workspace.isTrusted) {
      const p = document.createElement('p');
      p.className = 'cckit-plotly-untrusted';
      p.textContent = `${summary(fig)} Not drawn: the workspace is not trusted.`;
      element.appendChild(p);
      return;
    }
    const div = document.createElement('div');
    div.className = 'cckit-plotly';
    div.dataset.traces = String(fig.data?.length ?? 0);
    // plotly sizes the plot to its container: give it the figure's height (width follows the output).
    const layout = themed(fig.layout);
    div.style.width = '100%';
    div.style.height = `${Number(layout.height) || 420}px`;
    element.appendChild(div);
    // The figure is plain JSON from the kernel; plotly's own types are stricter than what it accepts.
    const newPlot = Plotly.newPlot as unknown as (root: HTMLElement, data: unknown[], layout: object, config: object) => Promise<unknown>;
    void newPlot(div, fig.data ?? [], layout, { responsive: true, displaylogo: false, ...(fig.config ?? {}) });
  },
  disposeOutputItem(id?: string) {
    // Plotly keeps listeners on the div; purge every plot of the disposed output(s).
    const sel = id ? `[data-vscode-output-id="${CSS.escape(id)}"] .cckit-plotly` : '.cckit-plotly';
    document.querySelectorAll<HTMLElement>(sel).forEach((d) => Plotly.purge(d));
  },
});
