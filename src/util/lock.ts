/**
 * Exclusive locks between processes: a lock file created with O_EXCL holding who holds it (pid,
 * hostname, start time). A lock whose holder died on this host (its pid is gone) is stale and taken
 * over; a live one is an error naming the holder and how to recover. Held locks are released on exit,
 * including SIGINT and SIGTERM.
 */
import * as fs from 'fs';
import * as os from 'os';

import { onProcessEnd, removeProcessEndCleanup } from './exit-cleanup';

export interface LockHolder {
  pid: number;
  hostname: string;
  started: string;
  /** What the lock guards, for messages ("run synthetic-1a2b…"). */
  what: string;
  /** Tells this holder's file apart from a later one with the same pid. */
  token: string;
}

/** Another live process holds the lock. */
export class LockHeldError extends Error {
  constructor(
    readonly file: string,
    readonly holder: LockHolder | undefined,
    what: string,
  ) {
    const who = holder ? `process ${holder.pid} on ${holder.hostname} (since ${holder.started})` : 'another process (lock file still being written)';
    const recover = holder
      ? `wait for it to finish, or stop it (kill ${holder.pid}); if it is gone, delete ${file}`
      : `if no other cckit process is running, delete ${file}`;
    super(`${what} is locked by ${who}: ${recover}`);
    this.name = 'LockHeldError';
  }
}

export interface Lock {
  readonly file: string;
  /** Deletes the lock file (if it is still ours); safe to call twice. */
  release(): void;
}

export interface LockOptions {
  /** Names the guarded thing in messages, e.g. "run synthetic-1a2b3c4d5e6f". */
  what: string;
  /** Keep retrying a live lock for this long (ms) before failing; default 0: fail at once. */
  waitMs?: number;
  /** Lines about a stale lock taken over; default stderr. */
  warn?: (line: string) => void;
}

const held = new Map<string, string>(); // lock file → our token

function releaseAll(): void {
  for (const [file, token] of held) removeIfOurs(file, token);
  held.clear();
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as LockHolder;
    return typeof value.pid === 'number' && typeof value.hostname === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function removeIfOurs(file: string, token: string): void {
  if (readHolder(file)?.token === token) fs.rmSync(file, { force: true });
}

/** When this process started: a lock with our pid from before then is an earlier process's. */
const processStarted = Date.now() - process.uptime() * 1000;

/** Whether the holder is certainly gone: same host and its pid no longer exists (or was reused by us). */
function isStale(holder: LockHolder): boolean {
  if (holder.hostname !== os.hostname()) return false;
  // Our own pid: this process (maybe another worker thread) holds it, unless it predates us.
  if (holder.pid === process.pid) return Date.parse(holder.started) < processStarted - 1000;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Takes a stale lock out of the way: renamed aside first (only one process wins the rename), then
 * checked to be the stale file we read; a live lock taken by mistake is linked back.
 */
function removeStale(file: string, staleToken: string | undefined): boolean {
  const aside = `${file}.stale-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return false;
  }
  if (readHolder(aside)?.token === staleToken) {
    fs.rmSync(aside, { force: true });
    return true;
  }
  try {
    fs.linkSync(aside, file);
  } catch {
    // someone created a new lock meanwhile; theirs stands
  }
  fs.rmSync(aside, { force: true });
  return false;
}

/** Acquires the lock file `file` (its folder must exist), or throws LockHeldError. */
export function acquireLock(file: string, options: LockOptions): Lock {
  const warn = options.warn ?? ((line: string) => process.stderr.write(line + '\n'));
  const deadline = Date.now() + (options.waitMs ?? 0);
  const holder: LockHolder = {
    pid: process.pid,
    hostname: os.hostname(),
    started: new Date().toISOString(),
    what: options.what,
    token: `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`,
  };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx');
      try {
        fs.writeSync(fd, JSON.stringify(holder) + '\n');
      } finally {
        fs.closeSync(fd);
      }
      onProcessEnd(releaseAll);
      held.set(file, holder.token);
      return {
        file,
        release: () => {
          if (held.get(file) !== holder.token) return;
          held.delete(file);
          removeIfOurs(file, holder.token);
          if (held.size === 0) removeProcessEndCleanup(releaseAll);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const current = readHolder(file);
    if (current && isStale(current)) {
      if (removeStale(file, current.token)) warn(`cckit: ${options.what}: took over a stale lock of process ${current.pid} (no longer running)`);
      continue;
    }
    if (!current) {
      // Empty or torn: a holder between creating and writing it (wait), or one killed right then (old: remove).
      const age = ageMs(file);
      if (age === undefined) continue;
      if (age > UNREADABLE_STALE_MS) {
        removeStale(file, undefined);
        continue;
      }
      if (Date.now() < deadline + UNREADABLE_STALE_MS) {
        sleepSync(20);
        continue;
      }
    }
    if (Date.now() >= deadline) throw new LockHeldError(file, current, options.what);
    sleepSync(Math.min(50, 5 * (attempt + 1)));
  }
}

const UNREADABLE_STALE_MS = 2000;

function ageMs(file: string): number | undefined {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Runs `fn` holding the lock, releasing it after (also when `fn` throws). */
export function withLock<T>(file: string, options: LockOptions, fn: () => T): T {
  const lock = acquireLock(file, options);
  try {
    return fn();
  } finally {
    lock.release();
  }
}
