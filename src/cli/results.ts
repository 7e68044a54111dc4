/** `cckit results`: every claim of both papers with its verdict, from the committed notebooks (docs/results.md). */
import * as fs from 'fs';
import * as path from 'path';
import type { Command } from 'commander';

import { PACKAGE_ROOT } from '../paths';
import { collectResults, resultsJson, resultsMarkdown, withGeneratedProse, type ClaimResult, type NotebookJson } from '../experiments/results';
import { writeFileAtomic } from '../util/atomic';

/** The notebooks of a folder, parsed (name → JSON). */
export function readNotebooks(folder: string): Map<string, NotebookJson> {
  const out = new Map<string, NotebookJson>();
  for (const name of fs.readdirSync(folder).filter((n) => n.endsWith('.ipynb'))) {
    const file = path.join(folder, name);
    try {
      out.set(name, JSON.parse(fs.readFileSync(file, 'utf8')) as NotebookJson);
    } catch (e) {
      throw new Error(`${file}: not a notebook (${(e as Error).message})`);
    }
  }
  return out;
}

/** The results of the notebooks in `folder` (default: the package's notebooks/). */
export function resultsOf(folder: string = path.join(PACKAGE_ROOT, 'notebooks')): ClaimResult[] {
  return collectResults(readNotebooks(folder));
}

export function registerResultsCommand(program: Command): void {
  program
    .command('results')
    .description("every claim of both papers with the one rule's verdict on the committed notebooks: writes docs/results.md and each notebook's result cells")
    .option('--notebooks <dir>', 'the notebooks to read', path.join(PACKAGE_ROOT, 'notebooks'))
    .option('--out <file>', 'where to write the Markdown', path.join(PACKAGE_ROOT, 'docs', 'results.md'))
    .option('--json', 'print the registry with verdicts as JSON instead of writing the Markdown')
    .action((flags: { notebooks: string; out: string; json?: boolean }) => {
      const results = resultsOf(flags.notebooks);
      if (flags.json) {
        console.log(JSON.stringify(resultsJson(results), null, 2));
        return;
      }
      writeFileAtomic(flags.out, resultsMarkdown(results));
      console.log(`${results.length} claims: ${flags.out}`);
      // each notebook's result cells, from its own claims records (written only where they change)
      for (const [name, notebook] of readNotebooks(flags.notebooks)) {
        const { notebook: next, changed } = withGeneratedProse(notebook);
        if (!changed) continue;
        writeFileAtomic(path.join(flags.notebooks, name), `${JSON.stringify(next, null, 1)}\n`);
        console.log(`result cells: ${path.join(flags.notebooks, name)}`);
      }
    });
}
