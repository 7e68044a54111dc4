// Bundles the extension with esbuild: the extension host code (CommonJS, `vscode` external), the two
// notebook renderers (ES modules, as VS Code loads them) and the sidebar's page script (IIFE).
// `node extension/build.mjs [--production] [--watch]`; output in extension/dist/.
import * as esbuild from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  logLevel: 'warning',
  absWorkingDir: here,
  legalComments: 'none',
};
const builds = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] },
  { ...common, entryPoints: ['renderers/plotly.ts'], outfile: 'dist/renderer-plotly.js', platform: 'browser', format: 'esm', target: 'es2022', sourcemap: false },
  { ...common, entryPoints: ['renderers/captions.ts'], outfile: 'dist/renderer-captions.js', platform: 'browser', format: 'esm', target: 'es2022' },
  { ...common, entryPoints: ['webview/sidebar.ts'], outfile: 'dist/sidebar.js', platform: 'browser', format: 'iife', target: 'es2022' },
];
const start = Date.now();
if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
  console.log('extension: watching');
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  console.log(`extension: built ${builds.length} bundles in ${Date.now() - start} ms${production ? ' (production)' : ''}`);
}
