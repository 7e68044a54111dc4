/**
 * One local-file policy for every command that reads a list (docs/trust.md): a list's rows may name local files only
 * inside the list's folder unless the user passes --allow-local-files; a path outside is refused
 * by its text alone (so a row cannot learn which files exist there), and a link inside that leads out is refused too.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';

import { ImageSource, localFileRefusal, localFileTarget } from '../src/data/images';
import { allowedEvalImages } from '../src/cli/train';
import { writeSplit } from '../src/data/split';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-trust-local-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const png = (seed: number): Promise<Buffer> =>
  sharp({ create: { width: 12, height: 8, channels: 3, background: { r: seed, g: 40, b: 90 } } })
    .png()
    .toBuffer();

/** A list folder holding an image, a subfolder and a link out; a secret image beside the folder. */
async function layout(): Promise<{ list: string; secret: string }> {
  const list = path.join(dir, 'list');
  fs.mkdirSync(path.join(list, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(list, 'img.png'), await png(1));
  const secret = path.join(dir, 'secret.png');
  fs.writeFileSync(secret, await png(2));
  fs.symlinkSync(secret, path.join(list, 'link.png'));
  return { list, secret };
}

const ready = layout();

test('filter, features and caption (ImageSource as the commands set it): files inside the list folder only, unless --allow-local-files', async () => {
  const { list, secret } = await ready;
  const source = new ImageSource({ baseDir: list, localFiles: 'inside-list' });
  const reason = async (url: string) => {
    const r = await source.fetch(url);
    return r.ok ? 'ok' : r.reason;
  };
  assert.equal(await reason('img.png'), 'ok');
  assert.equal(await reason('sub/../img.png'), 'ok', 'a path that stays inside');
  assert.equal(await reason(path.join(list, 'img.png')), 'ok', 'an absolute path inside the folder');
  assert.equal(await reason(pathToFileURL(path.join(list, 'img.png')).href), 'ok', 'a file:// URL inside the folder');
  for (const outside of ['../secret.png', secret, pathToFileURL(secret).href, '/root/.ssh/id_rsa', 'sub/../../secret.png'])
    assert.equal(await reason(outside), 'download:local-file-outside-list', outside);
  assert.equal(await reason('link.png'), 'download:local-file-outside-list', 'a link that leads out');
  assert.equal(await reason('missing.png'), 'download:not-found', 'missing inside the folder: said so');
  // refused by the text alone: a missing file outside answers as an existing one does (no oracle)
  assert.deepEqual(localFileTarget('/nonexistent/x.png', list, 'inside-list'), localFileTarget('/nonexistent/x.png', list, 'inside-list'));
  assert.equal((localFileTarget('/root/.ssh/id_rsa', list, 'inside-list') as { reason: string }).reason, 'download:local-file-outside-list');
  const any = new ImageSource({ baseDir: list, localFiles: 'any' });
  assert.equal((await any.fetch(secret)).ok, true, '--allow-local-files reads any path');
  assert.equal((await any.fetch('link.png')).ok, true);
  const none = await new ImageSource({ baseDir: list, localFiles: 'none' }).fetch('img.png');
  assert.equal(none.ok ? 'ok' : none.reason, 'download:local-file-refused', 'download: no local file');
});

test('split: a TSV row naming a file outside its folder is rejected and nothing of it is copied', async () => {
  const { list, secret } = await ready;
  const tsv = path.join(list, 'pool.tsv');
  const rows = ['Inside.\timg.png', 'Up.\t../secret.png', `Absolute.\t${secret}`, `File URL.\t${pathToFileURL(secret).href}`, 'A link out.\tlink.png'];
  fs.writeFileSync(tsv, rows.join('\n') + '\n');
  const out = path.join(dir, 'split');
  const summary = await writeSplit({ input: tsv, out, layout: 'caption-url', fractions: { val: 0, test: 0 } });
  assert.equal(summary.images, 1);
  assert.deepEqual(summary.reasons, { 'image:outside-list': 4 });
  const secretBytes = fs.readFileSync(secret);
  for (const file of fs.readdirSync(path.join(out, 'images'))) assert.ok(!fs.readFileSync(path.join(out, 'images', file)).equals(secretBytes), file);
  const opened = await writeSplit({ input: tsv, out: path.join(dir, 'split-any'), layout: 'caption-url', fractions: { val: 0, test: 0 }, localFiles: 'any' });
  assert.equal(opened.images, 5, 'with --allow-local-files every row reads');
});

test('a link in the list folder is followed as text: one leading out is refused whether its target exists or not; links that stay inside are read', async () => {
  const { list } = await ready;
  const links = path.join(list, 'links');
  fs.mkdirSync(links);
  fs.symlinkSync(path.join(dir, 'does-not-exist.png'), path.join(links, 'dangling-out.png'));
  fs.symlinkSync(path.join(dir, 'secret.png'), path.join(links, 'existing-out.png'));
  fs.symlinkSync('../img.png', path.join(links, 'inside.png'));
  fs.symlinkSync(dir, path.join(links, 'outdir'));
  fs.symlinkSync('inside-loop', path.join(links, 'inside-loop'));
  const source = new ImageSource({ baseDir: list, localFiles: 'inside-list' });
  const fetched = async (name: string) => {
    const r = await source.fetch(name);
    return r.ok ? 'ok' : `${r.reason}`;
  };
  // before, a dangling link answered "not-found" and an existing target "outside-list": an oracle
  assert.equal(await fetched('links/dangling-out.png'), 'download:local-file-outside-list');
  assert.equal(await fetched('links/existing-out.png'), 'download:local-file-outside-list');
  assert.equal(await fetched('links/outdir/secret.png'), 'download:local-file-outside-list', 'a folder link leading out');
  assert.equal(await fetched('links/outdir/missing.png'), 'download:local-file-outside-list', 'the same when the file is missing');
  assert.equal(await fetched('links/inside.png'), 'ok', 'a link that stays inside');
  assert.notEqual(await fetched('links/inside-loop'), 'ok', 'a loop is not read');
  const outside = (name: string) => ({
    reason: 'download:local-file-outside-list',
    detail: `${path.join(list, name)}: a link that leads out of the list's folder`,
  });
  for (const name of ['links/dangling-out.png', 'links/existing-out.png']) assert.deepEqual(localFileRefusal(name, list, 'inside-list'), outside(name));
});

test("caption: an annotation file's file_names outside its folder are refused and left out, whether they exist or not", async () => {
  const { list, secret } = await ready;
  const annotations = path.join(list, 'val.json');
  const image = (id: number, fileName: string) => ({ key: path.join(list, fileName), imageId: id });
  const images = [
    image(1, 'img.png'),
    image(2, '../secret.png'),
    image(3, '../missing.png'),
    image(4, 'link.png'),
    { key: 'world://tiny/0/coco-val/1.jpg', imageId: 5 },
  ];
  const kept = allowedEvalImages(images, annotations, false);
  assert.deepEqual(
    kept.map((i) => i.imageId),
    [1, 5],
  );
  assert.equal(allowedEvalImages(images, annotations, true).length, 5, '--allow-local-files reads them');
  assert.ok(fs.existsSync(secret));
});
