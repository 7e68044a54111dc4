/**
 * docs/trust.md, "Dependencies": the xlsx 0.18.5 that danfojs brings (a dev dependency, with public advisories for
 * crafted spreadsheets) is never reached from cckit: no cckit code reads or writes a spreadsheet through it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { PACKAGE_ROOT } from '../src/paths';

function sources(folder: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) out.push(...sources(full));
    else if (/\.(ts|js|mjs)$/.test(entry.name)) out.push(full);
  }
  return out;
}

test("no cckit code calls danfojs's spreadsheet reader or writer, nor xlsx itself", () => {
  const files = ['src', 'kernel', 'extension/src', 'extension/renderers', 'extension/webview'].flatMap((f) =>
    fs.existsSync(path.join(PACKAGE_ROOT, f)) ? sources(path.join(PACKAGE_ROOT, f)) : [],
  );
  assert.ok(files.length > 100, `${files.length} source files read`);
  const reaching = files.filter((file) => /\b(readExcel|toExcel)\b|['"]xlsx['"]/.test(fs.readFileSync(file, 'utf8')));
  assert.deepEqual(reaching, []);
});
