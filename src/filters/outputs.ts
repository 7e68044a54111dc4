/**
 * A filter run's output folder as one unit: kept.tsv, rejects.jsonl, funnel.jsonl, audit.json and
 * vocabulary.json are each committed atomically, but one after another, so a run killed between two
 * commits would leave files of two runs side by side. Two rules make the folder one step:
 *
 * - a run removes the done-marker (summary.json) before it writes anything, so a folder being rewritten
 *   is never read as done;
 * - the done-marker, written last, lists every file of the run with its size and SHA-256, and a folder is
 *   done only when each file still matches (`filterOutputState`).
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { removeDeadTemporaries } from '../util/atomic';

/** The done-marker of a filter run (and of each of its shards). */
export const FILTER_DONE_MARKER = 'summary.json';

/** The files a filter run may write besides its done-marker. */
export const FILTER_OUTPUT_FILES = ['kept.tsv', 'rejects.jsonl', 'funnel.jsonl', 'audit.json', 'vocabulary.json', 'survivors.jsonl'] as const;

export interface OutputFileRecord {
  bytes: number;
  sha256: string;
}

/**
 * Starts a run in `out`: the folder exists and holds no done-marker until the run finishes, and the temporaries a
 * killed run left (`.kept.tsv.PID.….tmp` of a process that is gone) are removed.
 */
export function startFilterOutput(out: string): void {
  fs.mkdirSync(out, { recursive: true });
  fs.rmSync(path.join(out, FILTER_DONE_MARKER), { force: true });
  for (const name of [...FILTER_OUTPUT_FILES, FILTER_DONE_MARKER]) removeDeadTemporaries(path.join(out, name));
}

/**
 * Finishes the files of a run in `out`: removes the output files it did not write (an earlier run's, which
 * would otherwise pass for this one's) and returns the size and SHA-256 of those it wrote, for the
 * done-marker. vocabulary.json is the caller's (filterPool writes or removes it before the pipeline).
 */
export function finishFilterOutput(out: string, written: readonly string[]): Record<string, OutputFileRecord> {
  const files: Record<string, OutputFileRecord> = {};
  for (const name of FILTER_OUTPUT_FILES) {
    const file = path.join(out, name);
    if (written.includes(name) || name === 'vocabulary.json') {
      if (fs.existsSync(file)) files[name] = fileRecord(file);
    } else fs.rmSync(file, { force: true });
  }
  return files;
}

export type FilterOutputState = { done: true } | { done: false; reason: string };

/** Whether `out` holds one finished run: a done-marker whose listed files are all present and unchanged. */
export function filterOutputState(out: string): FilterOutputState {
  const marker = path.join(out, FILTER_DONE_MARKER);
  if (!fs.existsSync(marker)) return { done: false, reason: `no ${FILTER_DONE_MARKER}` };
  let files: unknown;
  try {
    files = (JSON.parse(fs.readFileSync(marker, 'utf8')) as { files?: unknown }).files;
  } catch (err) {
    return { done: false, reason: `${FILTER_DONE_MARKER} is not JSON (${(err as Error).message})` };
  }
  // a marker written before files were listed is taken as it was then: done
  if (files === undefined) return { done: true };
  if (typeof files !== 'object' || files === null) return { done: false, reason: `${FILTER_DONE_MARKER} lists no files` };
  for (const [name, expected] of Object.entries(files as Record<string, Partial<OutputFileRecord>>)) {
    if (!(FILTER_OUTPUT_FILES as readonly string[]).includes(name))
      return { done: false, reason: `${FILTER_DONE_MARKER} lists an unknown file ${JSON.stringify(name)}` };
    const file = path.join(out, name);
    if (!fs.existsSync(file)) return { done: false, reason: `${name} is missing` };
    const found = fileRecord(file);
    if (found.bytes !== expected.bytes || found.sha256 !== expected.sha256)
      return {
        done: false,
        reason: `${name} is not the file its run wrote (${found.bytes} bytes, ${FILTER_DONE_MARKER} says ${String(expected.bytes)}): another run rewrote it`,
      };
  }
  return { done: true };
}

function fileRecord(file: string): OutputFileRecord {
  const hash = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  const buffer = Buffer.alloc(1 << 20);
  let bytes = 0;
  try {
    for (let read; (read = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0; bytes += read) hash.update(buffer.subarray(0, read));
  } finally {
    fs.closeSync(fd);
  }
  return { bytes, sha256: hash.digest('hex') };
}
