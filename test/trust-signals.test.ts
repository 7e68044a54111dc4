/**
 * SIGTERM ends every command that reads a list within 5 s, and what it held is released: no lock and no
 * temporary file stay in its output folder (docs/trust.md, "Bounded parsing everywhere"). Each command gets a
 * list long enough that it is still working when the signal comes; a command that had already finished
 * fails the test, so no case passes by being quick.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { PACKAGE_ROOT } from '../src/paths';

const CLI = path.join(PACKAGE_ROOT, 'bin', 'cckit.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-signals-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const ROWS = 600_000;
/** url<TAB>caption rows; the URLs name loopback port 1 (refused at once) or, for `local`, missing files beside the list. */
function bigList(name: string, local = false): string {
  const file = path.join(dir, name);
  const lines: string[] = [];
  for (let i = 0; i < ROWS; i++)
    lines.push(`${local ? `images/${i}.jpg` : `http://127.0.0.1:1/${i}.jpg`}\ta photo of durian number ${i} on a wooden table in the kitchen`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** Every file under `folder` (recursively) whose name marks a lock or a temporary. */
function leftovers(folder: string): string[] {
  if (!fs.existsSync(folder)) return [];
  return (fs.readdirSync(folder, { recursive: true }) as string[]).filter((name) => /\.lock$|\.tmp$|\.tmp\//.test(name));
}

async function terminateWhileWorking(args: string[], out: string, waitMs = 2500): Promise<{ stoppedMs: number; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const early = await Promise.race([exited.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), waitMs))]);
  assert.equal(early, false, `cckit ${args[0]} finished before the signal (${stderr.slice(-400)}): the list is too short for this test`);
  const sent = Date.now();
  child.kill('SIGTERM');
  const stopped = await Promise.race([exited.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 5000))]);
  const stoppedMs = Date.now() - sent;
  if (!stopped) child.kill('SIGKILL');
  assert.ok(stopped, `cckit ${args[0]} still running 5 s after SIGTERM`);
  assert.deepEqual(leftovers(out), [], `cckit ${args[0]} left locks or temporaries in ${out}`);
  return { stoppedMs, stderr };
}

const remote = bigList('remote.tsv');
const local = bigList('local.tsv', true);

for (const [name, args, out] of [
  ['download', ['download', '--in', remote, '--out', path.join(dir, 'download'), '--allow-private', '--no-progress'], 'download'],
  ['filter', ['filter', '--preset', 'cc12m', '--in', remote, '--out', path.join(dir, 'filter'), '--stages', 'text'], 'filter'],
  ['stats', ['stats', remote, '--tokenizer', 'ptb'], 'stats'],
  ['split', ['split', '--in', local, '--out', path.join(dir, 'split'), '--layout', 'url-caption'], 'split'],
  ['features', ['features', '--in', remote, '--out', path.join(dir, 'features'), '--allow-private'], 'features'],
] as const)
  test(`SIGTERM stops cckit ${name} on a ${ROWS.toLocaleString('en')}-row list within 5 s, leaving no lock or temporary`, async () => {
    const { stoppedMs } = await terminateWhileWorking([...args], path.join(dir, out));
    assert.ok(stoppedMs < 5000);
  });
