/**
 * Turning what tslab's executor reports (diagnostics printed as `%s%d:%d - %s`, runtime errors thrown
 * from code run as `evalmachine.<anonymous>`) into error outputs that name the cell line.
 *
 * tslab emits no source map for a cell, so a compiled line is mapped back to the cell by aligning the
 * two texts: both keep statement order, so a monotone alignment of lines by shared identifiers and
 * literals finds the cell line a compiled line came from.
 */
import type { CellDiagnostic, ErrorOutput } from './protocol';

const TOKEN = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`|[A-Za-z_$][\w$]*|\d+(?:\.\d+)?/g;
/** Tokens the compiler adds or that carry no information about which line it is. */
const NOISE = new Set([
  'exports',
  'void',
  'Object',
  'defineProperty',
  '__esModule',
  'value',
  'true',
  'tsLastExpr',
  'let',
  'const',
  'var',
  'function',
  'return',
  'await',
  'async',
]);

function tokens(line: string): Set<string> {
  const out = new Set<string>();
  for (const m of line.matchAll(TOKEN)) {
    let t = m[0];
    if (NOISE.has(t)) continue;
    if (t[0] === "'" || t[0] === '`') t = '"' + t.slice(1, -1) + '"';
    out.add(t);
  }
  return out;
}

function similarity(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared / Math.max(a.size, b.size);
}

/**
 * The 1-based cell line that 1-based line `compiledLine` of `compiled` came from, or undefined when no
 * cell line shares anything with it (e.g. the frame is in code from an earlier cell).
 */
export function mapCompiledLine(cell: string, compiled: string, compiledLine: number): number | undefined {
  const cl = cell.split('\n').map(tokens);
  const ol = compiled.split('\n').map(tokens);
  const n = ol.length;
  const m = cl.length;
  if (compiledLine < 1 || compiledLine > n || m === 0) return undefined;
  // dp[i][j]: best total similarity assigning compiled lines < i to cell lines ≤ j, monotonically.
  const dp: Float64Array[] = [];
  const from: Uint8Array[] = [];
  for (let i = 0; i <= n; i++) {
    dp.push(new Float64Array(m));
    from.push(new Uint8Array(m));
  }
  for (let i = 1; i <= n; i++) {
    for (let j = 0; j < m; j++) {
      const stay = dp[i - 1]![j]! + similarity(ol[i - 1]!, cl[j]!);
      const advance = j > 0 ? dp[i]![j - 1]! : -1;
      if (stay >= advance) {
        dp[i]![j] = stay;
        from[i]![j] = 0;
      } else {
        dp[i]![j] = advance;
        from[i]![j] = 1;
      }
    }
  }
  // Backtrack to find the cell line compiled line `compiledLine` was assigned to.
  let i = n;
  let j = m - 1;
  while (i > 0) {
    if (from[i]![j] === 1) {
      j--;
      continue;
    }
    if (i === compiledLine) break;
    i--;
  }
  if (similarity(ol[compiledLine - 1]!, cl[j]!) === 0) return undefined;
  return j + 1;
}

/** Where the first frame of `stack` in cell code (`evalmachine.<anonymous>:L:C`) points, compiled lines. */
export function firstCellFrame(stack: string): { line: number; column: number } | undefined {
  const m = /evalmachine\.<anonymous>:(\d+)(?::(\d+))?/.exec(stack);
  if (!m) return undefined;
  return { line: Number(m[1]), column: m[2] ? Number(m[2]) : 1 };
}

function sourceLine(cell: string, line: number): string {
  return cell.split('\n')[line - 1] ?? '';
}

function caretBlock(cell: string, line: number, column?: number): string[] {
  const src = sourceLine(cell, line);
  const gutter = `  ${line} | `;
  const out = [gutter + src];
  if (column !== undefined && column >= 1) out.push(' '.repeat(gutter.length + column - 1) + '^');
  return out;
}

/** Stack frames worth showing: not the executor's or the kernel's own plumbing. */
function userFrames(stack: string): string[] {
  return stack
    .split('\n')
    .filter((l) => /^\s+at /.test(l))
    .filter((l) => !/node:vm|tslab[\\/]dist[\\/]executor|kernel[\\/]worker\.|node:internal/.test(l))
    .map((l) => l.replace(/evalmachine\.<anonymous>:\d+(:\d+)?/g, 'cell'));
}

/** An error output for a value thrown by cell code (or a rejection it awaited). */
export function runtimeError(err: unknown, cell: string, compiled: string | undefined): ErrorOutput {
  const isErr = err instanceof Error || (typeof err === 'object' && err !== null && 'stack' in err);
  const e = err as Error;
  const ename = isErr ? e.name || 'Error' : 'Thrown';
  const evalue = isErr ? String(e.message) : describe(err);
  const stack = isErr && typeof e.stack === 'string' ? e.stack : '';
  const out: ErrorOutput = { type: 'error', ename, evalue, traceback: [`${ename}: ${evalue}`] };
  const frame = firstCellFrame(stack);
  if (frame && compiled !== undefined) {
    const line = mapCompiledLine(cell, compiled, frame.line);
    if (line !== undefined) {
      out.cellLine = line;
      out.traceback.push(`at cell line ${line}:`, ...caretBlock(cell, line));
    } else {
      out.traceback.push('(raised in code defined by an earlier cell)');
    }
  }
  const frames = userFrames(stack);
  if (frames.length > 0) out.traceback.push('Stack:', ...frames);
  return out;
}

/** An error output for tslab's compile diagnostics (positions already relative to the cell). */
export function compileError(diags: CellDiagnostic[], cell: string): ErrorOutput {
  const withSource = diags.map((d) => ({ ...d, source: sourceLine(cell, d.line) }));
  const first = withSource[0];
  const evalue = withSource.map((d) => `line ${d.line}: ${d.message}`).join('\n');
  const traceback: string[] = [];
  for (const d of withSource) {
    traceback.push(`CompileError at cell line ${d.line}, column ${d.column}: ${d.message}`, ...caretBlock(cell, d.line, d.column));
  }
  return {
    type: 'error',
    ename: 'CompileError',
    evalue,
    traceback,
    ...(first ? { cellLine: first.line, cellColumn: first.column } : {}),
    diagnostics: withSource,
  };
}

function describe(v: unknown): string {
  try {
    return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  } catch {
    return String(v);
  }
}
