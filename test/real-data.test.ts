/**
 * scripts/real-data.sh, the real-data walk-through of docs/real-data.md, on a slice of Debian's tuxpaint clip-art
 * (real PNGs, real human descriptions) served on loopback: it runs from a clean folder to a scored captioner, the
 * papers' image rule judges the same sizes on 256-px copies as on the originals, and every row is accounted for.
 * Needs tuxpaint-stamps-default (`bash scripts/real-data-setup.sh`, which .ci/run does); skipped without it
 * outside CI.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { PACKAGE_ROOT } from '../src/paths';

const STAMPS = '/usr/share/tuxpaint/stamps';
const skip = !fs.existsSync(STAMPS) && !process.env.CI ? `${STAMPS} missing (bash scripts/real-data-setup.sh)` : false;

test('real data end to end on 60 tuxpaint stamps: download, filters, stats, split, train, caption, eval', { skip, timeout: 15 * 60_000 }, () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-real-data-'));
  try {
    const run = spawnSync('bash', [path.join(PACKAGE_ROOT, 'scripts', 'real-data.sh'), out, '--limit', '60', '--steps', '20'], { encoding: 'utf8' });
    assert.equal(run.status, 0, `${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`);
    const log = run.stdout;
    assert.match(log, /785 with a description .*; 60 in list\.tsv/);
    assert.equal((log.match(/all shards: 60 of 60 rows downloaded/g) ?? []).length, 3, 'three downloads, every row');
    // the image stage alone keeps the same rows from the 256-px copies as from the same JPEGs at their original size
    for (const preset of ['cc3m', 'cc12m']) {
      const kept = (shards: string) => fs.readFileSync(path.join(out, `filter-${preset}-image-${shards}`, 'kept.tsv'), 'utf8');
      assert.equal(kept('256'), kept('full'), `${preset}: the image rule judges the original size`);
      const summary = JSON.parse(fs.readFileSync(path.join(out, `filter-${preset}`, 'summary.json'), 'utf8'));
      assert.equal(summary.rows, 60, `${preset}: every row counted`);
      assert.equal(summary.kept + summary.rejected, 60, `${preset}: every row kept or rejected`);
    }
    assert.match(log, /pairs\s+60/);
    assert.match(log, /train: \d+ images/);
    assert.match(log, /run tuxpaint-mobilenet-tiny-[0-9a-f]+: 20 steps trained/);
    assert.match(log, /CIDEr\s+\d\.\d{3}/);
    assert.match(log, /of \d+ test captions hold <unk>/);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
