/**
 * The "Captions" sidebar (a WebviewView in the cckit activity-bar container): a run's predictions with
 * filters (domain, score range, word), sorting, and the selected image shown large with the n-grams its
 * caption shares with the references highlighted; on world data, each caption's named (green) and
 * hallucinated (red) objects and the split's recall / CHAIR figures. The webview gets data by message only; its script and
 * style come from the extension, thumbnails from the run directory, under a nonce-based CSP with
 * `localResourceRoots` limited to the workspace folders and the extension. It reads run files as data only
 * (JSON, images), never workspace code; in an untrusted workspace it shows the run's text but no workspace
 * image (as the caption-grid renderer does), until the workspace is trusted.
 *
 * "Compare with…" (or the command cckit.compareRuns, or `show.compare` in a cell) compares the run (A) with
 * a second one (B) on the same split: both captions under each image, the per-image CIDEr difference B − A,
 * each caption's grounding verdict, the counts (B better / A better / ties, mean difference, images only one
 * run has). The comparison, its filters (domain, verdict) and sorting (by B − A) are src/runs/compare.ts,
 * applied here in the extension host, so the sidebar and `show.compare` agree; the page only draws them.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  DOMAINS,
  domainText,
  selectPairs,
  signed,
  summaryText,
  unmatchedNote,
  VERDICT_CHANGES,
  verdictText,
  type CompareSort,
  type Domain,
  type VerdictChange,
} from '../../src/runs/layout';
import { compareCandidates, defaultRun, listRunSummaries, loadComparison, loadRun, type CompareView } from './runs';

export const VIEW_ID = 'cckit.captions';

function realUri(uri: vscode.Uri): vscode.Uri {
  try {
    return vscode.Uri.file(fs.realpathSync(uri.fsPath));
  } catch {
    return uri;
  }
}

/** The comparison's filters and sort, as the page sets them. */
export interface CompareFilters {
  domains: Domain[];
  /** '' = any verdict. */
  verdict: VerdictChange | '';
  sort: CompareSort;
}

type FromWebview =
  | { type: 'ready' }
  | { type: 'selectRun'; dir: string }
  | { type: 'selectSplit'; split: string }
  | { type: 'refresh' }
  | { type: 'compareWith'; dir: string }
  | { type: 'compareFilters'; filters: CompareFilters }
  | { type: 'swapRuns' };

function validFilters(f: Partial<CompareFilters> | undefined): CompareFilters {
  const domains = f && Array.isArray(f.domains) ? f.domains.filter((d): d is Domain => DOMAINS.includes(d)) : [...DOMAINS];
  const verdict = VERDICT_CHANGES.some((c) => c.value === f?.verdict) ? (f!.verdict as VerdictChange) : '';
  const sort: CompareSort = f?.sort === 'diff-asc' || f?.sort === 'id' ? f.sort : 'diff-desc';
  return { domains, verdict, sort };
}

export class CaptionsViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  /** The run chosen by the user or published by a cell; undefined: the newest run with predictions. */
  private runDir: string | undefined;
  private split: string | undefined;
  /** Run B of a comparison with the shown run (A); undefined: no comparison. */
  private compareDir: string | undefined;
  private compareFilters: CompareFilters = validFilters(undefined);
  /** The last comparison read, until a run file changes or another run or split is chosen. */
  private compareCache: { key: string; view: CompareView } | undefined;
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

  /** Show a run (from the command, or a cell's `show.run`); ends a comparison. */
  showRun(runDir: string, split?: string): void {
    this.runDir = runDir;
    this.split = split;
    this.compareDir = undefined;
    this.refresh(0);
  }

  /** Compare run A (shown) with run B on `split` (from the command, or a cell's `show.compare`). */
  compare(runA: string, runB: string, split?: string): void {
    this.runDir = runA;
    this.split = split;
    this.compareDir = runB;
    this.refresh(0);
  }

  /** The run shown now (A of a comparison), if any. */
  currentRun(): string | undefined {
    const root = this.runsRoot();
    return this.runDir ?? (root ? defaultRun(root) : undefined);
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
      else if (m.type === 'selectRun') {
        // Choosing another run A keeps the comparison, unless A is now B.
        const b = this.compareDir;
        this.showRun(m.dir);
        if (b && path.resolve(b) !== path.resolve(m.dir)) this.compareDir = b;
      } else if (m.type === 'selectSplit') {
        this.split = m.split;
        this.post();
      } else if (m.type === 'compareWith') {
        this.compareDir = m.dir || undefined;
        if (this.compareDir && !this.runDir) this.runDir = this.currentRun();
        this.post();
      } else if (m.type === 'compareFilters') {
        this.compareFilters = validFilters(m.filters);
        this.post();
      } else if (m.type === 'swapRuns' && this.compareDir) {
        const a = this.currentRun();
        if (a) this.compare(this.compareDir, a, this.split);
      }
    });
    view.onDidChangeVisibility(() => view.visible && this.post());
    view.onDidDispose(() => (this.view = undefined));
  }

  refresh(delayMs = 150): void {
    this.compareCache = undefined;
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
    } else if (this.compareDir) {
      message = this.compareMessage(view, runs, root, dir, this.compareDir);
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
        const candidates = compareCandidates(root, dir, run.split);
        message = { type: 'state', runs, runsRoot: root, run: { ...run, items }, candidates, ...(notice ? { notice } : {}) };
      } catch (err) {
        message = { type: 'state', runs, runsRoot: root, error: `Cannot read ${dir}: ${(err as Error).message}` };
      }
    }
    void view.webview.postMessage(message);
  }

  /** The state of a comparison: counts and words for all pairs, and the pairs the filters let through, sorted. */
  private compareMessage(view: vscode.WebviewView, runs: unknown[], root: string | undefined, a: string, b: string): Record<string, unknown> {
    const base = { type: 'state', runs, runsRoot: root };
    let cv: CompareView;
    try {
      const key = `${a}\n${b}\n${this.split ?? ''}`;
      cv = this.compareCache?.key === key ? this.compareCache.view : loadComparison(a, b, this.split);
      this.compareCache = { key, view: cv };
    } catch (err) {
      // Still offer the header (run A, its splits, "compare with…") so another run or split can be chosen.
      let header: Record<string, unknown> = {};
      try {
        const run = loadRun(a, this.split);
        header = { run: { ...run, items: [] }, candidates: compareCandidates(root, a, run.split) };
      } catch {
        // A itself unreadable: the error says so
      }
      return { ...base, ...header, compareDir: b, error: `Cannot compare ${a} with ${b}: ${(err as Error).message}` };
    }
    const c = cv.comparison;
    const f = this.compareFilters;
    const selected = selectPairs(c.pairs, {
      ...(c.hasDomains && f.domains.length < DOMAINS.length ? { domain: f.domains } : {}),
      ...(c.hasVerdicts && f.verdict ? { verdict: f.verdict } : {}),
      sort: f.sort,
    }) as typeof c.pairs;
    const trusted = vscode.workspace.isTrusted;
    const pairs = selected.map((p) => {
      const shown = { ...p, ...(p.diff !== undefined ? { diffText: signed(p.diff) } : {}) };
      return trusted || !p.thumb
        ? { ...shown, thumb: p.thumb ? view.webview.asWebviewUri(vscode.Uri.file(p.thumb)).toString() : undefined }
        : { ...shown, thumb: undefined, thumbNote: 'no thumbnail in an untrusted workspace' };
    });
    const notice = trusted ? undefined : 'Untrusted workspace: thumbnails are not shown. Trust the workspace (Workspaces: Manage Workspace Trust) to see them.';
    const summaryOf = (info: { id: string; name?: string; status: string }, dir: string) => ({ id: info.id, name: info.name, status: info.status, dir });
    return {
      ...base,
      ...(notice ? { notice } : {}),
      candidates: compareCandidates(root, a, cv.split),
      compareDir: b,
      compare: {
        a: summaryOf(cv.a.info, cv.a.dir),
        b: summaryOf(cv.b.info, cv.b.dir),
        splits: cv.splits,
        split: cv.split,
        metric: c.metric,
        summary: summaryText(c.summary, c.metric),
        domains: domainText(c),
        verdicts: verdictText(c.summary),
        unmatched: unmatchedNote(c),
        counts: c.summary,
        onlyA: c.onlyA.length,
        onlyB: c.onlyB.length,
        paired: c.pairs.length,
        hasDomains: c.hasDomains,
        hasVerdicts: c.hasVerdicts,
        verdictOptions: VERDICT_CHANGES,
        filters: f,
        pairs,
      },
    };
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
