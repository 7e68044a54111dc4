/**
 * Every committed plotly figure has its static twin (scripts/notebook-figures.ts): an image/png in the same output
 * bundle, drawn from the figure as committed (the hash in the output's metadata), and not blank; nbconvert's HTML,
 * which runs no plotly, shows it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { PACKAGE_ROOT } from '../src/paths';
import { loadSharp } from '../src/util/sharp';
import { PLOTLY_MIME, plotlyOutputs } from '../scripts/notebook-figures';

const NOTEBOOKS = path.join(PACKAGE_ROOT, 'notebooks');
const files = fs
  .readdirSync(NOTEBOOKS)
  .filter((n) => n.endsWith('.ipynb'))
  .map((n) => path.join(NOTEBOOKS, n));

test('every committed plotly figure has a PNG twin drawn from it, and no twin is blank', async () => {
  const sharp = loadSharp();
  let figures = 0;
  for (const file of files) {
    const notebook = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const { output, hash } of plotlyOutputs(notebook)) {
      figures++;
      const where = `${path.basename(file)}: figure ${figures}`;
      const png = output.data?.['image/png'];
      assert.equal(typeof png, 'string', `${where} has no image/png (run: node --import tsx scripts/notebook-figures.ts)`);
      assert.equal(output.metadata?.cckit_static_twin, hash, `${where}: the PNG was drawn from another version of the figure`);
      assert.ok(output.data?.[PLOTLY_MIME], where);
      const image = sharp(Buffer.from(png as string, 'base64'));
      const { width, height } = await image.metadata();
      assert.ok(width! >= 300 && height! >= 200, `${where}: ${width}×${height}`);
      // a drawn chart has axes, text and marks: many pixels that are not the background
      const { data, info } = await image.removeAlpha().raw().toBuffer({ resolveWithObject: true });
      let inked = 0;
      for (let i = 0; i < data.length; i += info.channels) if (data[i]! < 200 || data[i + 1]! < 200 || data[i + 2]! < 200) inked++;
      const share = inked / (info.width * info.height);
      assert.ok(share > 0.005, `${where}: only ${(100 * share).toFixed(2)}% of pixels are drawn`);
    }
  }
  assert.ok(figures >= 20, `${figures} figures in the committed notebooks`);
});

const PYTHON = '/usr/bin/python3';
const nbconvert = fs.existsSync(PYTHON) && spawnSync(PYTHON, ['-m', 'jupyter', 'nbconvert', '--version']).status === 0;

test(
  'nbconvert --to html (no plotly) shows the figures as images',
  { skip: !nbconvert && !process.env.CI ? 'no Jupyter nbconvert on /usr/bin/python3' : false },
  () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-nbconvert-'));
    try {
      const notebook = path.join(NOTEBOOKS, '03-table3-pretraining-data.ipynb');
      const run = spawnSync(PYTHON, ['-m', 'jupyter', 'nbconvert', '--to', 'html', '--output-dir', out, notebook], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      const html = fs.readFileSync(path.join(out, '03-table3-pretraining-data.html'), 'utf8');
      const images = html.match(/<img src="data:image\/png;base64,/g) ?? [];
      const expected = plotlyOutputs(JSON.parse(fs.readFileSync(notebook, 'utf8'))).length;
      assert.ok(images.length >= expected, `${images.length} PNG images in the HTML, ${expected} figures in the notebook`);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  },
);
