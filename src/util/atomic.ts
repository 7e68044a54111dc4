/**
 * Writes that matter (checkpoints, shards, pools, run records) go through a temporary sibling, an
 * fsync and a rename, so a reader sees the old file or the whole new one, never half of one.
 */
import * as fs from 'fs';
import * as path from 'path';

/** A temporary name beside `file`, so the final rename stays on one file system. */
export function temporaryPath(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
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
    fs.renameSync(temporary, file);
  } catch (err) {
    fs.rmSync(temporary, { force: true });
    throw err;
  }
}

/** JSON atomically: compact by default (data files), or indented one space with a final newline (records people read). */
export function writeJsonAtomic(file: string, value: unknown, options: { readable?: boolean } = {}): void {
  writeFileAtomic(file, options.readable ? JSON.stringify(value, null, 1) + '\n' : JSON.stringify(value));
}

/** Renames a finished temporary file into place (the writer wrote and synced it itself). */
export function commitTemporary(temporary: string, file: string): void {
  fs.renameSync(temporary, file);
}
