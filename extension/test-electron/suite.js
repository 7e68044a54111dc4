// Runs inside VS Code's extension host (launched by scripts/vscode-electron.ts through @vscode/test-electron):
// opens the extension's test notebook, selects the "cckit TypeScript" controller, runs every cell and checks
// the outputs' MIME types. For machines with VS Code installed; CI uses test/vscode.test.ts (code-server).
const assert = require('assert');
const path = require('path');
const vscode = require('vscode');

exports.run = async function run() {
  const root = vscode.workspace.workspaceFolders[0].uri.fsPath;
  const ext = vscode.extensions.getExtension('cckit.cckit');
  assert.ok(ext, 'the cckit extension is loaded');
  await ext.activate();
  const uri = vscode.Uri.file(path.join(root, 'test', 'fixtures', 'vscode', 'outputs.ipynb'));
  const nb = await vscode.workspace.openNotebookDocument(uri);
  const editor = await vscode.window.showNotebookDocument(nb);
  await vscode.commands.executeCommand('notebook.selectKernel', { editor, id: 'cckit-typescript', extension: 'cckit.cckit' });
  await vscode.commands.executeCommand('notebook.execute', uri);
  const code = nb.getCells().filter((c) => c.kind === vscode.NotebookCellKind.Code);
  const deadline = Date.now() + 120000;
  while (code.some((c) => !c.executionSummary || c.executionSummary.success === undefined)) {
    if (Date.now() > deadline) throw new Error('cells did not finish within 120 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  for (const c of code) assert.strictEqual(c.executionSummary.success, true, `cell ${c.index} succeeded`);
  const mimes = code.map((c) => c.outputs.flatMap((o) => o.items.map((i) => i.mime)));
  assert.ok(mimes[0].includes('application/vnd.code.notebook.stdout'));
  assert.ok(mimes[1].includes('application/vnd.plotly.v1+json'));
  assert.ok(mimes[2].includes('application/vnd.cckit.captions+json'));
  const grid = JSON.parse(Buffer.from(code[2].outputs[0].items.find((i) => i.mime === 'application/vnd.cckit.captions+json').data).toString('utf8'));
  assert.ok(grid.items.every((it) => it.image.startsWith('data:image/jpeg;base64,')), 'thumbnails inlined');
  assert.deepStrictEqual(code.map((c) => c.executionSummary.executionOrder), code.map((_, i) => i + 1));
  await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
};
