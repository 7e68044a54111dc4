/**
 * Reading a file that must be a regular file: opened without blocking (a FIFO or a device opened to read would wait
 * for a writer forever), checked by its descriptor's own stat (no race between a check and the open), and refused
 * with "not a regular file" otherwise.
 */
import * as fs from 'fs';

/** A descriptor of `file` opened to read, when it is a regular file; throws otherwise (the caller closes it). */
export function openRegularFile(file: string): number {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    if (!fs.fstatSync(fd).isFile()) throw new Error(`${file}: not a regular file`);
    return fd;
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** The whole of `file`, when it is a regular file (`openRegularFile`). */
export function readRegularFile(file: string): Buffer {
  const fd = openRegularFile(file);
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
