/**
 * The "Captions" sidebar (a WebviewView in the cckit activity-bar container): a run's predictions with
 * filters (domain, score range, word), sorting, and the selected image shown large with the n-grams its
 * caption shares with the references highlighted; on world data, each caption's named (green) and
 * hallucinated (red) objects and the split's recall / CHAIR figures. The webview gets data by message only; its script and
 * style come from the extension, thumbnails from the run directory, under a nonce-based CSP with
 * `localResourceRoots` limited to the workspace folders and the extension. It reads run files as data only
 * (JSON, images), never workspace code; in an untrusted workspace it shows the run's text but no workspace
 * image (as the caption-grid renderer does), until the workspace is trusted.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { defaultRun, listRunSummaries, loadRun } from './runs';

export const VIEW_ID = 'cckit.captions';

function realUri(uri: vscode.Uri): vscode.Uri {
  try {
    return vscode.Uri.file(fs.realpathSync(uri.fsPath));
  } catch {
    return uri;
  }
}

type FromWebview = { type: 'ready' } | { type: 'selectRun'; dir: string } | { type: 'selectSplit'; split: string } | { type: 'refresh' };

export class CaptionsViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  /** The run chosen by the user or published by a cell; undefined: the newest run with predictions. */
  private runDir: string | undefined;
  private split: string | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private refreshTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.OutputChannel,
  ) {
    this.watch();
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('cckit.runsDirectory')) {
          this.watch();
          this.refresh();
        }
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        this.watch();
        if (this.view) this.view.webview.options = this.webviewOptions();
        this.refresh();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        if (this.view) this.view.webview.options = this.webviewOptions();
        this.refresh(0);
      }),
    );
  }

  private watchers: vscode.Disposable[] = [];

  /** Re-read when a run's predictions, scores or run.json change (a training run or a cell writing them). */
  private watch(): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = [];
    const dir = this.runsSetting();
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      for (const glob of [`${dir}/*/predictions/*.json`, `${dir}/*/scores/*.json`, `${dir}/*/run.json`]) {
        const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, glob));
        const onChange = (uri: vscode.Uri) => {
          this.log.appendLine(`runs changed: ${uri.fsPath}`);
          this.refresh();
        };
        w.onDidCreate(onChange);
        w.onDidChange(onChange);
        w.onDidDelete(onChange);
        this.watchers.push(w);
      }
    }
  }

  private runsSetting(): string {
    return vscode.workspace.getConfiguration('cckit').get<string>('runsDirectory') || 'runs';
  }

  runsRoot(): string | undefined {
    const folder = vscode.workspace.workspaceFolders?.[0];
    return folder ? path.resolve(folder.uri.fsPath, this.runsSetting()) : undefined;
  }

  /** Show a run (from the command, or a cell's `show.run`). */
  showRun(runDir: string, split?: string): void {
    this.runDir = runDir;
    this.split = split;
    this.refresh(0);
  }

  /**
   * Workspace files (thumbnails) are webview resources only in a trusted workspace: the folders, and their
   * real paths (runs.ts gives thumbnails by real path).
   */
  private webviewOptions(): vscode.WebviewOptions {
    const folders = vscode.workspace.isTrusted ? (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri) : [];
    const all = [this.extensionUri, ...folders, ...folders.filter((f) => f.scheme === 'file').map(realUri)];
    const roots = all.filter((u, i) => all.findIndex((v) => v.toString() === u.toString()) === i);
    return { enableScripts: true, enableCommandUris: false, localResourceRoots: roots };
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = this.webviewOptions();
    view.webview.html = this.html(view.webview);
    view.webview.onDidReceiveMessage((m: FromWebview) => {
      if (m.type === 'ready' || m.type === 'refresh') this.post();
      else if (m.type === 'selectRun') this.showRun(m.dir);
      else if (m.type === 'selectSplit') {
        this.split = m.split;
        this.post();
      }
    });
    view.onDidChangeVisibility(() => view.visible && this.post());
    view.onDidDispose(() => (this.view = undefined));
  }

  refresh(delayMs = 150): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => this.post(), delayMs);
  }

  private post(): void {
    const view = this.view;
    if (!view) return;
    const root = this.runsRoot();
    const runs = root ? listRunSummaries(root) : [];
    const dir = this.runDir ?? (root ? defaultRun(root) : undefined);
    let message: Record<string, unknown>;
    if (!dir) {
      message = { type: 'state', runs, runsRoot: root, error: root ? `No run with predictions in ${root}.` : 'Open a folder to see its runs.' };
    } else {
      try {
        const run = loadRun(dir, this.split);
        const trusted = vscode.workspace.isTrusted;
        const items = run.items.map((it) =>
          trusted || !it.thumb
            ? { ...it, thumb: it.thumb ? view.webview.asWebviewUri(vscode.Uri.file(it.thumb)).toString() : undefined }
            : { ...it, thumb: undefined, thumbNote: 'no thumbnail in an untrusted workspace' },
        );
        const notice = trusted
          ? undefined
          : 'Untrusted workspace: thumbnails are not shown. Trust the workspace (Workspaces: Manage Workspace Trust) to see them.';
        message = { type: 'state', runs, runsRoot: root, run: { ...run, items }, ...(notice ? { notice } : {}) };
      } catch (err) {
        message = { type: 'state', runs, runsRoot: root, error: `Cannot read ${dir}: ${(err as Error).message}` };
      }
    }
    void view.webview.postMessage(message);
  }

  private html(webview: vscode.Webview): string {
    const nonce = crypto.randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'sidebar.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'sidebar.css'));
    const csp = [
      "default-src 'none'",
      `img-src ${webview.cspSource}`,
      `style-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
      "font-src 'none'",
      "connect-src 'none'",
      "form-action 'none'",
      "frame-src 'none'",
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Captions</title>
</head>
<body>
<div id="app" class="cckit-sidebar"><p class="muted">Loading…</p></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }

  dispose(): void {
    for (const w of this.watchers) w.dispose();
    for (const d of this.disposables) d.dispose();
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
  }
}
