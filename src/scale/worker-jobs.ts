/**
 * What a BullMQ worker accepts from the queue. Anyone who can write to the Redis can add a job, so a job is
 * checked before it runs: it must be one of the jobs `enqueue` makes (a shard or the merge of download,
 * filter, features or caption), every flag must be one that stage has (engine flags, --help and positional
 * arguments are refused), and every path it names (inputs, outputs, tags, checkpoints, feature caches) must
 * lie under the worker's `--root` once resolved: `..` and symlinks that lead out are refused. The command line
 * the worker runs is built again from the checked fields, never passed through.
 */
import * as fs from 'fs';
import * as path from 'path';
import { hasControlCharacters, quoteInput } from '../util/untrusted-text';

/** A path option: checked under the root; `fallback` is the path the stage uses when the flag is absent. */
interface PathField {
  kind: 'path';
  fallback?: string;
}

/**
 * How a stage's flag is checked: `flag` takes no value; `value` any text (a number, a preset name, an
 * e-mail); `path` a file or folder under the root; `path-or-name` one of `names` or else a path; `source` a
 * world split (`world:PRESET:SPLIT`) or else a path; `feature-spec` caption's --features JSON, whose
 * cacheDir is a path; `shard` and `merge` the engine's --shard i/N and --merge-shards N; `count` a whole number
 * from 1 to `max` (how many processes, threads or requests a job may start on the worker's machine); `refused` a
 * flag of the stage that a worker never runs with, for `reason`.
 */
export type FieldSpec =
  | { kind: 'flag' }
  | { kind: 'value' }
  | PathField
  | { kind: 'path-or-name'; names: readonly string[] }
  | { kind: 'source' }
  | { kind: 'feature-spec' }
  | { kind: 'shard' }
  | { kind: 'merge' }
  | { kind: 'count'; max: number }
  | { kind: 'refused'; reason: string };

const FLAG = { kind: 'flag' } as const;
const VALUE = { kind: 'value' } as const;
const PATH = { kind: 'path' } as const;
/** Processes or worker threads a job may start on the worker's machine, and requests it may hold in flight. */
const PROCESSES = { kind: 'count', max: 256 } as const;
const IN_FLIGHT = { kind: 'count', max: 4096 } as const;

/** --allow-private, --ignore-robots-tag, --contact (src/cli/filter.ts, addFetchOptions) and the shard flags. */
const COMMON: Record<string, FieldSpec> = {
  '--allow-private': FLAG,
  '--ignore-robots-tag': FLAG,
  '--contact': VALUE,
  '--shard': { kind: 'shard' },
  '--merge-shards': { kind: 'merge' },
};

/**
 * The stages `--engine bullmq` enqueues and the flags of each (their commands in src/cli; test/trust-scale.test.ts
 * checks that this list and the commands agree). Engine flags (--engine, --redis, --slurm-*, …) are absent:
 * a job that carries one is refused, so a job cannot make a worker enqueue or submit further work.
 */
/** A worker reads only the local files inside a list's folder (the default policy), never any path a row names. */
const ANY_LOCAL_FILE: FieldSpec = {
  kind: 'refused',
  reason: "a worker does not read the local files a list's rows name outside the list's folder: they may lie anywhere, not only under --root",
};

export const WORKER_STAGES: Readonly<Record<string, Readonly<Record<string, FieldSpec>>>> = {
  download: {
    '--in': PATH,
    '--out': PATH,
    '--input-format': VALUE,
    '--layout': VALUE,
    '--url-col': VALUE,
    '--caption-col': VALUE,
    '--resize-mode': VALUE,
    '--image-size': VALUE,
    '--resize-only-if-bigger': FLAG,
    '--encode-format': VALUE,
    '--encode-quality': VALUE,
    '--reencode': FLAG,
    '--min-size': VALUE,
    '--max-aspect': VALUE,
    '--max-pixels': VALUE,
    '--image-filter': VALUE,
    '--processes': PROCESSES,
    '--concurrency': IN_FLIGHT,
    '--per-host': VALUE,
    '--timeout': VALUE,
    '--retries': VALUE,
    '--max-bytes': VALUE,
    '--samples-per-shard': VALUE,
    '--max-shards': VALUE,
    '--max-caption-chars': VALUE,
    '--max-line-chars': VALUE,
    '--hashes': PATH,
    '--allow-local-files': ANY_LOCAL_FILE,
    '--retry-failed': FLAG,
    '--no-progress': FLAG,
    '--json': FLAG,
    ...COMMON,
  },
  filter: {
    '--allow-local-files': ANY_LOCAL_FILE,
    '--preset': VALUE,
    '--in': PATH,
    '--out': PATH,
    '--stages': VALUE,
    '--tags': PATH,
    '--no-nsfw': FLAG,
    '--concurrency': IN_FLIGHT,
    '--layout': VALUE,
    '--workers': PROCESSES,
    '--catalog': VALUE,
    '--hypernyms': VALUE,
    '--vocabulary': { kind: 'path-or-name', names: ['auto', 'reference', 'input'] },
    '--max-member-bytes': VALUE,
    ...COMMON,
  },
  features: {
    '--allow-local-files': ANY_LOCAL_FILE,
    '--in': { kind: 'source' },
    '--backbone': VALUE,
    '--out': { kind: 'path', fallback: '.cckit-cache' },
    '--seed': VALUE,
    '--limit': VALUE,
    '--batch-size': VALUE,
    '--regions': VALUE,
    '--tags': PATH,
    '--images': PATH,
    '--recipe': VALUE,
    '--pretrain-steps': VALUE,
    '--pretrain-images': VALUE,
    '--max-member-bytes': VALUE,
    ...COMMON,
  },
  caption: {
    '--allow-local-files': ANY_LOCAL_FILE,
    '--ckpt': PATH,
    '--in': PATH,
    '--out': PATH,
    '--decode': VALUE,
    '--format': VALUE,
    '--limit': VALUE,
    '--features': { kind: 'feature-spec' },
    ...COMMON,
  },
};

/** The short flags the stages' commands define, as their long names. */
export const WORKER_SHORT_FLAGS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  download: { '-i': '--in', '-o': '--out' },
  filter: { '-p': '--preset', '-i': '--in', '-o': '--out' },
  features: { '-i': '--in', '-b': '--backbone', '-o': '--out', '-s': '--seed' },
  caption: { '-i': '--in', '-o': '--out' },
};

/** cckit's own option, valid before or after the stage's name (src/cli/main.ts). */
const GLOBAL: Record<string, FieldSpec> = { '--backend': VALUE };

/** The keys of caption's --features JSON (FeatureSpec in src/experiments/visual.ts) and their types. */
const FEATURE_SPEC_KEYS: Record<string, 'string' | 'boolean'> = {
  backbone: 'string',
  mode: 'string',
  tags: 'boolean',
  permuteRegions: 'boolean',
  cacheDir: 'string',
};

/** A job the worker will not run: `field` names what was wrong (a data field, the stage, or a flag). */
export class JobRefused extends Error {
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'JobRefused';
  }
}

export interface JobCheckOptions {
  /** The folder every path of a job must lie in (it must exist). */
  root: string;
  /** The queue the job came from: shard jobs must carry --shard i/N, merge jobs --merge-shards N. */
  queue?: 'shard' | 'merge';
  /** What relative paths are relative to (default: this process's working folder, which the job's process inherits). */
  cwd?: string;
}

export interface CheckedJob {
  stage: string;
  /** The command line to run (after `cckit`), built from the checked fields: `--flag=value` and `--flag`. */
  argv: string[];
}

/** `inner` is `outer` or lies in it (both absolute and resolved). */
function isInside(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/**
 * The path with every symlink resolved, as the kernel would follow it, including a part that does not
 * exist yet (the stage creates it): the longest existing prefix is resolved, a dangling symlink's target
 * followed, and the rest appended.
 */
export function resolveRealPath(file: string, depth = 0): string {
  if (depth > 40) throw new Error('too many levels of symbolic links');
  let head = path.resolve(file);
  const tail: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(head), ...tail.reverse());
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
    }
    let link: string | undefined;
    try {
      if (fs.lstatSync(head).isSymbolicLink()) link = fs.readlinkSync(head);
    } catch {
      // head does not exist: go up
    }
    if (link !== undefined) return resolveRealPath(path.join(path.resolve(path.dirname(head), link), ...tail.reverse()), depth + 1);
    const parent = path.dirname(head);
    if (parent === head) return path.join(head, ...tail.reverse());
    tail.push(path.basename(head));
    head = parent;
  }
}

function checkText(field: string, value: unknown): string {
  if (typeof value !== 'string') throw new JobRefused(field, `not a string (${typeof value})`);
  if (hasControlCharacters(value)) throw new JobRefused(field, `"${quoteInput(value)}" holds a control character`);
  return value;
}

/**
 * A path of the job, absolute, its `..` resolved, under the root; refused when it lies outside (before or
 * after following symlinks).
 */
function checkPath(field: string, value: string, root: string, cwd: string): string {
  if (value === '') throw new JobRefused(field, 'an empty path');
  const absolute = path.resolve(cwd, value);
  let real: string;
  try {
    real = resolveRealPath(absolute);
  } catch (err) {
    // a symlink loop, a folder the worker may not read: the job is refused, not retried
    throw new JobRefused(field, `"${quoteInput(value)}" cannot be resolved: ${quoteInput((err as Error).message)}`);
  }
  if (!isInside(root, real)) {
    const via = isInside(root, absolute) ? ` (through a symlink: it resolves to ${quoteInput(real)})` : '';
    throw new JobRefused(field, `"${quoteInput(value)}" lies outside the worker's --root ${quoteInput(root)}${via}`);
  }
  return absolute;
}

/** The stage's flags, and the shard or merge, from the job's command line; anything else is refused. */
function parseArgv(argv: readonly string[]): { stage: string; values: Map<string, string | true>; global: Map<string, string> } {
  const global = new Map<string, string>();
  let stage: string | undefined;
  const values = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const token = checkText(`argv[${i}]`, argv[i]);
    if (stage === undefined && !token.startsWith('-')) {
      if (!Object.hasOwn(WORKER_STAGES, token))
        throw new JobRefused('stage', `"${quoteInput(token)}" is not a stage the engine enqueues (${Object.keys(WORKER_STAGES).join(', ')})`);
      stage = token;
      continue;
    }
    if (!token.startsWith('-') || token === '-' || token === '--')
      throw new JobRefused(`argv[${i}]`, `"${quoteInput(token)}": positional arguments are not accepted${stage ? '' : ' (no stage before it)'}`);
    let name: string;
    let inline: string | undefined;
    if (token.startsWith('--')) {
      const eq = token.indexOf('=');
      name = eq > 0 ? token.slice(0, eq) : token;
      inline = eq > 0 ? token.slice(eq + 1) : undefined;
    } else {
      const long = stage && Object.hasOwn(WORKER_SHORT_FLAGS[stage], token) ? WORKER_SHORT_FLAGS[stage][token] : undefined;
      if (long === undefined) throw new JobRefused(quoteInput(token), `not a flag of ${stage ?? 'cckit'} that a worker accepts`);
      name = long;
    }
    const stageSpec = stage ? WORKER_STAGES[stage] : undefined;
    const spec = (stageSpec && Object.hasOwn(stageSpec, name) ? stageSpec[name] : undefined) ?? (Object.hasOwn(GLOBAL, name) ? GLOBAL[name] : undefined);
    if (spec === undefined) throw new JobRefused(quoteInput(name), `not a flag of ${stage ?? 'cckit'} that a worker accepts`);
    const target = Object.hasOwn(GLOBAL, name) && !(stageSpec && Object.hasOwn(stageSpec, name)) ? global : values;
    if (target.has(name)) throw new JobRefused(name, 'given twice');
    if (spec.kind === 'refused') throw new JobRefused(name, spec.reason);
    if (spec.kind === 'flag') {
      if (inline !== undefined) throw new JobRefused(name, 'takes no value');
      values.set(name, true);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new JobRefused(name, 'needs a value');
    target.set(name, checkText(name, value));
  }
  if (stage === undefined) throw new JobRefused('stage', 'the job names no stage');
  return { stage, values, global };
}

function checkFeatureSpec(field: string, value: string, root: string, cwd: string): string {
  let spec: unknown;
  try {
    spec = JSON.parse(value);
  } catch {
    throw new JobRefused(field, 'not JSON');
  }
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw new JobRefused(field, 'not a JSON object');
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(spec)) {
    if (!Object.hasOwn(FEATURE_SPEC_KEYS, key))
      throw new JobRefused(`${field} ${quoteInput(key)}`, `not a key of the feature spec (${Object.keys(FEATURE_SPEC_KEYS).join(', ')})`);
    if (typeof v !== FEATURE_SPEC_KEYS[key]) throw new JobRefused(`${field} ${key}`, `not a ${FEATURE_SPEC_KEYS[key]}`);
    out[key] = FEATURE_SPEC_KEYS[key] === 'string' ? checkText(`${field} ${key}`, v) : v;
  }
  if (typeof out.cacheDir === 'string') out.cacheDir = checkPath(`${field} cacheDir`, out.cacheDir, root, cwd);
  else checkPath(`${field} cacheDir (absent: .cckit-cache)`, '.cckit-cache', root, cwd);
  return JSON.stringify(out);
}

/** A world split as `cckit features` reads one (parseWorldSource in src/vision/sources.ts): anything else is a path. */
const WORLD_SOURCE = /^world:[a-z]+:[a-z-]+$/;

/**
 * Checks a job's data (`{ argv, out, index }`, what `enqueue` writes) and returns the command line to run.
 * Throws JobRefused naming the field when the job is not one the engine makes or a path leaves the root.
 */
export function checkWorkerJob(data: unknown, options: JobCheckOptions): CheckedJob {
  const cwd = options.cwd ?? process.cwd();
  const root = fs.realpathSync(path.resolve(cwd, options.root));
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new JobRefused('data', 'not an object');
  for (const key of Object.keys(data))
    if (!['argv', 'out', 'index'].includes(key)) throw new JobRefused(`data.${quoteInput(key)}`, 'not a field of the jobs cckit enqueues (argv, out, index)');
  const { argv, out, index } = data as { argv?: unknown; out?: unknown; index?: unknown };
  if (!Array.isArray(argv) || argv.length === 0) throw new JobRefused('data.argv', 'not a list of arguments');
  if (out !== undefined) checkPath('data.out', checkText('data.out', out), root, cwd);
  if (index !== undefined && !(Number.isInteger(index) && (index as number) >= 0)) throw new JobRefused('data.index', 'not a whole number');

  const { stage, values, global } = parseArgv(argv as unknown[] as string[]);
  const fields = WORKER_STAGES[stage];
  const shard = values.get('--shard');
  const merge = values.get('--merge-shards');
  if ((shard === undefined) === (merge === undefined)) throw new JobRefused('--shard', 'a job carries one of --shard i/N and --merge-shards N');
  if (options.queue === 'shard' && shard === undefined) throw new JobRefused('--shard', 'a shard job without --shard');
  if (options.queue === 'merge' && merge === undefined) throw new JobRefused('--merge-shards', 'a merge job without --merge-shards');

  const built: string[] = [];
  for (const [name, value] of global) built.push(`${name}=${value}`);
  built.push(stage);
  for (const [name, value] of values) {
    const spec = fields[name];
    if (value === true) {
      built.push(name);
      continue;
    }
    let checked: string;
    switch (spec.kind) {
      case 'value':
        checked = value;
        break;
      case 'path':
        checked = checkPath(name, value, root, cwd);
        break;
      case 'path-or-name':
        checked = spec.names.includes(value) ? value : checkPath(name, value, root, cwd);
        break;
      case 'source':
        checked = WORLD_SOURCE.test(value) ? value : checkPath(name, value, root, cwd);
        break;
      case 'feature-spec':
        checked = checkFeatureSpec(name, value, root, cwd);
        break;
      case 'shard': {
        const m = /^(\d+)\/(\d+)$/.exec(value);
        if (!m || Number(m[1]) >= Number(m[2])) throw new JobRefused(name, `"${quoteInput(value)}" is not i/N with 0 ≤ i < N`);
        if (index !== undefined && Number(m[1]) !== index) throw new JobRefused('data.index', `${String(index)} is not the shard of --shard ${value}`);
        checked = value;
        break;
      }
      case 'merge':
        if (!/^[1-9]\d*$/.test(value)) throw new JobRefused(name, `"${quoteInput(value)}" is not a whole number of at least 1`);
        checked = value;
        break;
      case 'count':
        if (!/^[1-9]\d{0,9}$/.test(value) || Number(value) > spec.max)
          throw new JobRefused(name, `"${quoteInput(value)}" is not a whole number from 1 to ${spec.max}`);
        checked = value;
        break;
      default:
        throw new JobRefused(name, 'takes no value');
    }
    built.push(`${name}=${checked}`);
  }
  // a path the stage uses when its flag is absent must lie under the root too
  for (const [name, spec] of Object.entries(fields))
    if (spec.kind === 'path' && spec.fallback !== undefined && !values.has(name)) checkPath(`${name} (absent: ${spec.fallback})`, spec.fallback, root, cwd);
  return { stage, argv: built };
}
