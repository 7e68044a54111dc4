/**
 * `cckit eval --preds preds.json --refs REFS`: scores COCO results (or a nocaps submission, the same
 * shape) against COCO or nocaps caption annotations. Prints a table of the corpus metrics, with
 * nocaps's in / near / out / overall columns when the annotations give domains; `--json` prints
 * {images, corpus, domains?}. `--run DIR` also writes DIR/predictions/<split>.json and
 * DIR/scores/<split>.json in the run layout.
 */
import { Command } from 'commander';
import { loadCocoResults } from '../metrics/inputs';
import { evaluateRun, scoreCases, CaseScores, DomainKey } from '../decode/evaluate-run';
import { formatTable } from '../report/table';

export interface EvalFlags {
  preds: string;
  refs: string;
  metrics: string;
  json: boolean;
  tokenized?: boolean;
  run?: string;
  split?: string;
  decoder?: string;
}

export interface EvalOutput extends Omit<CaseScores, 'perImage'> {
  images: number;
}

const DOMAIN_COLUMNS: readonly DomainKey[] = ['in', 'near', 'out', 'overall'];

/** The table `cckit eval` prints: one row per metric, one column per domain (or "overall" alone). */
export function formatEvalTable(output: EvalOutput): string {
  const names = Object.keys(output.corpus);
  if (!output.domains)
    return formatTable(
      ['metric', 'overall'],
      names.map((n) => [n, output.corpus[n]]),
    );
  const columns = DOMAIN_COLUMNS.filter((d) => output.domains![d] !== undefined);
  return formatTable(
    ['metric', ...columns],
    names.map((n) => [n, ...columns.map((d) => output.domains![d]![n])]),
  );
}

/** Runs `cckit eval`; returns what it printed. */
export function runEval(flags: EvalFlags, write: (text: string) => void = (text) => process.stdout.write(text)): EvalOutput {
  const { cases, unpredicted } = loadCocoResults(flags.preds, flags.refs);
  if (unpredicted.length > 0) {
    process.stderr.write(`cckit: ${unpredicted.length} annotated image(s) have no prediction and are not scored (first: ${unpredicted[0]})\n`);
  }
  const options = { tokenized: flags.tokenized ?? false, metrics: flags.metrics.split(',').filter((m) => m.trim() !== '') };
  let scored: CaseScores;
  if (flags.run) {
    const run = evaluateRun(cases, { ...options, runDir: flags.run, split: flags.split ?? 'val', decoder: flags.decoder });
    scored = run;
    process.stderr.write(`cckit: wrote ${run.predictionsPath} and ${run.scoresPath}\n`);
  } else {
    scored = scoreCases(cases, options);
  }
  const output: EvalOutput = scored.domains
    ? { images: cases.length, corpus: scored.corpus, domains: scored.domains }
    : { images: cases.length, corpus: scored.corpus };
  if (flags.json) {
    write(JSON.stringify(output, null, 2) + '\n');
  } else {
    write(`${cases.length} images${scored.domains ? ' (nocaps domains)' : ''}, raw coco-caption scale\n${formatEvalTable(output)}\n`);
  }
  return output;
}

/** Adds `cckit eval` to the program. */
export function registerEvalCommand(program: Command): Command {
  return program
    .command('eval')
    .description('score COCO results or a nocaps submission against COCO / nocaps annotations; prints a table (nocaps: in, near, out, overall)')
    .requiredOption('-p, --preds <file>', 'COCO results / nocaps submission: [{"image_id", "caption"}]')
    .requiredOption('-r, --refs <file>', 'COCO captions or nocaps annotations {"images": [{"id", "domain"?}], "annotations": [{"image_id", "caption"}]}')
    .option(
      '-m, --metrics <list>',
      'comma-separated metric families or names (bleu, meteor, rouge, cider, spice, Bleu_4, …; spice only when named)',
      'bleu,meteor,rouge,cider',
    )
    .option('--json', 'print {images, corpus, domains?} as JSON instead of the table', false)
    .option('-t, --tokenized', 'text is already tokenised: split on spaces only (no PTB tokenisation)', false)
    .option('--run <dir>', 'also write predictions/<split>.json and scores/<split>.json into this run directory')
    .option('--split <name>', 'split name for --run', 'val')
    .option('--decoder <label>', 'decoder label stored in the predictions file with --run (e.g. "beam5 α0.6 max36")')
    .action((flags: EvalFlags) => {
      runEval(flags);
    });
}
