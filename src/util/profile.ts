/**
 * Where a run's time goes: spans of work (a world build, a training run, a captioning pass …) and, once a second, how
 * many cores the process and the machine keep busy. Off unless `CCKIT_PROFILE` names a file; then every thread
 * (worker threads inherit the environment) appends one JSON line per finished span or sample to it, so spans of
 * rows trained in parallel land in one place. `cckit table … --profile FILE` sets it and summarises the file
 * (src/report/profile.ts); nothing here changes what a run computes.
 */
import * as fs from 'fs';
import { threadId } from 'worker_threads';

export const PROFILE_ENV = 'CCKIT_PROFILE';

/** The stages a profile tells apart (a span of one kind may hold spans of another: training holds its validations). */
export const SPAN_KINDS = ['world', 'filter', 'backbone', 'features', 'train', 'validate', 'select', 'caption', 'retrieval', 'report'] as const;
export type SpanKind = (typeof SPAN_KINDS)[number];

/** One finished piece of work. Times in ms; `cpu` is this thread's CPU time over the span (Linux), else the process's. */
export interface ProfileSpan {
  kind: SpanKind;
  name: string;
  /** Worker thread id (0: the main thread). */
  thread: number;
  /** Wall-clock start, ms since the epoch. */
  start: number;
  wall: number;
  cpu: number;
  /** `thread`: `cpu` is the thread's own; `process`: every thread's (no per-thread clock here). */
  cpuScope: 'thread' | 'process';
  /** What the span did, for rates against limits: steps, images, FLOPs … */
  work?: Record<string, number>;
}

/** Once a second: the process's CPU time (all threads) and the machine's busy time since the last sample, in cores. */
export interface ProfileSample {
  sample: { time: number; processCores: number; machineCores: number | undefined };
}

export const profileFile = (): string | undefined => process.env[PROFILE_ENV] || undefined;

const TICK_MS = 10; // Linux's USER_HZ is 100 on every architecture Node runs on

/** This thread's CPU time in ms from /proc/thread-self/stat (utime + stime), or undefined off Linux. */
function threadCpuMs(): number | undefined {
  try {
    const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
    // the command name (field 2) may hold spaces: count fields after its closing parenthesis (field 3 onwards)
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

const processCpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

function append(file: string, record: ProfileSpan | ProfileSample): void {
  try {
    // one short line per write (O_APPEND): lines from several threads never interleave
    fs.appendFileSync(file, JSON.stringify(record) + '\n');
  } catch {
    // a profile that cannot be written must not stop the work it measures
  }
}

/**
 * Runs `work` and, when profiling, records it as a span of `kind`; `measure` turns its result into work counts
 * (steps, images, FLOPs). A span that throws is recorded too, with `failed: 1`.
 */
export async function profiled<T>(kind: SpanKind, name: string, work: () => Promise<T>, measure?: (result: T) => Record<string, number>): Promise<T> {
  const file = profileFile();
  if (!file) return work();
  const start = Date.now();
  const threadStart = threadCpuMs();
  const processStart = processCpuMs();
  const record = (counts: Record<string, number> | undefined) => {
    const threadEnd = threadCpuMs();
    const byThread = threadStart !== undefined && threadEnd !== undefined;
    append(file, {
      kind,
      name,
      thread: threadId,
      start,
      wall: Date.now() - start,
      cpu: byThread ? threadEnd - threadStart : processCpuMs() - processStart,
      cpuScope: byThread ? 'thread' : 'process',
      ...(counts && Object.keys(counts).length > 0 ? { work: counts } : {}),
    });
  };
  let result: T;
  try {
    result = await work();
  } catch (err) {
    record({ failed: 1 });
    throw err;
  }
  record(measure?.(result));
  return result;
}

/** Busy and total jiffies of the whole machine (/proc/stat's first line), or undefined off Linux. */
function machineTicks(): { busy: number; total: number } | undefined {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    const total = values.reduce((a, b) => a + b, 0);
    const idle = (values[3] ?? 0) + (values[4] ?? 0); // idle + iowait
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

/**
 * Samples, once every `everyMs`, how many cores this process and the whole machine kept busy; stops with the
 * returned function (which takes the last sample). A no-op unless profiling.
 */
export function startCoreSampler(everyMs = 1000): () => void {
  const file = profileFile();
  if (!file) return () => {};
  let lastTime = Date.now();
  let lastCpu = processCpuMs();
  let lastMachine = machineTicks();
  const sample = () => {
    const time = Date.now();
    const cpu = processCpuMs();
    const machine = machineTicks();
    const seconds = (time - lastTime) / 1000;
    if (seconds <= 0) return;
    // jiffies are counted per core: busy ÷ elapsed wall jiffies is cores in use
    const machineCores =
      machine && lastMachine && machine.total > lastMachine.total ? ((machine.busy - lastMachine.busy) * TICK_MS) / 1000 / seconds : undefined;
    append(file, { sample: { time, processCores: (cpu - lastCpu) / 1000 / seconds, machineCores } });
    lastTime = time;
    lastCpu = cpu;
    lastMachine = machine;
  };
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    sample();
  };
}
