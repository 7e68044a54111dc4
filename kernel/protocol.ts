/**
 * The messages exchanged between the kernel host (`host.ts`, in the caller's process) and the worker
 * (`worker.ts`, a forked Node process running tslab's executor), and the outputs a cell produces.
 *
 * Outputs follow Jupyter's shapes (stream, display_data, update_display_data, execute_result, error) so
 * a notebook front end can store them in an `.ipynb` as they are.
 */

/** A MIME bundle: MIME type → payload (strings; JSON types for `*+json`; base64 for images). */
export type MimeBundle = Record<string, unknown>;

export interface StreamOutput {
  type: 'stream';
  name: 'stdout' | 'stderr';
  text: string;
}

export interface DisplayOutput {
  type: 'display_data';
  data: MimeBundle;
  metadata: Record<string, unknown>;
  /** Set when the output may later be replaced in place by an `update_display_data` with the same id. */
  displayId?: string;
}

export interface UpdateDisplayOutput {
  type: 'update_display_data';
  data: MimeBundle;
  metadata: Record<string, unknown>;
  displayId: string;
}

export interface ExecuteResultOutput {
  type: 'execute_result';
  data: MimeBundle;
  metadata: Record<string, unknown>;
}

/** One compile diagnostic, positions 1-based in the cell. */
export interface CellDiagnostic {
  line: number;
  column: number;
  message: string;
  /** The cell's source line the diagnostic points at. */
  source?: string;
}

export interface ErrorOutput {
  type: 'error';
  /** Error class name: `TypeError`, `CompileError`, `KernelDied`, `Interrupted`, … */
  ename: string;
  evalue: string;
  /** Human-readable lines: the message, the cell line with a caret, then the relevant stack frames. */
  traceback: string[];
  /** 1-based line in the cell where the error happened, when it could be located. */
  cellLine?: number;
  cellColumn?: number;
  /** Compile errors only: every diagnostic. */
  diagnostics?: CellDiagnostic[];
}

export type Output = StreamOutput | DisplayOutput | UpdateDisplayOutput | ExecuteResultOutput | ErrorOutput;

export type ExecuteStatus = 'ok' | 'error' | 'interrupted';

export interface ExecuteResult {
  status: ExecuteStatus;
  outputs: Output[];
  executionCount: number;
}

// ---- host → worker -------------------------------------------------------------------------------

export interface ExecuteRequest {
  type: 'execute';
  id: number;
  code: string;
}

export interface ShutdownRequest {
  type: 'shutdown';
}

export type HostMessage = ExecuteRequest | ShutdownRequest;

// ---- worker → host -------------------------------------------------------------------------------

export interface ReadyMessage {
  type: 'ready';
  versions: { tslab: string; typescript: string; node: string };
}

export interface OutputMessage {
  type: 'output';
  /** The execution the output belongs to (the last one started, for output from timers after it ended). */
  id: number;
  output: Output;
}

export interface DoneMessage {
  type: 'done';
  id: number;
  status: ExecuteStatus;
}

export type WorkerMessage = ReadyMessage | OutputMessage | DoneMessage;

/**
 * The global slot (`globalThis[DISPLAY_CHANNEL]`) through which `src/notebook/display.ts` hands MIME
 * bundles to the kernel worker. Kept as a registered symbol so the library needs no import of `kernel/`.
 */
export const DISPLAY_CHANNEL = 'cckit.notebook.display';

export interface DisplayRequest {
  data: MimeBundle;
  metadata?: Record<string, unknown>;
  displayId?: string;
  /** Replace the output that has `displayId` instead of adding one. */
  update?: boolean;
}
