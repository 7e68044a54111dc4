/**
 * Every ```bash / ```sh block of README.md and docs/*.md runs as pasted: each file's blocks in order, in a fresh
 * folder that links the checkout's files (so `data/`, `runs/` and `.cckit-cache/` start empty), with `npx cckit`
 * and `cckit` running the built bin/cckit.js. A block preceded by `<!-- docs-test: skip (reason) -->` is skipped
 * with its reason (long jobs, servers, Slurm, Redis, real downloads).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(__dirname, '..');
const SKIP_MARK = /^<!--\s*docs-test:\s*skip\s*\((.+)\)\s*-->$/;
/** Paths the commands write: left out of the fresh folder so they start empty. */
const WRITTEN = new Set(['.git', 'data', 'runs', '.cckit-cache', 'preds.json']);
const BLOCK_TIMEOUT_MS = 120_000;

interface Block {
  line: number;
  code: string;
  skip?: string;
}

/** The shell blocks of a markdown file, with the skip reason of the marker right before each. */
export function shellBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end < 0) break;
    if (fence[1] === 'bash' || fence[1] === 'sh') {
      let before = i - 1;
      while (before >= 0 && lines[before]!.trim() === '') before--;
      const skip = before >= 0 ? SKIP_MARK.exec(lines[before]!.trim())?.[1] : undefined;
      blocks.push({ line: i + 1, code: lines.slice(i + 1, end).join('\n'), ...(skip ? { skip } : {}) });
    }
    i = end;
  }
  return blocks;
}

/** A folder with every checkout entry linked except the ones commands write. */
function freshCheckout(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-docs-'));
  for (const name of fs.readdirSync(ROOT)) if (!WRITTEN.has(name)) fs.symlinkSync(path.join(ROOT, name), path.join(dir, name));
  return dir;
}

const cliShims = `
cckit() { node "${path.join(ROOT, 'bin', 'cckit.js')}" "$@"; }
npx() { if [ "$1" = cckit ]; then shift; cckit "$@"; else command npx "$@"; fi; }
`;

const files = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => path.join('docs', f)),
];

test('shellBlocks finds bash and sh blocks and their skip markers', () => {
  const md = ['```bash', 'a', '```', '', '<!-- docs-test: skip (slow) -->', '```sh', 'b', '```', '```ts', 'c', '```'].join('\n');
  assert.deepEqual(shellBlocks(md), [
    { line: 1, code: 'a' },
    { line: 6, code: 'b', skip: 'slow' },
  ]);
});

for (const file of files) {
  const blocks = shellBlocks(fs.readFileSync(path.join(ROOT, file), 'utf8'));
  if (blocks.length === 0) continue;
  test(
    `${file}: its shell blocks run as pasted`,
    { skip: !fs.existsSync(path.join(ROOT, 'dist', 'src', 'cli', 'main.js')) && 'no dist/ (npm run build)' },
    (t) => {
      const dir = freshCheckout();
      try {
        for (const block of blocks) {
          if (block.skip) {
            t.diagnostic(`${file}:${block.line} skipped: ${block.skip}`);
            continue;
          }
          const started = Date.now();
          const result = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', cliShims + block.code], {
            cwd: dir,
            encoding: 'utf8',
            timeout: BLOCK_TIMEOUT_MS,
            env: { ...process.env, CCKIT_PROGRESS: '0' },
          });
          t.diagnostic(`${file}:${block.line} ran in ${((Date.now() - started) / 1000).toFixed(1)} s`);
          assert.equal(
            result.status,
            0,
            `${file}:${block.line} exited ${result.status ?? result.signal}:\n${block.code}\n--- stderr\n${result.stderr.slice(-3000)}`,
          );
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}
