/** The `cckit` command line: one sub-command per job, each with --help. */
import * as os from 'os';
import * as path from 'path';
import { Command, CommanderError, Option } from 'commander';
import { PACKAGE_ROOT } from '../paths';
import { BACKEND_ENV_VAR, DEFAULT_BACKEND_ORDER } from '../tf/backend';
import { readJsonFile } from '../util/json';
import { runDemo } from './demo';
import { runDoctor } from './doctor';
import { registerEvalCommand } from './eval';
import { registerSplitCommand } from './split';
import { registerDownloadCommand } from './download';
import { featuresCommand } from './features';
import { runCaption, runTable3Command, runTrain } from './train';
import { PROFILE_HELP, registerTableCommand } from './table';
import { registerResultsCommand } from './results';
import { addFetchOptions, runFilter, runOverlap } from './filter';
import { runRetrieval } from './retrieval';
import { runScore } from './score';
import { DEFAULT_RARE_WORD_LIST, runStats } from './stats';
import { runWorldBuild, runWorldCheck, runWorldServe } from './world';
import { addShardOptions, registerScaleCommands, workerJobRecheck } from './scale';
import { maxMemberBytesOption } from './options';
import { EXIT_WITH_PARENT } from '../scale/local';
import { escapeControlCharacters } from '../util/untrusted-text';
import { checkConfigFile } from './config';

/**
 * Started by an engine with an IPC channel (src/scale/local.ts, runCckit's exitWithParent): exit as soon as the
 * channel closes, i.e. when the worker that started this process died, so a killed worker leaves no orphan.
 */
function exitWithParent(): void {
  if (process.env[EXIT_WITH_PARENT] !== '1' || !process.send) return;
  process.channel?.unref(); // the channel alone must not keep this process alive
  process.once('disconnect', () => {
    process.stderr.write('cckit: the process that started this one is gone: exiting\n');
    process.exit(130);
  });
}

export function buildProgram(): Command {
  const program = new Command('cckit')
    .description('Conceptual Captions 3M / 12M research kit: data pipelines, captioners and caption metrics')
    .version((readJsonFile(path.join(PACKAGE_ROOT, 'package.json')) as { version: string }).version)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeErr: (text) => process.stderr.write(text) })
    .addOption(
      new Option('--backend <name>', `tfjs backend for every command (as ${BACKEND_ENV_VAR}; default: the first that loads)`).choices([
        ...DEFAULT_BACKEND_ORDER,
      ]),
    )
    .hook('preAction', (command) => {
      const backend = command.opts<{ backend?: string }>().backend;
      if (backend) process.env[BACKEND_ENV_VAR] = backend;
    });

  program.command('doctor').description('which tfjs backends are installed, which load and why the others do not, and which one runs use').action(runDoctor);

  program
    .command('score')
    .description('score captions with coco-caption metrics (BLEU-1..4, METEOR, ROUGE-L, CIDEr-D; SPICE when asked for); prints one JSON object')
    .option('-i, --input <file>', 'scoring file: {"images": [{"image_id", "references": [...], "candidate", "domain"?}]}')
    .option('-r, --results <file>', 'COCO results [{"image_id", "caption"}] (use with --annotations)')
    .option('-a, --annotations <file>', 'COCO / nocaps caption annotations {"images", "annotations"}')
    .option('-t, --tokenized', 'text is already tokenised: split on spaces only (no PTB tokenisation)', false)
    .option(
      '-m, --metrics <list>',
      'comma-separated metric families or names (bleu, meteor, rouge, cider, spice, Bleu_4, …; spice only when named)',
      'bleu,meteor,rouge,cider',
    )
    .option('-d, --by-domain', 'also report every metric per nocaps domain (in, near, out) and entire', false)
    .option('--pretty', 'indent the JSON output', false)
    .action(runScore);

  program
    .command('retrieval')
    .description('Recall@1/5/10 image→text and text→image from a similarity matrix; prints JSON')
    .requiredOption('-s, --similarity <file>', 'JSON {"similarity": [[...] per image], "text_image"?: [image index of each text]}')
    .addOption(new Option('-k, --ks <list>', 'comma-separated K values').default('1,5,10'))
    .action(runRetrieval);

  const world = program.command('world').description('the embedded long-tail world: deterministic offline data for every table');
  world
    .command('build')
    .description('write a world: web pool TSVs with truth, COCO/nocaps/Flickr/narrative annotations (and shards with --render)')
    .option('-p, --preset <name>', 'tiny (~5k web pairs), small (~50k) or medium (~500k)', 'tiny')
    .option('-s, --seed <n>', 'world seed: the same seed gives byte-identical files', '0')
    .requiredOption('-o, --out <dir>', 'output folder')
    .option('--size <split=count...>', 'override split sizes, e.g. --size web=20000 nocaps-val=900')
    .option('--zipf <exponent>', 'Zipf exponent of concept popularity on the web (default 1.0)')
    .option('--render', 'also render every image into img2dataset-style webdataset shards', false)
    .action(runWorldBuild);
  world
    .command('serve')
    .description("serve a world's images over HTTP on 127.0.0.1 (GET /SEED/SPLIT/ID.jpg)")
    .option('-s, --seed <n>', 'world seed', '0')
    .option('--port <n>', 'port (0 picks a free one)', '0')
    .option('--hostile', "also serve the web's bad hosts under /hostile/KIND/N.jpg (slow, hang, 404, 429, 500, redirects, lies, bombs, noai)", false)
    .action(runWorldServe);
  world
    .command('check')
    .description("measure the world against the papers' statistics (pool ratio, precision, <PERSON>, Table 1, rare words, Table 9, human CIDEr-D)")
    .option('-p, --preset <name>', 'experiment preset whose world and filtered pools are checked: tiny or small', 'tiny')
    .option('-s, --seed <n>', 'world seed', '0')
    .option('--cache <dir>', 'world data and filtered pools (shared with table3)', '.cckit-cache')
    .option('--k <list>', 'comma-separated mention thresholds of the nocaps out-of-domain coverage', '1,5,10')
    .option('--json', 'print the result as JSON', false)
    .action(runWorldCheck);

  program
    .command('stats')
    .description('CC12M Table 1 statistics (pairs, token/type, caption length, rare words) of a TSV or a shard folder, streaming')
    .argument('<source>', 'CC3M/CC12M-style TSV file, or a folder of webdataset shards / img2dataset output')
    .option('--layout <layout>', 'TSV column order: auto, caption-url (CC3M) or url-caption (CC12M)', 'auto')
    .option('--tokenizer <name>', 'fast (PTB-like, for 12M rows) or ptb (the metrics tokenizer)', 'fast')
    .option('--rare-words <list>', 'comma-separated words to count', DEFAULT_RARE_WORD_LIST)
    .option('--malformed <mode>', 'throw (stop at the first malformed line) or reject (count and go on)', 'throw')
    .option('--json', 'print the statistics as JSON', false)
    .addOption(maxMemberBytesOption())
    .action(runStats);

  const filter = program
    .command('filter')
    .description('run the CC3M or CC12M filtering pipeline over a TSV; writes kept pairs, rejects with reasons, and the funnel')
    .option('-p, --preset <name>', 'cc3m or cc12m', 'cc12m')
    .requiredOption('-i, --in <source>', 'CC3M/CC12M-style TSV (the world: OUT/web/cc12m.tsv), or a folder of webdataset shards / img2dataset output')
    .requiredOption('-o, --out <dir>', 'output folder')
    .option('--stages <list>', 'run only these stages: text,image-text,image,transform,prune')
    .option('--tags <file>', 'vision labels as JSON lines {url, tags} (default: truth.jsonl beside the input, as the world writes)')
    .option('--no-nsfw', 'skip the pornography detector (faster)')
    .option('--concurrency <n>', 'pairs in flight at once', '8')
    .option('--layout <layout>', 'TSV column order: auto (from URL-looking column), caption-url (CC3M) or url-caption (CC12M)', 'auto')
    .option(
      '--workers <n>',
      'worker threads for the text and image–text stages (0: main thread)',
      String(Math.max(1, Math.min(os.availableParallelism?.() ?? os.cpus().length, 8))),
    )
    .option(
      '--catalog <name>',
      "CC3M hypernymiser's concept catalog: wordnet, world (the embedded world's), or auto (world for world:// data, else wordnet)",
      'auto',
    )
    .option(
      '--hypernyms <rule>',
      "which words the CC3M transform hypernymises: entities (named things, the paper's rule), every-noun (also fine-grained common nouns), or auto (entities, the paper's rule, for every input)",
      'auto',
    )
    .option(
      '--vocabulary <name|file>',
      "rare-word check's vocabulary: reference (English Wikipedia's word list + SUBTLEX-US + WordNet, the papers' thresholds), input (the input's own counts, threshold scaled), a token<TAB>count file, or auto (input for world data, else reference)",
      'auto',
    );
  addShardOptions(addFetchOptions(filter.addOption(maxMemberBytesOption()))).action(runFilter);

  registerDownloadCommand(program);
  registerScaleCommands(program);

  program
    .command('overlap')
    .description('CC3M ∩ CC12M by normalised URL: report the shared URLs, optionally write B without them')
    .argument('<a>', 'first TSV (e.g. CC3M, caption<TAB>url)')
    .argument('<b>', 'second TSV (e.g. CC12M, url<TAB>caption)')
    .option('-o, --out <file>', 'write B minus the URLs A has')
    .action(runOverlap);

  program
    .command('demo', { isDefault: false })
    .description("the main job on the embedded default: scores the example predictions in the repo's fixtures")
    .action(runDemo);

  program.addCommand(featuresCommand());

  program
    .command('train')
    .description('train (or resume, or reuse) the run a config file describes; writes runs/<id>/ (config, log.jsonl, checkpoints)')
    .requiredOption('-c, --config <file>', 'JSON: TrainConfig plus "features": {"backbone", "mode", "tags"} (see docs/training.md)')
    .option('--runs <dir>', 'runs root', 'runs')
    .option('--force', 'discard a run with the same id and train again', false)
    .hook('preAction', (command) => checkConfigFile(command.opts<{ config?: string }>().config))
    .action(runTrain);

  program
    .command('caption')
    .description("caption a COCO/nocaps annotation file's images with a trained run; writes COCO results or a nocaps submission, and scores into the run")
    .requiredOption('--ckpt <dir>', 'run directory (runs/<id>) or one of its checkpoints')
    .requiredOption('-i, --in <file>', 'COCO captions / nocaps annotations JSON (references are used for the scores)')
    .requiredOption('-o, --out <file>', 'predictions file to write')
    .option('--decode <preset>', 'cc12m (beam 5, α 0.6, max 36), cc3m (beam 4), narratives (max 180) or greedy', 'cc12m')
    .option('--format <format>', 'coco (COCO results) or nocaps (submission: integer image ids)', 'coco')
    .option('--limit <n>', 'caption only the first n images')
    .option('--features <json>', "visual features spec, when the run's run.json has none");
  // the thumbnails written beside the predictions load the images
  addShardOptions(addFetchOptions(program.commands.at(-1)!)).action(runCaption);

  registerEvalCommand(program);
  registerSplitCommand(program);

  registerTableCommand(program);
  registerResultsCommand(program);
  program
    .command('table3')
    .description(
      'CC12M Table 3 end to end on the embedded world (cckit table cc12m/table3, printed as the quick start shows it): filter, pre-train (none/CC3M/CC12M/both), fine-tune on COCO, nocaps CIDEr by domain',
    )
    .option('-p, --preset <name>', 'tiny (minutes on a CPU) or small', 'tiny')
    .option('-s, --seed <n>', 'world and training seed', '0')
    .option('--runs <dir>', 'runs root', 'runs')
    .option('--cache <dir>', 'world data, filtered pools, backbone and features', '.cckit-cache')
    .option('--force', 'retrain every run', false)
    .option('--json', 'print the result as JSON', false)
    .option('--profile <file>', PROFILE_HELP)
    .action(runTable3Command);

  program.exitOverride();
  const all = (command: Command): Command[] => [command, ...command.commands.flatMap(all)];
  for (const command of all(program)) {
    command.exitOverride();
    reportUnknownOptionsFirst(command);
  }
  return program;
}

/**
 * Commander checks required options before unknown ones, so a typo in a required option ("--inn x")
 * was reported as "required option '-i, --in <source>' not specified". Here the required options are
 * checked after commander has refused unknown options (and missing arguments), in a preAction hook,
 * with commander's own message: an unknown option is always the error reported first.
 */
function reportUnknownOptionsFirst(command: Command): void {
  const required = command.options.filter((option) => option.mandatory);
  if (required.length === 0) return;
  for (const option of required) option.mandatory = false;
  command.hook('preAction', () => {
    for (const option of required)
      if (command.getOptionValue(option.attributeName()) === undefined)
        command.error(`error: required option '${option.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue', exitCode: 1 });
  });
}

/** Runs the CLI; errors go to stderr with a non-zero exit code. */
export async function main(argv: string[]): Promise<void> {
  exitWithParent();
  const refused = workerJobRecheck(argv.slice(2));
  if (refused !== undefined) {
    process.stderr.write(`cckit: refused in the job's own process (paths checked again under the worker's --root): ${escapeControlCharacters(refused)}\n`);
    process.exitCode = 2;
    return;
  }
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    // messages quote input (file names, sample keys, URLs): no escape sequence or forged line reaches the terminal
    process.stderr.write(`cckit: ${(err as Error).message.split('\n').map(escapeControlCharacters).join('\n')}\n`);
    process.exitCode = 1;
  }
}
