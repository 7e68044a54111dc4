/**
 * Static twins of the notebooks' plotly figures. Each `application/vnd.plotly.v1+json` output gets an
 * `image/png` in the same output bundle, drawn by plotly.js itself (Plotly.toImage) in headless Chromium, so
 * GitHub's and GitLab's viewers, nbviewer, JupyterLab without a plotly extension and `nbconvert --to html` show
 * the picture, while VS Code and JupyterLab with plotly keep the interactive figure (they prefer the plotly
 * MIME type). `npm run notebooks` runs it after executing; by hand:
 *
 *   node --import tsx scripts/notebook-figures.ts [notebook.ipynb …]   (default: every notebook in notebooks/)
 *
 * A twin is redrawn only when its figure changed (the figure's hash is kept in the output's metadata), so
 * re-running leaves unchanged notebooks byte for byte as they were.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { writeFileAtomic } from '../src/util/atomic';
import { PACKAGE_ROOT } from '../src/paths';
import { launchChromium } from './lib/chromium';

export const PLOTLY_MIME = 'application/vnd.plotly.v1+json';
const PNG_MIME = 'image/png';
/** Output metadata key: the hash of the figure its PNG was drawn from. */
const TWIN_KEY = 'cckit_static_twin';

interface Figure {
  data: unknown[];
  layout?: Record<string, unknown>;
}
interface Output {
  output_type: string;
  data?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}
interface Notebook {
  cells: { outputs?: Output[] }[];
}

/** The plotly outputs of a notebook, with the hash of each figure. */
export function plotlyOutputs(notebook: Notebook): { output: Output; figure: Figure; hash: string }[] {
  const found: { output: Output; figure: Figure; hash: string }[] = [];
  for (const cell of notebook.cells)
    for (const output of cell.outputs ?? []) {
      const figure = output.data?.[PLOTLY_MIME] as Figure | undefined;
      if (!figure) continue;
      // the size is part of what was drawn
      const drawn = { figure, size: figureSize(figure) };
      found.push({ output, figure, hash: createHash('sha256').update(JSON.stringify(drawn)).digest('hex').slice(0, 16) });
    }
  return found;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((k) => [k, sortKeys(record[k])]),
  );
}

/**
 * The figure's drawn size: its layout's, else 900 × 450 (plotly's default height; the width of a notebook cell
 * in VS Code or JupyterLab on a laptop, where plotly's own default of 700 cuts long titles).
 */
export function figureSize(figure: Figure): { width: number; height: number } {
  const number = (v: unknown, fallback: number) => (typeof v === 'number' && v > 0 ? Math.round(v) : fallback);
  return { width: number(figure.layout?.width, 900), height: number(figure.layout?.height, 450) };
}

/** Adds or refreshes the PNG twin of every plotly figure in the notebooks; returns how many were drawn. */
export async function addStaticTwins(files: readonly string[], log: (line: string) => void = () => {}): Promise<number> {
  const notebooks = files.map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }));
  const stale = notebooks.flatMap(({ file, text }) => {
    const notebook = JSON.parse(text) as Notebook;
    const outputs = plotlyOutputs(notebook).filter(({ output, hash }) => output.metadata?.[TWIN_KEY] !== hash || !output.data?.[PNG_MIME]);
    return outputs.length > 0 ? [{ file, notebook, outputs }] : [];
  });
  if (stale.length === 0) return 0;
  const browser = await launchChromium();
  let drawn = 0;
  try {
    const page = await browser.newPage();
    // plotly.js from node_modules: the page loads nothing from the network
    await page.setContent('<!doctype html><html><body><div id="plot"></div></body></html>');
    await page.addScriptTag({ path: require.resolve('plotly.js-dist-min') });
    for (const { file, notebook, outputs } of stale) {
      for (const { output, figure, hash } of outputs) {
        const { width, height } = figureSize(figure);
        const url = await page.evaluate(
          async ({ figure, width, height }) => {
            const plotly = (globalThis as unknown as { Plotly: { toImage(f: unknown, o: unknown): Promise<string> } }).Plotly;
            return plotly.toImage({ data: figure.data, layout: { ...figure.layout, width, height } }, { format: 'png', width, height, scale: 1 });
          },
          { figure, width, height },
        );
        const base64 = url.slice(url.indexOf(',') + 1);
        output.data![PNG_MIME] = base64;
        output.metadata = { ...output.metadata, [TWIN_KEY]: hash, [PNG_MIME]: { width, height } };
        drawn++;
      }
      // nbformat's own layout (keys sorted, one-space indent, a trailing newline), so Jupyter's next write changes nothing
      writeFileAtomic(file, JSON.stringify(sortKeys(notebook), null, 1) + '\n');
      log(`${path.relative(PACKAGE_ROOT, file)}: ${outputs.length} figure(s) drawn as PNG`);
    }
  } finally {
    await browser.close();
  }
  return drawn;
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const dir = path.join(PACKAGE_ROOT, 'notebooks');
  const files =
    args.length > 0
      ? args
      : fs
          .readdirSync(dir)
          .filter((n) => n.endsWith('.ipynb'))
          .map((n) => path.join(dir, n));
  addStaticTwins(files, (line) => console.log(line)).then(
    (n) => console.log(`notebook figures: ${n} PNG twin(s) drawn`),
    (err: Error) => {
      console.error(`notebook figures: ${err.message}`);
      process.exitCode = 1;
    },
  );
}
