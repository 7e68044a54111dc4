/**
 * The notebook kernel (kernel/host.ts + kernel/worker.ts) with the real tslab executor: outputs, state,
 * display MIME bundles, errors with cell lines, interrupt, crash recovery.
 *
 * Skipped when tslab is not installed.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Kernel, type DisplayOutput, type ErrorOutput, type ExecuteResult, type Output, type UpdateDisplayOutput } from '../kernel/host';
import { mapCompiledLine } from '../kernel/errors';
import { captionsBundle, show, tableBundle } from '../src/notebook/display';
import { PACKAGE_ROOT } from '../src/paths';

let hasTslab = true;
try {
  require.resolve('tslab/dist/executor');
} catch {
  hasTslab = false;
}

const DISPLAY = JSON.stringify(path.join(PACKAGE_ROOT, 'src', 'notebook', 'display.ts'));

const text = (r: ExecuteResult) =>
  r.outputs.map((o) => (o.type === 'stream' ? o.text : o.type === 'execute_result' ? String(o.data['text/plain']) + '\n' : '')).join('');
const errorOf = (r: ExecuteResult) => r.outputs.find((o): o is ErrorOutput => o.type === 'error');
const displays = (r: ExecuteResult) => r.outputs.filter((o): o is DisplayOutput => o.type === 'display_data');

describe('kernel', { skip: !hasTslab && 'tslab is not installed' }, () => {
  let kernel: Kernel;
  before(async () => {
    kernel = new Kernel({ cwd: PACKAGE_ROOT, interruptTimeoutMs: 1500 });
    await kernel.start();
  });
  after(async () => {
    await kernel.shutdown();
  });

  test('runs a cell and streams its text output', async () => {
    const streamed: Output[] = [];
    const r = await kernel.execute('const greeting: string = "hello";\nconsole.log(greeting, 1 + 1);\ngreeting.length', {
      onOutput: (o) => streamed.push(o),
    });
    assert.equal(r.status, 'ok');
    assert.equal(text(r), 'hello 2\n5\n');
    assert.deepEqual(streamed, r.outputs);
    assert.ok(r.executionCount >= 1);
  });

  test('keeps state across cells', async () => {
    assert.equal((await kernel.execute('let counter = 40;\nfunction bump(n: number) { counter += n; return counter; }')).status, 'ok');
    const r = await kernel.execute('bump(2)');
    assert.equal(r.status, 'ok');
    assert.equal(text(r), '42\n');
  });

  test('every display MIME type arrives as a bundle', async () => {
    const r = await kernel.execute(
      [
        `const { show } = require(${DISPLAY});`,
        'show.text("plain");',
        'show.html("<b>bold</b>");',
        'show.markdown("# Title");',
        'show.table([{ model: "base", cider: 1.234 }, { model: "ours", cider: 1.5 }]);',
        'show.table({ columns: ["a", "b"], rows: [[1, 2]] });',
        'show.plot({ data: [{ x: [1, 2], y: [3, 4], type: "scatter" }], layout: { title: "CIDEr" } });',
        'show.captions([{ id: "img1", image: "a.jpg", caption: "a dog", references: ["a dog runs"], score: 0.9, domain: "in" }]);',
        'show.png(Buffer.from([137, 80, 78, 71]));',
        'show.svg("<svg xmlns=\\"http://www.w3.org/2000/svg\\"></svg>");',
      ].join('\n'),
    );
    assert.equal(r.status, 'ok', JSON.stringify(errorOf(r)));
    const d = displays(r);
    const types = d.map((o) => Object.keys(o.data).filter((k) => k !== 'text/plain')[0] ?? 'text/plain');
    assert.deepEqual(types, [
      'text/plain',
      'text/html',
      'text/markdown',
      'text/html',
      'text/html',
      'application/vnd.plotly.v1+json',
      'application/vnd.cckit.captions+json',
      'image/png',
      'image/svg+xml',
    ]);
    for (const o of d) assert.equal(typeof o.data['text/plain'], 'string');
    assert.match(String(d[3]!.data['text/html']), /<th>model<\/th>.*<td>ours<\/td>/);
    assert.match(String(d[3]!.data['text/plain']), /ours\s+1\.5/);
    assert.deepEqual((d[5]!.data['application/vnd.plotly.v1+json'] as { data: unknown[] }).data, [{ x: [1, 2], y: [3, 4], type: 'scatter' }]);
    const grid = d[6]!.data['application/vnd.cckit.captions+json'] as { items: { caption: string }[] };
    assert.equal(grid.items[0]!.caption, 'a dog');
    assert.equal(d[7]!.data['image/png'], Buffer.from([137, 80, 78, 71]).toString('base64'));
  });

  test('progress updates one display id in place', async () => {
    const r = await kernel.execute(`const p = require(${DISPLAY}).show.progress(4, "filtering");\nfor (let i = 1; i <= 3; i++) p(i);\np.done();`);
    assert.equal(r.status, 'ok');
    const first = displays(r);
    const updates = r.outputs.filter((o): o is UpdateDisplayOutput => o.type === 'update_display_data');
    assert.equal(first.length, 1);
    assert.ok(first[0]!.displayId);
    assert.equal(updates.length, 4);
    for (const u of updates) assert.equal(u.displayId, first[0]!.displayId);
    assert.match(String(updates.at(-1)!.data['text/plain']), /4\/4 \(100%\)/);
  });

  test("tslab's own display object works in this kernel", async () => {
    const r = await kernel.execute('import * as tslab from "tslab";\ntslab.display.html("<i>x</i>");');
    assert.equal(r.status, 'ok', JSON.stringify(errorOf(r)));
    assert.equal(displays(r)[0]?.data['text/html'], '<i>x</i>');
  });

  test('a compile error reports the message and the cell line', async () => {
    const r = await kernel.execute('const a = 1;\n\nconst b: string = a;');
    assert.equal(r.status, 'error');
    const e = errorOf(r)!;
    assert.equal(e.ename, 'CompileError');
    assert.equal(e.cellLine, 3);
    assert.match(e.evalue, /Type 'number' is not assignable to type 'string'/);
    assert.ok(e.traceback.some((l) => l.includes('const b: string = a;')));
  });

  test('a runtime error reports the message and the cell line', async () => {
    const r = await kernel.execute(
      ['function check(n: number) {', '  if (n > 2) {', '    throw new RangeError(`too big: ${n}`);', '  }', '}', 'check(1);', 'check(counter);'].join('\n'),
    );
    assert.equal(r.status, 'error');
    const e = errorOf(r)!;
    assert.equal(e.ename, 'RangeError');
    assert.equal(e.evalue, 'too big: 42');
    assert.equal(e.cellLine, 3);
    assert.ok(e.traceback.some((l) => l.includes('throw new RangeError')));
    // A throw at top level maps to its own line.
    const r2 = await kernel.execute('const box: any = undefined;\nconsole.log(box.size);');
    assert.equal(errorOf(r2)!.ename, 'TypeError');
    assert.equal(errorOf(r2)!.cellLine, 2);
  });

  test('interrupts an endless loop and keeps state', async () => {
    const t0 = Date.now();
    const running = kernel.execute('while (true) {}');
    setTimeout(() => void kernel.interrupt(), 200);
    const r = await running;
    assert.equal(r.status, 'interrupted');
    assert.ok(Date.now() - t0 < 1400, 'stopped by SIGINT, not by the kill timeout');
    assert.equal(text(await kernel.execute('counter')), '42\n');
  });

  test('interrupts a pending top-level await', async () => {
    const running = kernel.execute('await new Promise(() => {});');
    setTimeout(() => void kernel.interrupt(), 200);
    assert.equal((await running).status, 'interrupted');
    assert.equal(text(await kernel.execute('counter + 1')), '43\n');
  });

  test('a loop SIGINT cannot reach is killed and the kernel restarted', async () => {
    const running = kernel.execute('setTimeout(() => { while (true) {} }, 0);\nawait new Promise((r) => setTimeout(r, 60000));');
    setTimeout(() => void kernel.interrupt(), 200);
    const r = await running;
    assert.equal(r.status, 'interrupted');
    assert.match(errorOf(r)!.evalue, /restarted/);
    const after = await kernel.execute('typeof counter');
    assert.equal(after.status, 'error', 'state is gone after the kill');
    assert.equal(text(await kernel.execute('1 + 1')), '2\n');
  });

  test('a crash is reported and the kernel recovers', async () => {
    const died: unknown[] = [];
    kernel.on('died', (info) => died.push(info));
    const r = await kernel.execute('console.log("bye");\nprocess.exit(3);');
    assert.equal(r.status, 'error');
    const e = errorOf(r)!;
    assert.equal(e.ename, 'KernelDied');
    assert.match(e.evalue, /exit code 3/);
    assert.deepEqual(died, [{ code: 3, signal: null }]);
    const again = await kernel.execute('let fresh = 7;\nfresh * 6');
    assert.equal(again.status, 'ok');
    assert.equal(text(again), '42\n');
    assert.equal(again.executionCount, 1);
  });

  test('restart clears state; cckit is require-able from a cell', async () => {
    await kernel.restart();
    assert.equal((await kernel.execute('typeof fresh')).status, 'error');
    const r = await kernel.execute('typeof require("cckit")');
    assert.equal(text(r), 'object\n', JSON.stringify(r.outputs));
  });
});

describe('display helpers outside a kernel', () => {
  test('fall back to printing text/plain', () => {
    const written: string[] = [];
    const orig = process.stdout.write;
    process.stdout.write = ((s: string) => {
      written.push(String(s));
      return true;
    }) as typeof process.stdout.write;
    try {
      show.text('plain words');
      show.table([{ a: 1 }]);
    } finally {
      process.stdout.write = orig;
    }
    assert.deepEqual(written, ['plain words\n', 'a\n-\n1\n']);
  });

  test('tables accept row objects, arrays and DataFrame-like values; HTML is escaped', () => {
    assert.match(String(tableBundle([{ x: '<b>' }])['text/html']), /&lt;b&gt;/);
    assert.match(String(tableBundle([[1, 2]])['text/plain']), /^0 {2}1\n/);
    assert.match(String(tableBundle({ columns: ['c'], values: [[3]] })['text/plain']), /c\n-\n3/);
    assert.equal(Object.keys(captionsBundle([{ caption: 'x' }]))[0], 'application/vnd.cckit.captions+json');
  });

  test('compiled lines map back to cell lines', () => {
    const cell = 'let x = 1;\nconst y = x * 2;\nfoo(y);';
    const compiled =
      'Object.defineProperty(exports, "__esModule", { value: true });\nexports.y = exports.x = void 0;\nlet x = 1;\nexports.x = x;\nconst y = x * 2;\nexports.y = y;\nfoo(y);\n';
    assert.equal(mapCompiledLine(cell, compiled, 7), 3);
    assert.equal(mapCompiledLine(cell, compiled, 5), 2);
  });
});
