/**
 * The scale engines' trust boundaries (docs/scale.md, "Trust"): the Slurm scripts refuse a value that would
 * end an #SBATCH line and quote the cckit command line so bash gives back each argument exactly; a BullMQ
 * worker runs only the jobs the engine enqueues, with every path under its --root, and fails any other job
 * at once while it goes on with the next; Redis with an ACL user and TLS through the URL cckit is given.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { Job, Queue } from 'bullmq';
import { PACKAGE_ROOT } from '../src/paths';
import { buildProgram } from '../src/cli/main';
import { workerJobRecheck } from '../src/cli/scale';
import {
  JobRefused,
  SHARD_QUEUE,
  WORKER_SHORT_FLAGS,
  WORKER_STAGES,
  arrayScript,
  checkWorkerJob,
  cckitCommand,
  connect,
  enqueue,
  finishScript,
  redactRedisUrl,
  runSlurm,
  sbatchValue,
  shardArgv,
  startWorkers,
  waitForFlow,
  type ShardedJob,
} from '../src/scale';
import { runCli } from './scale-helpers';
import { findProgram, serviceOrSkip, startRedis, startSlurm } from './services';

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-trust-scale-')));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const JOB: ShardedJob = { argv: ['download', '--in', '/data/list.tsv', '--out', '/data/shards'], shards: 4, out: '/data/shards' };

// ---------------------------------------------------------------------------------------------------------
// Slurm

test('slurm scripts: a control character in any value is refused, naming the option', () => {
  const cases: [string, ShardedJob, Parameters<typeof arrayScript>[1], RegExp][] = [
    [
      'partition',
      JOB,
      { partition: 'debug\ntouch pwned' },
      /--slurm-partition holds a control character \(newline\) at position 5: refused, since it would end the #SBATCH line/,
    ],
    ['time', JOB, { time: '01:00:00\rtouch pwned' }, /--slurm-time holds a control character \(carriage return\) at position 8/],
    ['memory', JOB, { memory: '4G\ntouch pwned' }, /--slurm-mem holds a control character \(newline\) at position 2/],
    ['extra line', JOB, { extra: ['--account=abc', '--qos=x\ntouch pwned'] }, /extra #SBATCH line 2 holds a control character \(newline\)/],
    ['cpus', JOB, { cpusPerTask: '4\ntouch pwned' as unknown as number }, /--slurm-cpus: 4\\ntouch pwned is not a whole number/],
    [
      'out',
      { ...JOB, out: '/data/x\ntouch pwned' },
      {},
      /--out \(the output folder, in #SBATCH --output\) holds a control character \(newline\) at position 7/,
    ],
    [
      'argument',
      { ...JOB, argv: [...JOB.argv, '--contact', 'me\u001b[2J'] },
      {},
      /argument 7 of the command line \("me\\x1b\[2J"\) holds a control character \(escape\)/,
    ],
  ];
  for (const [what, job, options, message] of cases) {
    assert.throws(() => arrayScript(job, options, [0, 1, 2, 3]), message, `array script, ${what}`);
    assert.throws(() => finishScript(job, options, '/data/shards/.shards/plan.json', 1), message, `finishing script, ${what}`);
  }
  assert.throws(
    () => arrayScript({ ...JOB, out: '/data/a\\b' }, {}, [0]),
    /--out: "\/data\/a\\b" holds a backslash, which Slurm's #SBATCH --output cannot name/,
  );
  assert.throws(() => finishScript(JOB, {}, '/data/plan\n.json', 1), /--plan \(the shard plan\) holds a control character \(newline\) at position 10/);
  // the working folder becomes #SBATCH --chdir
  const cwd = process.cwd();
  const odd = path.join(dir, 'work\ntouch pwned');
  fs.mkdirSync(odd);
  process.chdir(odd);
  try {
    assert.throws(() => arrayScript(JOB, {}, [0]), /the working folder \(#SBATCH --chdir\) holds a control character \(newline\)/);
  } finally {
    process.chdir(cwd);
  }
});

test('slurm engine: a refused value stops the run before anything is written or submitted', async () => {
  const out = path.join(dir, 'refused-run');
  await assert.rejects(runSlurm({ ...JOB, out }, { partition: 'debug\ntouch pwned', env: { PATH: '/nonexistent' } }), /--slurm-partition holds/);
  assert.equal(fs.existsSync(out), false);
});

test('slurm CLI: --dry-run with a newline in --slurm-partition fails naming the option and prints no script', async () => {
  const r = await runCli([
    'download',
    '--in',
    path.join(dir, 'list.tsv'),
    '--out',
    path.join(dir, 'cli-out'),
    '--engine',
    'slurm',
    '--dry-run',
    '--slurm-partition',
    'debug\ntouch pwned',
  ]);
  assert.notEqual(r.code, 0);
  assert.match(r.output, /--slurm-partition holds a control character \(newline\) at position 5: refused, since it would end the #SBATCH line/);
  assert.doesNotMatch(r.output, /#!\/bin\/bash/);
});

/** The arguments bash gives to the script's last line (its cckit command line), run with a stub that prints them. */
function argumentsOfLastLine(script: string, cwd: string): string[] {
  const line = script.trimEnd().split('\n').at(-1)!;
  const r = spawnSync('bash', ['-c', `stub() { printf '%s\\0' "$@"; }\nstub ${line}`], { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\0').slice(0, -1);
}

test('slurm scripts: bash gives back every argument of the cckit command line exactly', () => {
  const tricky = [
    'a b  c',
    "it's",
    '"double"',
    '$HOME',
    '${HOME}',
    '`touch pwned-backtick`',
    '$(touch pwned-dollar)',
    'back\\slash',
    '*',
    '~',
    '!x',
    '',
    'ünï côdé',
    '{a,b}',
    '-x',
    'x=y',
    '#not a comment',
    '; touch pwned-semicolon &&',
    "'; touch pwned-quote; '",
  ];
  const work = path.join(dir, 'quoting');
  fs.mkdirSync(work);
  const job: ShardedJob = { argv: ['filter', '--contact', ...tricky], shards: 4, out: path.join(work, 'o u t') };
  const options = { partition: 'debug queue', time: '00:10:00', memory: '4G' };
  const array = arrayScript(job, options, [0, 1, 2, 3]);
  const finish = finishScript(job, options, path.join(work, "pl'an $x.json"), 2);
  for (const script of [array, finish]) assert.equal(spawnSync('bash', ['-n'], { input: script }).status, 0, script);
  assert.deepEqual(argumentsOfLastLine(array, work), [...cckitCommand(), ...shardArgv(job, 'env')]);
  assert.deepEqual(argumentsOfLastLine(finish, work), [
    ...cckitCommand(),
    ...['scale', 'finish', '--plan', path.join(work, "pl'an $x.json"), '--round', '2', '--attempts', '3'],
    ...['--slurm-partition', 'debug queue', '--slurm-time', '00:10:00', '--slurm-mem', '4G'],
  ]);
  assert.deepEqual(fs.readdirSync(work), [], 'nothing ran');
  // the #SBATCH values are quoted for sbatch's parser: in double quotes, with `"` and `\` behind a backslash
  assert.match(array, /^#SBATCH --partition="debug queue"$/m);
  assert.match(array, /^#SBATCH --time=00:10:00$/m);
  assert.equal(sbatchValue(`a b'c"d\\e#f`), `"a b'c\\"d\\\\e#f"`);
  assert.ok(array.split('\n').includes(`#SBATCH --output="${path.join(work, 'o u t')}/.shards/logs/slurm-%A_%a.log"`), array);
});

test('slurm: sbatch reads #SBATCH paths with blanks, quotes, # and % as they are', { timeout: 120_000 }, async (t) => {
  if (!serviceOrSkip(t, 'slurm')) return;
  const slurm = await startSlurm();
  t.after(() => slurm.stop());
  const odd = path.join(dir, `we ird "q" 'x' #h %p`);
  fs.mkdirSync(odd);
  const job: ShardedJob = { argv: ['--version'], shards: 1, out: path.join(odd, 'out') };
  const cwd = process.cwd();
  process.chdir(odd);
  let script: string;
  try {
    script = arrayScript(job, { partition: 'debug' }, [0]);
  } finally {
    process.chdir(cwd);
  }
  const logs = path.join(job.out, '.shards', 'logs');
  fs.mkdirSync(logs, { recursive: true });
  const file = path.join(dir, 'odd.sh');
  fs.writeFileSync(file, script);
  const sbatch = spawnSync(findProgram('sbatch') ?? 'sbatch', ['--parsable', '--wait', file], { env: slurm.env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(sbatch.status, 0, `${sbatch.stderr}${sbatch.stdout}\n${script}`);
  const id = sbatch.stdout.trim().split(';')[0];
  // the task's output went to the exact folder (--output), and it ran in the odd working folder (--chdir)
  const log = path.join(logs, `slurm-${id}_0.log`);
  assert.deepEqual(fs.readdirSync(logs), [path.basename(log)]);
  assert.match(fs.readFileSync(log, 'utf8'), /^\d+\.\d+\.\d+/);
  const show = spawnSync(findProgram('scontrol') ?? 'scontrol', ['show', 'job', '-o', `${id}_0`], { env: slurm.env, encoding: 'utf8' });
  if (show.status === 0) assert.ok(show.stdout.includes(`WorkDir=${odd} `), show.stdout);
  else t.diagnostic(`scontrol show job: ${show.stderr.trim()} (the job was already purged)`);
});

// ---------------------------------------------------------------------------------------------------------
// Worker jobs

const root = path.join(dir, 'root');
const outside = path.join(dir, 'outside');
fs.mkdirSync(path.join(root, 'data'), { recursive: true });
fs.mkdirSync(outside);
fs.writeFileSync(path.join(root, 'data', 'list.tsv'), 'http://127.0.0.1:1/a.jpg\ta dog on a sofa\n');
fs.symlinkSync(outside, path.join(root, 'link'));
fs.symlinkSync(path.join(outside, 'not-yet'), path.join(root, 'dangling'));
fs.symlinkSync(path.join(root, 'data'), path.join(root, 'inner-link'));
fs.symlinkSync(path.join(root, 'loop'), path.join(root, 'loop'));

const shardJob = (...args: string[]) => ({ argv: ['download', ...args, '--shard', '0/4'], out: path.join(root, 'out'), index: 0 });
const check = (data: unknown, queue: 'shard' | 'merge' = 'shard') => checkWorkerJob(data, { root, queue, cwd: root });

function refused(data: unknown, field: string, reason: RegExp, queue: 'shard' | 'merge' = 'shard'): void {
  assert.throws(
    () => check(data, queue),
    (err: unknown) => {
      assert.ok(err instanceof JobRefused, String(err));
      assert.equal(err.field, field, err.message);
      assert.match(err.message, reason);
      return true;
    },
  );
}

test('worker jobs: a good job passes, its command line built again from the checked fields', () => {
  const good = check(shardJob('-i', 'data/list.tsv', '--out=out', '--processes', '2', '--no-progress', '--allow-private', '--contact', '-me@example.org'));
  assert.deepEqual(good.argv, [
    'download',
    `--in=${path.join(root, 'data', 'list.tsv')}`,
    `--out=${path.join(root, 'out')}`,
    '--processes=2',
    '--no-progress',
    '--allow-private',
    '--contact=-me@example.org',
    '--shard=0/4',
  ]);
  // the merge, on the merge queue; cckit's --backend before the stage; a `..` and a symlink that stay inside
  const merge = check(
    { argv: ['--backend', 'wasm', 'filter', '--in', `${root}/data/../data/list.tsv`, '-o', 'inner-link/kept', '--merge-shards', '4'], out: root },
    'merge',
  );
  assert.deepEqual(merge.argv, [
    '--backend=wasm',
    'filter',
    `--in=${path.join(root, 'data', 'list.tsv')}`,
    `--out=${path.join(root, 'inner-link', 'kept')}`,
    '--merge-shards=4',
  ]);
  // features from a world split, caption with a feature spec whose cache is inside
  assert.equal(check({ argv: ['features', '--in', 'world:tiny:coco-train', '-b', 'mobilenet', '--out', 'cache', '--shard', '1/2'] }).stage, 'features');
  const caption = check({
    argv: [
      'caption',
      '--ckpt',
      'runs/a',
      '--in',
      'data/val.json',
      '--out',
      'preds.json',
      '--features',
      '{"backbone":"mobilenet","mode":"global","tags":false,"cacheDir":"cache"}',
      '--shard',
      '0/2',
    ],
  });
  assert.ok(caption.argv.includes(`--features=${JSON.stringify({ backbone: 'mobilenet', mode: 'global', tags: false, cacheDir: path.join(root, 'cache') })}`));
});

test('worker jobs: how many processes, threads and requests a job starts is capped', () => {
  refused(shardJob('-i', 'data/list.tsv', '--out', 'out', '--processes', '100000'), '--processes', /"100000" is not a whole number from 1 to 256/);
  refused(shardJob('-i', 'data/list.tsv', '--out', 'out', '--concurrency', '0'), '--concurrency', /from 1 to 4096/);
  refused({ argv: ['filter', '--in', 'data/list.tsv', '--out', 'kept', '--workers', '9'.repeat(400), '--shard', '0/2'] }, '--workers', /from 1 to 256/);
  assert.ok(check(shardJob('-i', 'data/list.tsv', '--out', 'out', '--processes', '256', '--concurrency', '4096')).argv.includes('--processes=256'));
});

test('worker jobs: a stage the engine does not enqueue is refused', () => {
  refused(
    { argv: ['train', '--config', 'c.json', '--shard', '0/1'] },
    'stage',
    /"train" is not a stage the engine enqueues \(download, filter, features, caption\)/,
  );
  refused({ argv: ['worker', '--redis', 'redis://elsewhere'] }, 'stage', /"worker" is not a stage/);
  refused({ argv: ['--backend', 'wasm', 'table3'] }, 'stage', /"table3"/);
  refused({ argv: ['--help'] }, '--help', /not a flag of cckit/);
});

test("worker jobs: the job's own process checks its paths again, so a symlink swapped after the worker's check is refused", () => {
  const swap = path.join(root, 'swap');
  // its own folder outside the root: `outside` must stay empty for the worker test below
  const elsewhere = path.join(dir, 'outside-swap');
  fs.mkdirSync(elsewhere);
  fs.writeFileSync(path.join(elsewhere, 'list.tsv'), 'http://127.0.0.1:1/secret.jpg\tsecret\n');
  fs.symlinkSync(path.join(root, 'data'), swap);
  try {
    const { argv } = check(shardJob('--in', 'swap/list.tsv', '--out', 'swapped-out'));
    const env = { CCKIT_WORKER_ROOT: root, CCKIT_WORKER_QUEUE: 'shard' };
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      assert.equal(workerJobRecheck(argv), undefined, 'the command line the worker built passes again');
      assert.match(workerJobRecheck([...argv, '--allow-local-files']) ?? '', /--allow-local-files/);
      fs.rmSync(swap);
      fs.symlinkSync(elsewhere, swap);
      assert.match(workerJobRecheck(argv) ?? '', /through a symlink: it resolves to .*outside-swap\/list\.tsv/);
    } finally {
      for (const key of Object.keys(env)) if (saved[key] === undefined) delete process.env[key];
    }
    // the whole job process, as the worker starts it: refused before it opens anything
    const run = spawnSync(process.execPath, [path.join(PACKAGE_ROOT, 'bin', 'cckit.js'), ...argv], {
      cwd: root,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /^cckit: refused in the job's own process \(paths checked again under the worker's --root\): --in: .*through a symlink/);
    assert.equal(fs.existsSync(path.join(root, 'swapped-out')), false, 'nothing written');
  } finally {
    fs.rmSync(swap, { force: true });
  }
});

test('worker jobs: a path outside the root is refused, by `..`, absolute, or through a symlink', () => {
  refused(shardJob('--in', 'data/list.tsv', '--out', '../outside/x'), '--out', /"\.\.\/outside\/x" lies outside the worker's --root/);
  refused(shardJob('--in', 'data/list.tsv', '--out', `${root}/data/../../outside`), '--out', /lies outside/);
  refused(shardJob('--in', '/etc/passwd', '--out', 'out'), '--in', /"\/etc\/passwd" lies outside/);
  refused(shardJob('--in', 'data/list.tsv', '--out', '/tmp/elsewhere'), '--out', /"\/tmp\/elsewhere" lies outside/);
  refused(shardJob('--in', 'data/list.tsv', '--out', 'link/x'), '--out', /through a symlink: it resolves to .*outside\/x/);
  refused(shardJob('--in', 'data/list.tsv', '--out', 'dangling/x'), '--out', /through a symlink: it resolves to .*outside\/not-yet\/x/);
  refused(shardJob('--in', 'data/list.tsv', '--out', 'out', '--hashes', 'link'), '--hashes', /through a symlink/);
  refused(shardJob('--in', 'data/list.tsv', '--out', 'loop/x'), '--out', /"loop\/x" cannot be resolved: ELOOP/);
  // a name that only starts with two dots is a name, not `..`
  assert.ok(check(shardJob('--in', 'data/list.tsv', '--out', '..out')).argv.includes(`--out=${path.join(root, '..out')}`));
  refused({ ...shardJob('--in', 'data/list.tsv', '--out', 'out'), out: '/var/tmp' }, 'data.out', /lies outside/);
  refused({ argv: ['filter', '--in', 'data/list.tsv', '--out', 'out', '--vocabulary', '/etc/words', '--shard', '0/1'] }, '--vocabulary', /lies outside/);
  refused({ argv: ['features', '--in', 'world:tiny:coco-train', '--out', 'cache', '--images', '/', '--shard', '0/1'] }, '--images', /lies outside/);
  // what is not a world split is a path: `world:../x` is the folder `world:..` under the root
  assert.ok(check({ argv: ['features', '--in', 'world:../x', '--out', 'cache', '--shard', '0/1'] }).argv.includes(`--in=${path.join(root, 'world:..', 'x')}`));
  refused(
    {
      argv: [
        'caption',
        '--ckpt',
        'runs/a',
        '--in',
        'v.json',
        '--out',
        'p.json',
        '--features',
        '{"backbone":"mobilenet","cacheDir":"/tmp/c"}',
        '--shard',
        '0/1',
      ],
    },
    '--features cacheDir',
    /lies outside/,
  );
  // where a flag is absent the stage's own default must lie inside too: features' cache is .cckit-cache of the working folder
  assert.throws(
    () => checkWorkerJob({ argv: ['features', '--in', 'world:tiny:coco-train', '--shard', '0/1'] }, { root, cwd: outside }),
    /--out \(absent: \.cckit-cache\): "\.cckit-cache" lies outside/,
  );
});

test('worker jobs: unknown flags and fields, engine flags, positional arguments and bad shapes are refused', () => {
  refused(shardJob('--in', 'data/list.tsv', '--out', 'out', '--engine', 'slurm'), '--engine', /not a flag of download that a worker accepts/);
  refused(shardJob('--in', 'data/list.tsv', '--out', 'out', '--redis=redis://x'), '--redis', /not a flag/);
  refused(shardJob('--in', 'data/list.tsv', '--out', 'out', '--config', 'x'), '--config', /not a flag/);
  refused(shardJob('--in', 'data/list.tsv', '--out', 'out', '-x'), '-x', /not a flag/);
  refused(shardJob('--in', 'data/list.tsv', '--out', 'out', 'extra'), 'argv[5]', /positional arguments are not accepted/);
  refused(shardJob('--in', 'data/list.tsv', '--out', 'out', '--out', '/tmp/x'), '--out', /given twice/);
  refused(shardJob('--in', 'data/list.tsv', '--out', 'out', '--json=yes'), '--json', /takes no value/);
  refused(shardJob('--in', 'data/list.tsv', '--out', 'out', '--allow-local-files'), '--allow-local-files', /does not read the local files/);
  refused(shardJob('--in', 'data/list.tsv', '--out', 'out', '--contact', 'a\nb'), '--contact', /control character/);
  refused({ ...shardJob('--in', 'data/list.tsv', '--out', 'out'), evil: 1 }, 'data.evil', /not a field of the jobs cckit enqueues/);
  refused({ argv: 'download --in x' }, 'data.argv', /not a list/);
  refused({ argv: ['download', '--in', 7] }, '--in', /not a string \(number\)/);
  refused({ argv: ['download', 7] }, 'argv[1]', /not a string \(number\)/);
  refused(null, 'data', /not an object/);
  refused({ ...shardJob('--in', 'data/list.tsv', '--out', 'out'), index: 2 }, 'data.index', /not the shard of --shard 0\/4/);
  refused({ argv: ['download', '--in', 'data/list.tsv', '--out', 'out', '--shard', '4/4'] }, '--shard', /not i\/N/);
  refused({ argv: ['download', '--in', 'data/list.tsv', '--out', 'out'] }, '--shard', /one of --shard i\/N and --merge-shards N/);
  refused({ argv: ['download', '--in', 'data/list.tsv', '--out', 'out', '--merge-shards', '4'] }, '--shard', /a shard job without --shard/);
  refused(shardJob('--in', 'data/list.tsv', '--out', 'out'), '--merge-shards', /a merge job without --merge-shards/, 'merge');
  refused(
    { argv: ['caption', '--ckpt', 'r', '--in', 'v.json', '--out', 'p.json', '--features', '{"path":"/x"}', '--shard', '0/1'] },
    '--features path',
    /not a key/,
  );
});

test("worker jobs: each stage's flags are exactly its command's, less the engine flags", () => {
  const engineOnly = [
    '--engine',
    '--shards',
    '--engine-processes',
    '--slurm-partition',
    '--slurm-time',
    '--slurm-cpus',
    '--slurm-mem',
    '--redis',
    '--queue-prefix',
    '--dry-run',
    '--no-wait',
  ];
  const program = buildProgram();
  assert.ok(program.options.some((o) => o.long === '--backend'));
  for (const [stage, fields] of Object.entries(WORKER_STAGES)) {
    const command = program.commands.find((c) => c.name() === stage);
    assert.ok(command, stage);
    const longs = command.options.map((o) => o.long!).filter((long) => !engineOnly.includes(long));
    assert.deepEqual(
      [...longs].sort(),
      Object.keys(fields).sort(),
      `cckit ${stage}'s flags differ from WORKER_STAGES.${stage} in src/scale/worker-jobs.ts: say there how a worker checks a new flag (a path: under --root)`,
    );
    const shorts = Object.fromEntries(command.options.filter((o) => o.short).map((o) => [o.short!, o.long!]));
    assert.deepEqual(shorts, WORKER_SHORT_FLAGS[stage], stage);
    // a flag takes a value in the command exactly when the worker reads one
    for (const option of command.options.filter((o) => !engineOnly.includes(o.long!) && fields[o.long!].kind !== 'refused'))
      assert.equal(fields[option.long!].kind === 'flag', !option.required && !option.optional, `${stage} ${option.long}`);
  }
});

// ---------------------------------------------------------------------------------------------------------
// Real Redis

async function waitUntil(condition: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('cckit worker: hostile jobs fail at once with the reason, and a good job in the same queue completes', { timeout: 120_000 }, async (t) => {
  if (!serviceOrSkip(t, 'redis')) return;
  const redis = await startRedis();
  t.after(() => redis.stop());
  const url = `unix://${redis.socket}`;
  const log = path.join(dir, 'worker.log');
  const fd = fs.openSync(log, 'a');
  const worker: ChildProcess = spawn(process.execPath, [path.join(PACKAGE_ROOT, 'bin', 'cckit.js'), 'worker', '--redis', url, '--root', root], {
    cwd: root,
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  t.after(() => {
    if (worker.exitCode === null) worker.kill('SIGKILL');
  });
  const read = () => fs.readFileSync(log, 'utf8');
  await waitUntil(() => read().includes('ready'), 30_000, 'the worker to be ready');

  const connection = connect(url);
  const queue = new Queue(SHARD_QUEUE, { connection, prefix: 'cckit' });
  try {
    const elsewhere = path.join(dir, 'elsewhere');
    const opts = { attempts: 3, backoff: { type: 'fixed', delay: 100 } };
    const download = (out: string) => [
      'download',
      '--in',
      'data/list.tsv',
      '--out',
      out,
      '--allow-private',
      '--retries',
      '0',
      '--timeout',
      '1000',
      '--no-progress',
      '--shard',
      '0/1',
    ];
    const train = await queue.add('hostile: train', { argv: ['train', '--config', 'c.json', '--shard', '0/1'] }, opts);
    const away = await queue.add('hostile: --out elsewhere\nworker 1: forged line', { argv: download(elsewhere), index: 0 }, opts);
    const linked = await queue.add('hostile: --out through a symlink', { argv: download('link/x'), index: 0 }, opts);
    const good = await queue.add('good', { argv: download('good'), out: path.join(root, 'good'), index: 0 }, opts);

    const state = async (job: Job) => (await Job.fromId(queue, job.id!))!.getState();
    await waitUntil(async () => (await state(good)) === 'completed', 60_000, 'the good job to complete');
    for (const [job, reason] of [
      [train, /refused by the worker: stage: "train" is not a stage the engine enqueues/],
      [away, /refused by the worker: --out: ".*elsewhere" lies outside the worker's --root/],
      [linked, /refused by the worker: --out: "link\/x" lies outside the worker's --root .* \(through a symlink/],
    ] as const) {
      const stored = (await Job.fromId(queue, job.id!))!;
      assert.equal(await stored.getState(), 'failed', job.name);
      assert.match(stored.failedReason, reason);
      assert.equal(stored.attemptsMade, 1, `${job.name}: not retried`);
    }
    assert.ok(fs.existsSync(path.join(root, 'good', '.shards', '0-of-1', 'summary.json')));
    assert.equal(fs.existsSync(elsewhere), false);
    assert.deepEqual(fs.readdirSync(outside), []);
    // the worker said why, one line per job: a newline in a job's name is escaped, not a forged log line
    assert.equal(read().match(/^worker \d+: hostile: .* refused: (stage|--out): /gm)?.length, 3, read());
    assert.doesNotMatch(read(), /^worker 1: forged line/m);
    assert.match(read(), /good done/);
  } finally {
    await queue.close();
    await connection.quit();
  }
  worker.kill('SIGTERM');
  await new Promise((resolve) => worker.once('exit', resolve));
});

test('Redis with an ACL user and TLS: rediss://user:password@host:port, a refused flow fails its waiter', { timeout: 60_000 }, async (t) => {
  if (!serviceOrSkip(t, 'redis')) return;
  // the user may touch only the keys of its queue prefix (docs/scale.md's ACL line)
  const user = { name: 'cckit', password: 'p@ss:w/rd', keys: 'tls:*' };
  const redis = await startRedis({ user, tls: true });
  t.after(() => redis.stop());
  const tls = redis.tls!;
  const url = `rediss://${user.name}:${encodeURIComponent(user.password)}@127.0.0.1:${tls.port}`;
  assert.equal(redactRedisUrl(url), `rediss://cckit:***@127.0.0.1:${tls.port}`);
  const env = { CCKIT_REDIS_TLS_CA: tls.ca, CCKIT_REDIS_TLS_CERT: tls.cert, CCKIT_REDIS_TLS_KEY: tls.key };

  // the URL's user and password, over TLS with the client certificate
  const a = connect(url, env);
  assert.equal(await a.call('ACL', 'WHOAMI'), 'cckit');
  await assert.rejects(a.set('cckit:elsewhere', '1'), /NOPERM/);
  await a.quit();
  // the password from the environment, kept off the command line
  const b = connect(`rediss://127.0.0.1:${tls.port}`, { ...env, CCKIT_REDIS_USERNAME: user.name, CCKIT_REDIS_PASSWORD: user.password });
  assert.equal(await b.call('ACL', 'WHOAMI'), 'cckit');
  await b.quit();
  // without the client certificate the server hangs up (tls-auth-clients yes)
  const c = connect(url, { CCKIT_REDIS_TLS_CA: tls.ca });
  const error = await new Promise<Error>((resolve) => c.once('error', resolve));
  c.disconnect();
  assert.ok(error instanceof Error);

  // enqueue, workers and the waiter all connect through the same URL
  const saved = { ...process.env };
  Object.assign(process.env, env);
  t.after(() => {
    for (const key of Object.keys(env)) if (saved[key] === undefined) delete process.env[key];
  });
  const ran: string[][] = [];
  const workers = await startWorkers({
    redis: url,
    root,
    prefix: 'tls',
    run: async (argv) => {
      ran.push(argv);
    },
  });
  try {
    const good: ShardedJob = {
      argv: ['download', '--in', path.join(root, 'data', 'list.tsv'), '--out', path.join(root, 'tls-good')],
      shards: 2,
      out: path.join(root, 'tls-good'),
    };
    await waitForFlow(await enqueue(good, { redis: url, prefix: 'tls' }), { redis: url, prefix: 'tls', pollMs: 50 });
    assert.deepEqual(ran.map((argv) => argv.at(-1)).sort(), ['--merge-shards=2', '--shard=0/2', '--shard=1/2']);
    // a flow whose shards the workers refuse fails its waiter at once (the refused job has no retries left)
    const hostile: ShardedJob = { argv: ['train', '--config', path.join(root, 'c.json')], shards: 1, out: path.join(root, 'tls-hostile') };
    const started = Date.now();
    await assert.rejects(
      waitForFlow(await enqueue(hostile, { redis: url, prefix: 'tls', attempts: 3, backoffMs: 5000 }), { redis: url, prefix: 'tls', pollMs: 50 }),
      /shard 0\/1 failed 1 time\(s\): refused by the worker: stage: "train" is not a stage the engine enqueues/,
    );
    assert.ok(Date.now() - started < 5000, 'no retry with backoff');
  } finally {
    await workers.close();
  }
});
