/**
 * The "cckit TypeScript" notebook controller for `.ipynb` (notebook type `jupyter-notebook`): one kernel
 * (kernel/host.ts, loaded from the workspace's cckit) per open notebook, cells run one at a time in the
 * notebook's folder, outputs streamed in as the kernel produces them, with execution order and timing.
 * Cancelling a running cell interrupts the kernel (SIGINT, state kept); cancelling a queued one skips it.
 * The kernel is workspace code: every path to it (run, restart, interrupt) goes through `requireTrust`,
 * and in an untrusted workspace nothing is loaded or spawned and the user is told why.
 */
import * as path from 'path';
import * as vscode from 'vscode';
import type { Kernel, Output } from '../../kernel/host';
import { candidateRoots, findCckitRoot, loadKernelModule } from './kernelRoot';
import { CAPTIONS_MIME, bundleItems, inlineCaptionImages, runOf } from './outputs';
import { trace } from './trace';
import { WorkspaceNotTrustedError, requireTrust, type TrustGrant } from './trust';

export const CONTROLLER_ID = 'cckit-typescript';
export const CONTROLLER_LABEL = 'cckit TypeScript';

interface Session {
  kernel: Kernel;
  root: string;
  cwd: string;
  /** Cells run one after another: each waits for this. */
  chain: Promise<void>;
  running?: vscode.NotebookCellExecution;
  pending: Set<vscode.NotebookCellExecution>;
  cancelled: WeakSet<vscode.NotebookCellExecution>;
}

export interface PublishedRun {
  /** Absolute (a relative path is taken from the notebook's folder). */
  runDir: string;
  split?: string;
  /** `show.compare`: run B, compared with `runDir` (A). */
  compareWith?: string;
}

function isTypeScriptNotebook(nb: vscode.NotebookDocument): boolean {
  const md = nb.metadata as {
    metadata?: Record<string, unknown>;
    custom?: { metadata?: Record<string, unknown> };
    kernelspec?: unknown;
    language_info?: unknown;
  };
  const meta = md.metadata ?? md.custom?.metadata ?? (md as Record<string, unknown>);
  const spec = meta.kernelspec as { name?: string; language?: string } | undefined;
  const lang = meta.language_info as { name?: string } | undefined;
  if (spec?.name === 'tslab' || spec?.language === 'typescript' || lang?.name === 'typescript') return true;
  return nb.getCells().some((c) => c.kind === vscode.NotebookCellKind.Code && c.document.languageId === 'typescript');
}

export class CckitController implements vscode.Disposable {
  readonly controller: vscode.NotebookController;
  private readonly sessions = new Map<string, Session>();
  private readonly published = new vscode.EventEmitter<PublishedRun>();
  /** A cell published a run (`show.run(dir)`): the sidebar shows it. */
  readonly onDidPublishRun = this.published.event;
  private readonly stateChanged = new vscode.EventEmitter<vscode.NotebookDocument>();
  /** A notebook's kernel changed state (starting, idle, busy, dead, stopped). */
  readonly onDidChangeKernelState = this.stateChanged.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly log: vscode.OutputChannel) {
    const c = vscode.notebooks.createNotebookController(CONTROLLER_ID, 'jupyter-notebook', CONTROLLER_LABEL);
    c.supportedLanguages = ['typescript', 'javascript'];
    c.supportsExecutionOrder = true;
    c.description = 'TypeScript cells on the cckit kernel';
    c.detail = 'tslab executor in a separate Node process; require("cckit") loads the workspace library';
    c.executeHandler = (cells, notebook) => this.execute(cells, notebook);
    this.controller = c;
    this.disposables.push(
      c,
      this.published,
      this.stateChanged,
      vscode.workspace.onDidOpenNotebookDocument((nb) => this.prefer(nb)),
      vscode.workspace.onDidCloseNotebookDocument((nb) => void this.shutdown(nb)),
    );
    for (const nb of vscode.workspace.notebookDocuments) this.prefer(nb);
  }

  private prefer(nb: vscode.NotebookDocument): void {
    if (nb.notebookType === 'jupyter-notebook' && isTypeScriptNotebook(nb)) {
      this.controller.updateNotebookAffinity(nb, vscode.NotebookControllerAffinity.Preferred);
    }
  }

  /**
   * The one trust check: a grant when the workspace is trusted now; else the refusal is shown, logged and
   * traced, and WorkspaceNotTrustedError thrown. session() calls it before anything is loaded; restart and
   * interrupt call it first too (their commands can be invoked directly, whatever the menus show).
   */
  private requireTrust(action: string, nb?: vscode.NotebookDocument): TrustGrant {
    try {
      return requireTrust(vscode.workspace, action);
    } catch (err) {
      const name = nb ? path.basename(nb.uri.path) : 'cckit';
      this.log.appendLine(`[${name}] refused to ${action}: the workspace is not trusted`);
      trace('refused', { action, reason: 'untrusted workspace', ...(nb ? { notebook: nb.uri.fsPath } : {}) });
      void vscode.window.showErrorMessage((err as Error).message);
      throw err;
    }
  }

  /** The kernel session of a notebook, started on first use (only in a trusted workspace). */
  private session(nb: vscode.NotebookDocument, action = 'start the kernel'): Session {
    const grant = this.requireTrust(action, nb);
    const key = nb.uri.toString();
    const existing = this.sessions.get(key);
    if (existing) return existing;
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    const setting = vscode.workspace.getConfiguration('cckit', nb.uri).get<string>('root');
    const found = findCckitRoot(candidateRoots(setting, folders));
    if ('error' in found) throw new Error(found.error);
    const { Kernel } = loadKernelModule(found.hostJs, grant);
    const cwd = nb.uri.scheme === 'file' ? path.dirname(nb.uri.fsPath) : found.root;
    const kernel = new Kernel({ cwd });
    kernel.on('status', (s) => {
      this.log.appendLine(`[${path.basename(nb.uri.path)}] kernel ${s}`);
      this.stateChanged.fire(nb);
    });
    kernel.on('died', (info) => this.log.appendLine(`[${path.basename(nb.uri.path)}] kernel died: ${JSON.stringify(info)}`));
    const s: Session = { kernel, root: found.root, cwd, chain: Promise.resolve(), pending: new Set(), cancelled: new WeakSet() };
    this.sessions.set(key, s);
    this.log.appendLine(`[${path.basename(nb.uri.path)}] kernel from ${found.root}, cwd ${cwd}`);
    return s;
  }

  private async execute(cells: vscode.NotebookCell[], nb: vscode.NotebookDocument): Promise<void> {
    let s: Session;
    try {
      s = this.session(nb, cells.length === 1 ? 'run the cell' : 'run the cells');
    } catch (err) {
      const untrusted = err instanceof WorkspaceNotTrustedError;
      for (const cell of cells) {
        const exec = this.controller.createNotebookCellExecution(cell);
        exec.start(Date.now());
        await exec.replaceOutput(
          new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.error({ name: untrusted ? err.name : 'NoKernel', message: (err as Error).message })]),
        );
        exec.end(false, Date.now());
      }
      // requireTrust has shown its own message.
      if (!untrusted) void vscode.window.showErrorMessage(`cckit: ${(err as Error).message}`);
      return;
    }
    const runs: Promise<void>[] = [];
    for (const cell of cells) {
      const exec = this.controller.createNotebookCellExecution(cell);
      s.pending.add(exec);
      exec.token.onCancellationRequested(() => {
        if (s.running === exec) void s.kernel.interrupt();
        else s.cancelled.add(exec);
      });
      const run = s.chain.then(() => this.runCell(s, exec, nb));
      s.chain = run.catch(() => undefined);
      runs.push(run);
    }
    await Promise.allSettled(runs);
  }

  private async runCell(s: Session, exec: vscode.NotebookCellExecution, nb: vscode.NotebookDocument): Promise<void> {
    s.pending.delete(exec);
    if (s.cancelled.has(exec) || exec.token.isCancellationRequested) {
      exec.end(undefined);
      trace('cell', { notebook: nb.uri.fsPath, index: exec.cell.index, status: 'skipped' });
      return;
    }
    s.running = exec;
    exec.start(Date.now());
    try {
      await exec.clearOutput();
      const roots = [...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath), s.root];
      const writer = new CellWriter(
        exec,
        s.cwd,
        roots,
        (run) =>
          this.published.fire({
            ...run,
            runDir: path.resolve(s.cwd, run.runDir),
            ...(run.compareWith ? { compareWith: path.resolve(s.cwd, run.compareWith) } : {}),
          }),
        this.log,
      );
      const code = exec.cell.document.getText();
      const result = await s.kernel.execute(code, { onOutput: (o) => writer.add(o) });
      await writer.flush();
      exec.executionOrder = result.executionCount;
      exec.end(result.status === 'ok', Date.now());
      trace('cell', {
        notebook: nb.uri.fsPath,
        index: exec.cell.index,
        status: result.status,
        executionOrder: result.executionCount,
        outputs: result.outputs.map((o) =>
          o.type === 'display_data' || o.type === 'execute_result' || o.type === 'update_display_data'
            ? Object.keys(o.data)
            : [o.type === 'error' ? `error:${o.ename}` : `stream:${o.name}`],
        ),
      });
    } catch (err) {
      this.log.appendLine(`[${path.basename(nb.uri.path)}] execution failed: ${(err as Error).stack ?? err}`);
      try {
        await exec.appendOutput(new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.error(err as Error)]));
      } catch {
        // the notebook was closed
      }
      exec.end(false, Date.now());
    } finally {
      if (s.running === exec) s.running = undefined;
    }
  }

  /** Interrupt the running cell of a notebook and skip the cells queued behind it. */
  async interrupt(nb: vscode.NotebookDocument): Promise<boolean> {
    this.requireTrust('interrupt the kernel', nb);
    const s = this.sessions.get(nb.uri.toString());
    if (!s) return false;
    for (const e of s.pending) s.cancelled.add(e);
    await s.kernel.interrupt();
    return true;
  }

  /** Restart a notebook's kernel: state and execution count reset; queued cells are skipped. */
  async restart(nb: vscode.NotebookDocument): Promise<void> {
    this.requireTrust('restart the kernel', nb);
    const s = this.sessions.get(nb.uri.toString());
    if (!s) {
      this.session(nb, 'restart the kernel');
      return;
    }
    for (const e of s.pending) s.cancelled.add(e);
    await s.kernel.restart();
  }

  kernelState(nb: vscode.NotebookDocument): string | undefined {
    return this.sessions.get(nb.uri.toString())?.kernel.state;
  }

  private async shutdown(nb: vscode.NotebookDocument): Promise<void> {
    const key = nb.uri.toString();
    const s = this.sessions.get(key);
    if (!s) return;
    this.sessions.delete(key);
    await s.kernel.shutdown();
  }

  async disposeAsync(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(all.map((s) => s.kernel.shutdown()));
  }

  dispose(): void {
    void this.disposeAsync();
    for (const d of this.disposables) d.dispose();
  }
}

function toItems(data: Record<string, unknown>, baseDir: string, roots: string[]): vscode.NotebookCellOutputItem[] {
  const transform = (mime: string, value: unknown) => (mime === CAPTIONS_MIME ? inlineCaptionImages(value, baseDir, roots) : value);
  return bundleItems(data, transform).map((i) => new vscode.NotebookCellOutputItem(i.data, i.mime));
}

/** Writes one cell's outputs in order; streams of the same kind are merged into one output. */
class CellWriter {
  private chain: Promise<void> = Promise.resolve();
  private last: { output: vscode.NotebookCellOutput; stream?: 'stdout' | 'stderr' } | undefined;
  private readonly displays = new Map<string, vscode.NotebookCellOutput>();

  constructor(
    private readonly exec: vscode.NotebookCellExecution,
    private readonly baseDir: string,
    private readonly roots: string[],
    private readonly onRun: (run: PublishedRun) => void,
    private readonly log: vscode.OutputChannel,
  ) {}

  add(o: Output): void {
    this.chain = this.chain.then(
      () => this.write(o),
      () => this.write(o),
    );
    this.chain.catch((err: Error) => this.log.appendLine(`output not written: ${err.message}`));
  }

  flush(): Promise<void> {
    return this.chain.catch(() => undefined);
  }

  private async write(o: Output): Promise<void> {
    const exec = this.exec;
    switch (o.type) {
      case 'stream': {
        const item = o.name === 'stdout' ? vscode.NotebookCellOutputItem.stdout(o.text) : vscode.NotebookCellOutputItem.stderr(o.text);
        if (this.last?.stream === o.name) {
          await exec.appendOutputItems(item, this.last.output);
        } else {
          const out = new vscode.NotebookCellOutput([item]);
          await exec.appendOutput(out);
          this.last = { output: out, stream: o.name };
        }
        return;
      }
      case 'display_data':
      case 'execute_result': {
        const run = runOf(o.data);
        if (run) this.onRun(run);
        const items = toItems(o.data, this.baseDir, this.roots);
        if (items.length === 0) return;
        const out = new vscode.NotebookCellOutput(items, o.metadata);
        await exec.appendOutput(out);
        this.last = { output: out };
        if (o.type === 'display_data' && o.displayId) this.displays.set(o.displayId, out);
        return;
      }
      case 'update_display_data': {
        const out = this.displays.get(o.displayId);
        if (out) await exec.replaceOutputItems(toItems(o.data, this.baseDir, this.roots), out);
        return;
      }
      case 'error': {
        const out = new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.error({ name: o.ename, message: o.evalue, stack: o.traceback.join('\n') })]);
        await exec.appendOutput(out);
        this.last = { output: out };
        return;
      }
    }
  }
}
