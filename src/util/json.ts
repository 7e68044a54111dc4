/** Reading JSON inputs with errors that name the file and the position. */
import * as fs from 'fs';

/** Bad input: the message starts with the file, then where in it and what is wrong. */
export class InputError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'InputError';
  }
}

/** Parses JSON, turning a syntax error's offset into line and column. */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(file, `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    const offset = /position (\d+)/.exec(message);
    if (offset) {
      const before = text.slice(0, Number(offset[1]));
      const line = before.split('\n').length;
      const column = Number(offset[1]) - before.lastIndexOf('\n');
      throw new InputError(file, `malformed JSON at line ${line}, column ${column}: ${message}`);
    }
    throw new InputError(file, `malformed JSON: ${message}`);
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
