/**
 * The kernel worker: a forked Node process that runs cells with tslab's executor and reports outputs
 * to the host over the IPC channel. Started by `host.ts`; not meant to be run by hand.
 *
 * - stdout/stderr writes (console.log, process.stdout.write) become `stream` outputs, in order with
 *   display outputs since both travel over the same channel;
 * - `globalThis[Symbol.for(DISPLAY_CHANNEL)]` receives MIME bundles from `src/notebook/display.ts`;
 * - SIGINT interrupts the running cell: tslab runs cells with `breakOnSigint`, so a synchronous loop in
 *   cell code throws, and our SIGINT handler rejects the pending top-level await; state is kept.
 */
import Module = require('node:module');
import path = require('node:path');
import util = require('node:util');
import { compileError, runtimeError } from './errors';
import { DISPLAY_CHANNEL } from './protocol';
import type { CellDiagnostic, DisplayRequest, HostMessage, Output, WorkerMessage } from './protocol';

const send = (msg: WorkerMessage): void => {
  if (process.connected) process.send!(msg);
};

/** The execution outputs are attributed to: the running one, else the last one that ran. */
let currentId = 0;
let running = false;
let cellSource = '';
let compiledOutput: string | undefined;
let diagnostics: CellDiagnostic[] = [];
let thrown: { value: unknown } | undefined;

function emit(output: Output): void {
  send({ type: 'output', id: currentId, output });
}

// ---- stdout / stderr → stream outputs ---------------------------------------------------------------

function captureStream(name: 'stdout' | 'stderr'): void {
  const stream = process[name];
  stream.write = ((chunk: unknown, encoding?: unknown, cb?: unknown): boolean => {
    const text =
      typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    emit({ type: 'stream', name, text });
    const done = typeof encoding === 'function' ? encoding : cb;
    if (typeof done === 'function') process.nextTick(done as () => void);
    return true;
  }) as typeof stream.write;
}
captureStream('stdout');
captureStream('stderr');

// ---- the display channel ---------------------------------------------------------------------------

const display = (req: DisplayRequest): void => {
  const metadata = req.metadata ?? {};
  if (req.update && req.displayId) {
    emit({ type: 'update_display_data', data: req.data, metadata, displayId: req.displayId });
  } else {
    emit({ type: 'display_data', data: req.data, metadata, ...(req.displayId ? { displayId: req.displayId } : {}) });
  }
};

// ---- `require('cckit')` from cells -------------------------------------------------------------------

/** The repository root (kernel/ is one level below it, in sources and in dist/kernel alike). */
const repoRoot = [path.resolve(__dirname, '..'), path.resolve(__dirname, '..', '..')].find((d) => {
  try {
    return (require(path.join(d, 'package.json')) as { name?: string }).name === 'cckit';
  } catch {
    return false;
  }
});
if (repoRoot) {
  const M = Module as unknown as { _resolveFilename: (req: string, parent: unknown, ...rest: unknown[]) => string };
  const original = M._resolveFilename;
  M._resolveFilename = function (request: string, parent: unknown, ...rest: unknown[]): string {
    try {
      return original.call(this, request, parent, ...rest);
    } catch (err) {
      if (request === 'cckit' || request.startsWith('cckit/')) {
        return original.call(this, repoRoot + request.slice('cckit'.length), parent, ...rest);
      }
      throw err;
    }
  };
}

// ---- the executor ------------------------------------------------------------------------------------

// The parts of tslab's executor API used here, declared locally: importing tslab's own .d.ts would pull
// its @types/node 18 into this project's type check.
interface ConvertResult {
  output?: string;
}
interface Converter {
  convert(prevDecl: string, src: string): ConvertResult;
  close(): void;
}
interface ConsoleInterface {
  log(message?: unknown, ...optionalParams: unknown[]): void;
  error(message?: unknown, ...optionalParams: unknown[]): void;
}
interface Executor {
  execute(src: string): Promise<boolean>;
  interrupt(): void;
  close(): void;
}
interface ConverterSet {
  node: Converter;
  browser: Converter;
  close(): void;
}

const rootDir = process.env.CCKIT_KERNEL_ROOT || process.cwd();
const { createConverter } = require('tslab/dist/converter') as { createConverter(options?: { isBrowser?: boolean }): Converter };
const { createExecutor } = require('tslab/dist/executor') as {
  createExecutor(rootDir: string, convs: ConverterSet, console: ConsoleInterface): Executor;
};

function capturing(conv: Converter): Converter {
  const convert = conv.convert.bind(conv);
  conv.convert = (prevDecl, src) => {
    const result = convert(prevDecl, src);
    compiledOutput = result.output;
    return result;
  };
  return conv;
}

const node = capturing(createConverter());
const browser = createConverter({ isBrowser: true });
const executor: Executor = createExecutor(
  rootDir,
  {
    node,
    browser,
    close: () => {
      node.close();
      browser.close();
    },
  },
  {
    log: (message?: unknown, ...rest: unknown[]) => {
      // The value of the cell's last expression.
      const text = typeof message === 'string' && rest.length === 0 ? message : util.inspect(message, { colors: false, depth: 4 });
      emit({ type: 'execute_result', data: { 'text/plain': text }, metadata: {} });
    },
    error: (message?: unknown, ...rest: unknown[]) => {
      if (message === '%s%d:%d - %s' && rest.length === 4) {
        const [file, line, column, text] = rest as [string, number, number, string];
        diagnostics.push({ line, column, message: file ? `${file}: ${text}` : text });
        return;
      }
      thrown = { value: message };
    },
  },
);

function isInterruption(v: unknown): boolean {
  const e = v as { code?: string; message?: string } | null;
  return !!e && (e.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED' || e.message === 'Interrupted asynchronously');
}

let interruptRequested = false;
process.on('SIGINT', () => {
  if (!running) return;
  interruptRequested = true;
  executor.interrupt();
});

async function execute(id: number, code: string): Promise<void> {
  currentId = id;
  running = true;
  interruptRequested = false;
  cellSource = code;
  compiledOutput = undefined;
  diagnostics = [];
  thrown = undefined;
  let ok = false;
  try {
    ok = await executor.execute(code);
  } catch (err) {
    thrown = { value: err };
  }
  running = false;
  let status: 'ok' | 'error' | 'interrupted' = ok ? 'ok' : 'error';
  if (diagnostics.length > 0) {
    emit(compileError(diagnostics, cellSource));
  } else if (thrown && (isInterruption(thrown.value) || interruptRequested)) {
    status = 'interrupted';
    emit({ type: 'error', ename: 'Interrupted', evalue: 'Execution interrupted', traceback: ['Interrupted: the cell was stopped; the kernel state is kept.'] });
  } else if (thrown) {
    status = 'error';
    emit(runtimeError(thrown.value, cellSource, compiledOutput));
  }
  send({ type: 'done', id, status });
}

// Errors from callbacks after a cell finished must not kill the kernel: report them on the last cell.
process.on('uncaughtException', (err) => emit(runtimeError(err, cellSource, compiledOutput)));
process.on('unhandledRejection', (err) => emit(runtimeError(err, cellSource, compiledOutput)));

let queue = Promise.resolve();
process.on('message', (msg: HostMessage) => {
  if (msg.type === 'execute') queue = queue.then(() => execute(msg.id, msg.code));
  else if (msg.type === 'shutdown') {
    executor.close();
    process.exit(0);
  }
});
// The host went away: nobody is left to read outputs.
process.on('disconnect', () => process.exit(0));

(globalThis as Record<symbol, unknown>)[Symbol.for(DISPLAY_CHANNEL)] = display;
// tslab's own `display` (import * as tslab from 'tslab') writes through jupyter.lastWriteDisplayData.
const jupyter = require('tslab/dist/jupyter') as { lastWriteDisplayData: unknown };
jupyter.lastWriteDisplayData = (
  d: { data: Record<string, unknown>; metadata?: Record<string, unknown>; transient?: { display_id?: string } },
  update: boolean,
) => display({ data: d.data, metadata: d.metadata ?? {}, ...(d.transient?.display_id ? { displayId: d.transient.display_id } : {}), update });
const { versions } = require('tslab/dist/public') as { versions: { tslab: string; typescript: string; node: string } };
send({ type: 'ready', versions });
