/**
 * cckit for VS Code: the "cckit TypeScript" notebook controller, the Captions sidebar and the commands.
 * Renderers (plotly, caption grid) are separate bundles loaded by VS Code into the notebook webview.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { CckitController } from './controller';
import { predictionSplits, readRunInfo, type RunInfo } from '../../src/runs/layout';
import { compareCandidates, listRunSummaries } from './runs';
import { CaptionsViewProvider, VIEW_ID } from './sidebar';
import { trace } from './trace';
import { WorkspaceNotTrustedError } from './trust';

let controller: CckitController | undefined;

function activeNotebook(): vscode.NotebookDocument | undefined {
  return vscode.window.activeNotebookEditor?.notebook ?? vscode.window.visibleNotebookEditors[0]?.notebook;
}

export function activate(context: vscode.ExtensionContext): { ready: true } {
  const log = vscode.window.createOutputChannel('cckit');
  controller = new CckitController(log);
  const sidebar = new CaptionsViewProvider(context.extensionUri, log);
  context.subscriptions.push(
    log,
    controller,
    sidebar,
    vscode.window.registerWebviewViewProvider(VIEW_ID, sidebar, { webviewOptions: { retainContextWhenHidden: true } }),
    controller.onDidPublishRun((run) => {
      log.appendLine(`a cell published run ${run.runDir}${run.compareWith ? ` compared with ${run.compareWith}` : ''}`);
      trace('run', { runDir: run.runDir, ...(run.compareWith ? { compareWith: run.compareWith } : {}) });
      if (run.compareWith) sidebar.compare(run.runDir, run.compareWith, run.split);
      else sidebar.showRun(run.runDir, run.split);
    }),
    vscode.commands.registerCommand('cckit.openNotebook', async () => {
      const folder = vscode.workspace.workspaceFolders?.[0];
      if (!folder) return void vscode.window.showWarningMessage('cckit: open a cckit checkout first.');
      const files = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, 'notebooks/*.ipynb'));
      if (files.length === 0) return void vscode.window.showWarningMessage(`cckit: no notebooks in ${path.join(folder.uri.fsPath, 'notebooks')}.`);
      files.sort((a, b) => a.path.localeCompare(b.path));
      const pick = await vscode.window.showQuickPick(
        files.map((uri) => ({ label: path.basename(uri.path), description: notebookTitle(uri.fsPath), uri })),
        { placeHolder: 'Reproduction notebook to open', matchOnDescription: true },
      );
      if (pick) await vscode.commands.executeCommand('vscode.openWith', pick.uri, 'jupyter-notebook');
    }),
    vscode.commands.registerCommand('cckit.showRun', async (runDir?: string) => {
      if (typeof runDir === 'string' && runDir) {
        sidebar.showRun(path.resolve(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '.', runDir));
      } else {
        const root = sidebar.runsRoot();
        const runs = root ? listRunSummaries(root) : [];
        if (runs.length === 0) return void vscode.window.showWarningMessage(`cckit: no runs in ${root ?? 'the workspace'}.`);
        const pick = await vscode.window.showQuickPick(
          runs.map((r) => ({ label: r.id, description: [r.name, r.status].filter(Boolean).join(' · '), detail: `updated ${r.updated}`, dir: r.dir })),
          { placeHolder: 'Run whose predictions to show' },
        );
        if (!pick) return;
        sidebar.showRun(pick.dir);
      }
      await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
    }),
    vscode.commands.registerCommand('cckit.compareRuns', async (runA?: string, runB?: string, split?: string) => {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '.';
      if (typeof runA === 'string' && runA && typeof runB === 'string' && runB) {
        sidebar.compare(path.resolve(folder, runA), path.resolve(folder, runB), typeof split === 'string' && split ? split : undefined);
        trace('compare', { runA, runB, ...(split ? { split } : {}) });
        return void (await vscode.commands.executeCommand(`${VIEW_ID}.focus`));
      }
      // Run A: the runs folder's runs and those beside the run shown now; run B: those with A's split.
      const root = sidebar.runsRoot();
      const current = sidebar.currentRun();
      const dirs = current ? [current, ...compareCandidates(root, current).map((r) => r.dir)] : root ? listRunSummaries(root).map((r) => r.dir) : [];
      const runs = dirs.filter((d) => predictionSplits(d).length > 0);
      if (runs.length < 2) return void vscode.window.showWarningMessage(`cckit: fewer than two runs with predictions in ${root ?? 'the workspace'}.`);
      const item = (dir: string) => {
        const info = safeInfo(dir);
        return { label: info?.id ?? path.basename(dir), description: [info?.name, predictionSplits(dir).join(', ')].filter(Boolean).join(' · '), dir };
      };
      // matchOnDescription: a runs folder holds many runs; typing part of a run's name finds it
      const a = await vscode.window.showQuickPick(runs.map(item), { placeHolder: 'Run A (the baseline)', matchOnDescription: true });
      if (!a) return;
      const splitsA = predictionSplits(a.dir);
      const others = compareCandidates(root, a.dir).filter((r) => predictionSplits(r.dir).some((s) => splitsA.includes(s)));
      const b = await vscode.window.showQuickPick(
        others.map((r) => item(r.dir)),
        { placeHolder: `Run B, compared with ${a.label} (B − A)`, matchOnDescription: true },
      );
      if (!b) return;
      const common = splitsA.filter((s) => predictionSplits(b.dir).includes(s));
      const chosen = common.length === 1 ? common[0] : await vscode.window.showQuickPick(common, { placeHolder: 'Split to compare on' });
      if (!chosen) return;
      sidebar.compare(a.dir, b.dir, chosen);
      trace('compare', { runA: a.dir, runB: b.dir, split: chosen });
      await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
    }),
    vscode.commands.registerCommand(
      'cckit.restartKernel',
      refusedQuietly(async () => {
        const nb = activeNotebook();
        if (!nb) return void vscode.window.showWarningMessage('cckit: no notebook is open.');
        await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'cckit: restarting kernel' }, () => controller!.restart(nb));
        void vscode.window.setStatusBarMessage('cckit: kernel restarted', 3000);
      }),
    ),
    vscode.commands.registerCommand(
      'cckit.interruptKernel',
      refusedQuietly(async () => {
        const nb = activeNotebook();
        if (!nb || !(await controller!.interrupt(nb))) return void vscode.window.showInformationMessage('cckit: no kernel is running for this notebook.');
        void vscode.window.setStatusBarMessage('cckit: kernel interrupted', 3000);
      }),
    ),
  );
  // The kernel of the notebook in front, in the status bar (click: restart).
  const status = vscode.window.createStatusBarItem('cckit.kernel', vscode.StatusBarAlignment.Left, 50);
  status.name = 'cckit kernel';
  status.command = 'cckit.restartKernel';
  const showStatus = () => {
    const nb = vscode.window.activeNotebookEditor?.notebook;
    const state = nb ? controller!.kernelState(nb) : undefined;
    if (!state) return status.hide();
    status.text = `${state === 'busy' || state === 'starting' ? '$(loading~spin)' : '$(circle-large-outline)'} cckit: ${state}`;
    status.tooltip = `cckit kernel ${state}. Click to restart it.`;
    status.show();
  };
  context.subscriptions.push(status, controller.onDidChangeKernelState(showStatus), vscode.window.onDidChangeActiveNotebookEditor(showStatus));
  trace('activated', { vscode: vscode.version, trusted: vscode.workspace.isTrusted });
  log.appendLine(`cckit activated (VS Code ${vscode.version}, workspace trusted: ${vscode.workspace.isTrusted})`);
  return { ready: true };
}

/**
 * A command whose refusal in an untrusted workspace (already shown to the user by the controller) ends it
 * quietly, instead of VS Code adding a second "command resulted in an error" notification.
 */
function refusedQuietly(run: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await run();
    } catch (err) {
      if (!(err instanceof WorkspaceNotTrustedError)) throw err;
    }
  };
}

/** A run's run.json, or undefined when it cannot be read. */
function safeInfo(dir: string): RunInfo | undefined {
  try {
    return readRunInfo(dir);
  } catch {
    return undefined;
  }
}

/** The first markdown heading of a notebook, for the quick pick. */
function notebookTitle(file: string): string {
  try {
    const nb = JSON.parse(fs.readFileSync(file, 'utf8')) as { cells?: Array<{ cell_type: string; source: string | string[] }> };
    for (const c of nb.cells ?? []) {
      if (c.cell_type !== 'markdown') continue;
      const src = Array.isArray(c.source) ? c.source.join('') : c.source;
      const m = /^#+\s*(.+)$/m.exec(src);
      if (m) return m[1]!.trim();
    }
  } catch {
    // not readable: no title
  }
  return '';
}

export async function deactivate(): Promise<void> {
  await controller?.disposeAsync();
}
