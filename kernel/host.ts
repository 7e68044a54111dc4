/**
 * The kernel host: runs TypeScript cells in a separate Node process (`worker.ts`, forked) so an endless
 * loop or a crash in a cell never takes the caller down.
 *
 *   const kernel = new Kernel();
 *   kernel.on('output', (output, executionCount) => …);   // streamed as produced
 *   const r = await kernel.execute('let x = 1; x + 1');   // { status, outputs, executionCount }
 *   await kernel.interrupt(); await kernel.restart(); await kernel.shutdown();
 *
 * Cells run one at a time in submission order. When the process dies (a cell called process.exit, ran
 * out of memory, was killed), the running cell ends with status 'error' and an error output naming the
 * exit code or signal; the next `execute` starts a fresh process (state is lost, the count restarts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs = require('node:fs');
import path = require('node:path');
import { pathToFileURL } from 'node:url';
import type { ErrorOutput, ExecuteResult, ExecuteStatus, HostMessage, Output, WorkerMessage } from './protocol';

export * from './protocol';

export interface KernelOptions {
  /** Directory cells resolve `require`/`import` from and run in (default: process.cwd()). */
  cwd?: string;
  /** How long an interrupted cell may take to stop before the process is killed and restarted (ms). */
  interruptTimeoutMs?: number;
  /** How long the worker may take to start (ms). */
  startTimeoutMs?: number;
  /** Extra environment for the worker. */
  env?: NodeJS.ProcessEnv;
}

export type KernelState = 'stopped' | 'starting' | 'idle' | 'busy' | 'dead';

interface Pending {
  id: number;
  executionCount: number;
  outputs: Output[];
  onOutput?: (output: Output) => void;
  resolve: (r: ExecuteResult) => void;
  /** Set when the host gave up waiting and killed the worker during an interrupt. */
  killedForInterrupt?: boolean;
}

export interface KernelEvents {
  output: [output: Output, executionCount: number];
  status: [state: KernelState];
  /** The worker process ended without being asked to. */
  died: [info: { code: number | null; signal: NodeJS.Signals | null }];
}

/** Resolve how to start the worker: compiled JS next to us, or the TypeScript source through tsx. */
function workerEntry(): { file: string; execArgv: string[] } {
  const js = path.join(__dirname, 'worker.js');
  if (!__filename.endsWith('.ts') && fs.existsSync(js)) return { file: js, execArgv: [] };
  const tsx = pathToFileURL(require.resolve('tsx')).href;
  return { file: path.join(__dirname, 'worker.ts'), execArgv: ['--import', tsx] };
}

export class Kernel extends EventEmitter<KernelEvents> {
  private child: ChildProcess | undefined;
  private ready: Promise<void> | undefined;
  private nextId = 1;
  private count = 0;
  private current: Pending | undefined;
  private queue: Array<{ code: string; pending: Omit<Pending, 'id' | 'executionCount'> }> = [];
  private _state: KernelState = 'stopped';
  private readonly opts: Required<Omit<KernelOptions, 'env'>> & { env: NodeJS.ProcessEnv };
  /** Why the last process ended, reported on the cell that was running. */
  private expectedExit = false;

  constructor(options: KernelOptions = {}) {
    super();
    this.opts = {
      cwd: options.cwd ?? process.cwd(),
      interruptTimeoutMs: options.interruptTimeoutMs ?? 3000,
      startTimeoutMs: options.startTimeoutMs ?? 30000,
      env: options.env ?? {},
    };
  }

  get state(): KernelState {
    return this._state;
  }

  /** The worker's process id, while one runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  private setState(s: KernelState): void {
    if (this._state !== s) {
      this._state = s;
      this.emit('status', s);
    }
  }

  /** Start the worker if none is running; resolves once it can take cells. */
  start(): Promise<void> {
    if (this.ready) return this.ready;
    this.setState('starting');
    this.count = 0;
    const { file, execArgv } = workerEntry();
    const child = fork(file, [], {
      cwd: this.opts.cwd,
      execArgv,
      env: { ...process.env, ...this.opts.env, CCKIT_KERNEL_ROOT: this.opts.cwd },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
    });
    this.child = child;
    this.expectedExit = false;
    // Output that bypasses the worker's captured streams (native code, Node's own warnings).
    const raw = (name: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (this.child === child) this.addOutput({ type: 'stream', name, text: chunk.toString('utf8') });
    };
    child.stdout!.on('data', raw('stdout'));
    child.stderr!.on('data', raw('stderr'));
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`kernel worker did not start within ${this.opts.startTimeoutMs} ms`));
        child.kill('SIGKILL');
      }, this.opts.startTimeoutMs);
      child.on('message', (msg: WorkerMessage) => {
        if (this.child !== child) return;
        if (msg.type === 'ready') {
          clearTimeout(timer);
          this.setState('idle');
          resolve();
          this.pump();
        } else this.onMessage(msg);
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`kernel worker exited during start (${describeExit(code, signal)})`));
        this.onExit(child, code, signal);
      });
    });
    // A failed start is reported by whoever awaits it; keep Node from flagging it meanwhile.
    this.ready.catch(() => undefined);
    return this.ready;
  }

  /** Run a cell. Outputs are also emitted as 'output' events (and passed to `onOutput`) as they arrive. */
  execute(code: string, options: { onOutput?: (output: Output) => void } = {}): Promise<ExecuteResult> {
    return new Promise<ExecuteResult>((resolve) => {
      this.queue.push({ code, pending: { outputs: [], resolve, ...(options.onOutput ? { onOutput: options.onOutput } : {}) } });
      this.start().then(
        () => this.pump(),
        (err: Error) => this.failQueued(err),
      );
    });
  }

  /**
   * Stop the running cell. SIGINT first (the worker stops the cell and keeps its state); if the cell has
   * not stopped after `interruptTimeoutMs`, the worker is killed and restarted and the cell reports that
   * the state was lost. Resolves once the cell has ended. Queued cells still run.
   */
  async interrupt(): Promise<void> {
    const cur = this.current;
    const child = this.child;
    if (!cur || !child) return;
    const ended = new Promise<void>((resolve) => {
      const orig = cur.resolve;
      cur.resolve = (r) => {
        orig(r);
        resolve();
      };
    });
    child.kill('SIGINT');
    const timer = setTimeout(() => {
      if (this.current === cur && this.child === child) {
        cur.killedForInterrupt = true;
        child.kill('SIGKILL');
      }
    }, this.opts.interruptTimeoutMs);
    await ended;
    clearTimeout(timer);
    if (cur.killedForInterrupt) await this.start();
  }

  /** Kill the worker and start a fresh one (all state lost, execution count back to 0). */
  async restart(): Promise<void> {
    await this.stopChild();
    await this.start();
  }

  /** Stop the worker. Queued cells are dropped with an error. */
  async shutdown(): Promise<void> {
    const dropped = this.queue.splice(0);
    for (const q of dropped) q.pending.resolve({ status: 'error', outputs: [killedOutput('the kernel was shut down')], executionCount: 0 });
    await this.stopChild();
    this.setState('stopped');
  }

  private async stopChild(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.expectedExit = true;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  }

  private pump(): void {
    if (this.current || this._state !== 'idle' || !this.child) return;
    const next = this.queue.shift();
    if (!next) return;
    this.count += 1;
    const pending: Pending = { ...next.pending, id: this.nextId++, executionCount: this.count };
    this.current = pending;
    this.setState('busy');
    const msg: HostMessage = { type: 'execute', id: pending.id, code: next.code };
    this.child.send(msg);
  }

  private addOutput(output: Output, id?: number): void {
    const cur = this.current;
    const target = cur && (id === undefined || id === cur.id) ? cur : undefined;
    if (target) {
      target.outputs.push(output);
      target.onOutput?.(output);
    }
    this.emit('output', output, target ? target.executionCount : this.count);
  }

  private onMessage(msg: WorkerMessage): void {
    if (msg.type === 'output') this.addOutput(msg.output, msg.id);
    else if (msg.type === 'done') {
      const cur = this.current;
      if (!cur || cur.id !== msg.id) return;
      this.finish(msg.status);
    }
  }

  private finish(status: ExecuteStatus): void {
    const cur = this.current!;
    this.current = undefined;
    if (this._state === 'busy') this.setState('idle');
    cur.resolve({ status, outputs: cur.outputs, executionCount: cur.executionCount });
    this.pump();
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    const expected = this.expectedExit;
    this.child = undefined;
    this.ready = undefined;
    this.setState(expected ? 'stopped' : 'dead');
    if (!expected) this.emit('died', { code, signal });
    const cur = this.current;
    if (cur) {
      if (cur.killedForInterrupt) {
        this.addOutput({
          type: 'error',
          ename: 'Interrupted',
          evalue: `The cell did not stop within ${this.opts.interruptTimeoutMs} ms; the kernel was restarted and its state lost`,
          traceback: [
            `Interrupted: the cell did not stop within ${this.opts.interruptTimeoutMs} ms, so the kernel process was killed and restarted; variables from earlier cells are gone.`,
          ],
        });
        this.finish('interrupted');
      } else {
        this.addOutput(killedOutput(expected ? 'the kernel was restarted' : `the kernel process died (${describeExit(code, signal)})`));
        this.finish('error');
      }
    }
    // Cells queued behind a crash run on a fresh process.
    if (this.queue.length > 0) {
      this.start().then(
        () => this.pump(),
        (err: Error) => this.failQueued(err),
      );
    }
  }

  private failQueued(err: Error): void {
    for (const q of this.queue.splice(0)) {
      q.pending.resolve({ status: 'error', outputs: [killedOutput(err.message)], executionCount: 0 });
    }
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `killed by signal ${signal}`;
  return `exit code ${code}`;
}

function killedOutput(why: string): ErrorOutput {
  return {
    type: 'error',
    ename: 'KernelDied',
    evalue: why.charAt(0).toUpperCase() + why.slice(1),
    traceback: [`KernelDied: ${why}. Variables from earlier cells are gone; the next cell starts a fresh kernel.`],
  };
}
