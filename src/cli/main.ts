/** The `cckit` command line: one sub-command per job, each with --help. */
import * as fs from 'fs';
import * as path from 'path';
import { Command, CommanderError, Option } from 'commander';
import { PACKAGE_ROOT } from '../paths';
import { runDemo } from './demo';
import { runRetrieval } from './retrieval';
import { runScore } from './score';

export function buildProgram(): Command {
  const program = new Command('cckit')
    .description('Conceptual Captions 3M / 12M research kit: data pipelines, captioners and caption metrics')
    .version((JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });

  program
    .command('score')
    .description('score captions with coco-caption metrics (BLEU-1..4, METEOR, ROUGE-L, CIDEr-D); prints one JSON object')
    .option('-i, --input <file>', 'scoring file: {"images": [{"image_id", "references": [...], "candidate", "domain"?}]}')
    .option('-r, --results <file>', 'COCO results [{"image_id", "caption"}] (use with --annotations)')
    .option('-a, --annotations <file>', 'COCO / nocaps caption annotations {"images", "annotations"}')
    .option('-t, --tokenized', 'text is already tokenised: split on spaces only (no PTB tokenisation)', false)
    .option('-m, --metrics <list>', 'comma-separated metric families or names (bleu, meteor, rouge, cider, Bleu_4, …)', 'bleu,meteor,rouge,cider')
    .option('-d, --by-domain', 'also report every metric per nocaps domain (in, near, out) and entire', false)
    .option('--pretty', 'indent the JSON output', false)
    .action(runScore);

  program
    .command('retrieval')
    .description('Recall@1/5/10 image→text and text→image from a similarity matrix; prints JSON')
    .requiredOption('-s, --similarity <file>', 'JSON {"similarity": [[...] per image], "text_image"?: [image index of each text]}')
    .addOption(new Option('-k, --ks <list>', 'comma-separated K values').default('1,5,10'))
    .action(runRetrieval);

  program
    .command('demo', { isDefault: false })
    .description("the main job on the embedded default: scores the example predictions in the repo's fixtures")
    .action(runDemo);

  program.exitOverride();
  for (const command of program.commands) command.exitOverride();
  return program;
}

/** Runs the CLI; errors go to stderr with a non-zero exit code. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    process.stderr.write(`cckit: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}
