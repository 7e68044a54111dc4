/**
 * Writes that matter (checkpoints, shards, pools, run records) go through a temporary sibling, an
 * fsync and a rename, so a reader sees the old file or the whole new one, never half of one.
 *
 * Every temporary name handed out is remembered until it is committed or released; when SIGINT or
 * SIGTERM would end the process (no one else listens for it), or the process exits, the ones
 * still live are removed, so a killed run leaves no `.kept.tsv.*.tmp` behind.
 */
import * as fs from 'fs';
import * as path from 'path';
import { onProcessEnd, removeProcessEndCleanup } from './exit-cleanup';

const live = new Set<string>();

function removeLive(): void {
  for (const file of live) fs.rmSync(file, { force: true, recursive: true });
  live.clear();
}

/** A temporary name beside `file`, so the final rename stays on one file system; removed if the process is killed first. */
export function temporaryPath(file: string): string {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  live.add(temporary);
  onProcessEnd(removeLive);
  return temporary;
}

/**
 * Removes what killed writers of `file` left beside it (`temporaryPath`'s `.NAME.PID.RANDOM.tmp` files or folders).
 * Only for a caller that holds the one lock on `file`'s writing: then no live writer has a temporary of it. Returns
 * the names removed.
 */
export function removeLeftTemporaries(file: string): string[] {
  const dir = path.dirname(file);
  if (!fs.existsSync(dir)) return [];
  const prefix = `.${path.basename(file)}.`;
  const removed = fs
    .readdirSync(dir)
    .filter((name) => name.startsWith(prefix) && /^\d+\.[a-z0-9]+\.tmp$/.test(name.slice(prefix.length)) && !live.has(path.join(dir, name)));
  for (const name of removed) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  return removed;
}

/**
 * Removes the temporaries of `file` whose writer process is gone (`.NAME.PID.RANDOM.tmp` with no live PID on this
 * host): what a run killed with -9 left. Safe without a lock: a live writer's temporaries are kept. Returns the names
 * removed.
 */
export function removeDeadTemporaries(file: string): string[] {
  const dir = path.dirname(file);
  if (!fs.existsSync(dir)) return [];
  const prefix = `.${path.basename(file)}.`;
  const removed: string[] = [];
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)\.[a-z0-9]+\.tmp$/.exec(name.slice(prefix.length));
    if (!m || live.has(path.join(dir, name)) || processAlive(Number(m[1]))) continue;
    fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: a live process of another user
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Forgets a temporary name once it was renamed into place or removed by its writer. */
export function releaseTemporary(temporary: string): void {
  live.delete(temporary);
  // no handlers while nothing is live: a process without temporaries keeps Node's own signal behaviour
  if (live.size === 0) removeProcessEndCleanup(removeLive);
}

/** Removes a temporary file (or folder) and forgets it. */
export function discardTemporary(temporary: string): void {
  fs.rmSync(temporary, { force: true, recursive: true });
  releaseTemporary(temporary);
}

/** Temporary names handed out and not yet committed or released (for tests). */
export function liveTemporaries(): string[] {
  return [...live];
}

/** Writes `data` to `file` and fsyncs it (no rename: for files inside a temporary directory). */
export function writeSynced(file: string, data: string | Uint8Array, flag = 'w'): void {
  const fd = fs.openSync(file, flag);
  try {
    fs.writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `file` atomically, creating its folder; a failed write leaves the old file and no temporary. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = temporaryPath(file);
  try {
    writeSynced(temporary, data, 'wx');
    commitTemporary(temporary, file);
  } catch (err) {
    discardTemporary(temporary);
    throw err;
  }
}

/** Writes `file` atomically only when its content changes: files whose contents a run id hashes keep their bytes and times. */
export function writeFileIfChanged(file: string, text: string): void {
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text) return;
  writeFileAtomic(file, text);
}

/** JSON atomically: compact by default (data files), or indented one space with a final newline (records people read). */
export function writeJsonAtomic(file: string, value: unknown, options: { readable?: boolean } = {}): void {
  writeFileAtomic(file, options.readable ? JSON.stringify(value, null, 1) + '\n' : JSON.stringify(value));
}

/** Renames a finished temporary file into place (the writer wrote and synced it itself). */
export function commitTemporary(temporary: string, file: string): void {
  fs.renameSync(temporary, file);
  releaseTemporary(temporary);
}
