/**
 * Run directories: ids derived from the config and its inputs, creation, reuse and resumption.
 * Same config + same input contents → same id, so a re-run notebook cell finds the finished run
 * (or resumes an interrupted one) instead of training again.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import { LOCK_FILE, LOG_FILE, LogLine, RUN_FILE, RunInfo, readRunInfo } from './layout';
import { writeFileAtomic, writeJsonAtomic } from '../util/atomic';
import { acquireLock, Lock } from '../util/lock';

/** JSON with object keys sorted, so equal configs hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** `<slug>-<12 hex>`: a readable prefix from the name, a hash of config + input digests. */
export function runId(name: string | undefined, config: unknown, inputs: Record<string, string>): string {
  const hash = crypto.createHash('sha256').update(canonicalJson({ config, inputs })).digest('hex').slice(0, 12);
  const slug = (name ?? 'run')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `${slug || 'run'}-${hash}`;
}

export class Run {
  readonly dir: string;
  info: RunInfo;
  private readonly lock: Lock;

  private constructor(dir: string, info: RunInfo, lock: Lock) {
    this.dir = dir;
    this.info = info;
    this.lock = lock;
  }

  /**
   * Opens `runsRoot/<id>`: existing (to reuse or resume) or new; `force` starts it afresh. The run is
   * locked (runs/<id>/run.lock) until `release()` or exit: a second process opening it fails at once,
   * before it can train into, truncate or delete the run.
   */
  static open(runsRoot: string, id: string, init: Omit<RunInfo, 'id' | 'status' | 'created' | 'updated'>, force = false): Run {
    const dir = path.join(runsRoot, id);
    fs.mkdirSync(dir, { recursive: true });
    const lock = acquireLock(path.join(dir, LOCK_FILE), { what: `run ${id} (${dir})` });
    try {
      if (force) for (const name of fs.readdirSync(dir)) if (name !== LOCK_FILE) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
      if (fs.existsSync(path.join(dir, RUN_FILE))) return new Run(dir, readRunInfo(dir), lock);
      const now = new Date().toISOString();
      const run = new Run(dir, { id, status: 'running', created: now, updated: now, ...init }, lock);
      run.save();
      return run;
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  /** Lets other processes open the run. */
  release(): void {
    this.lock.release();
  }

  get done(): boolean {
    return this.info.status === 'done';
  }

  update(patch: Partial<RunInfo>): void {
    this.info = { ...this.info, ...patch, updated: new Date().toISOString() };
    this.save();
  }

  save(): void {
    writeJsonAtomic(path.join(this.dir, RUN_FILE), this.info, { readable: true });
  }

  /** Appends a log line (one write call, so a kill leaves at most one torn last line). */
  log(line: Omit<LogLine, 'time'>): LogLine {
    const full: LogLine = { ...line, time: new Date().toISOString() };
    fs.appendFileSync(path.join(this.dir, LOG_FILE), JSON.stringify(full) + '\n');
    return full;
  }

  /** Drops log lines after `step` (a resumed run repeats the steps after its checkpoint). */
  truncateLog(step: number): void {
    const file = path.join(this.dir, LOG_FILE);
    if (!fs.existsSync(file)) return;
    const kept = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => {
        if (!l.trim()) return false;
        try {
          return (JSON.parse(l) as LogLine).step <= step;
        } catch {
          return false;
        }
      });
    writeJsonLines(file, kept);
  }
}

function writeJsonLines(file: string, lines: string[]): void {
  writeFileAtomic(file, lines.map((l) => l + '\n').join(''));
}

