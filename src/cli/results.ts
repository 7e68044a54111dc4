/** `cckit results`: every claim of both papers with its verdict, from the committed notebooks (docs/results.md). */
import * as path from 'path';
import type { Command } from 'commander';

import { PACKAGE_ROOT } from '../paths';
import { readNotebooks, resultsJson, resultsMarkdown, resultsOfNotebooks, withGeneratedProse, type ClaimResult } from '../experiments/results';

import { writeFileAtomic } from '../util/atomic';

export { readNotebooks };

/** The results of the notebooks in `folder` (default: the package's notebooks/). */
export function resultsOf(folder: string = path.join(PACKAGE_ROOT, 'notebooks')): ClaimResult[] {
  return resultsOfNotebooks(folder);
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
