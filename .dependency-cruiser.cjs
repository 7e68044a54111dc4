/**
 * cckit's import rules, checked by `npm run lint:imports` (part of `npm test`).
 *
 * The library is a stack of layers; a file may import its own layer and the layers below it, never
 * one above. Bottom to top (docs/architecture.md says what each owns):
 */
const LAYERS = [
  ['foundation', ['util', 'tf', 'wordnet', 'text', 'paths.ts']],
  ['world', ['world']],
  ['data', ['data']],
  ['download', ['download']],
  ['metrics', ['metrics']],
  ['runs', ['runs']],
  ['filters', ['filters']],
  ['features', ['vision']],
  ['models', ['models']],
  ['decode', ['decode']],
  ['train', ['train']],
  ['report', ['report']],
  ['experiments', ['experiments']],
  ['scale', ['scale']],
  ['notebook', ['notebook']],
  ['cli', ['cli', 'index.ts']],
];

const pathsOf = (names) => `^src/(${names.map((n) => n.replace('.', '\\.')).join('|')})($|/)`;

const upward = LAYERS.slice(0, -1).map(([name, folders], i) => ({
  name: `layer-${name}`,
  comment: `${name} (${folders.join(', ')}) may not import a layer above it`,
  severity: 'error',
  from: { path: pathsOf(folders) },
  to: { path: pathsOf(LAYERS.slice(i + 1).flatMap(([, f]) => f)) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'files that import each other in a loop',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'library-without-vscode',
      comment: 'src/ runs in Node, notebooks and CI: only extension/ may import vscode',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^vscode$' },
    },
    {
      name: 'filters-without-world',
      comment: 'the pipelines run on real data: the world is passed in by the caller, never imported',
      severity: 'error',
      from: { path: '^src/filters/' },
      to: { path: '^src/world/' },
    },
    {
      name: 'library-without-shells',
      comment: 'the kernel and the VS Code extension are thin shells over the library, never the other way',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(extension|kernel)/' },
    },
    {
      name: 'extension-reads-runs-only',
      comment: 'the extension reads the run layout; everything else reaches it through the kernel',
      severity: 'error',
      from: { path: '^extension/' },
      to: { path: '^src/', pathNot: '^src/runs/layout\\.ts$' },
    },
    {
      name: 'library-without-tests',
      comment: 'test doubles and fixtures live in test/',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^test/' },
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
    reporterOptions: { text: { highlightFocused: true } },
  },
};
