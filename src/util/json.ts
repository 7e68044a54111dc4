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

/**
 * A JSON number kept as its source text because a double cannot hold it: an integer beyond 2^53
 * (image ids that would otherwise collide) or a literal that overflows to ±Infinity (1e400).
 */
export class JsonNumberText {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }

  toJSON(): string {
    return this.text;
  }
}

/** Whether a number literal loses its identity as a double. */
function isInexact(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isFinite(value)) return true;
  return /^-?\d+$/.test(literal) && !Number.isSafeInteger(value);
}

// A string (whole) or a number literal; strings are matched so that digits inside them are skipped.
const TOKENS = /"(?:[^"\\]+|\\.)*"|-?\d[\d.eE+-]*/g;

/** Fast check before the slow parser: only files with an inexact number need it. */
function hasInexactNumber(text: string): boolean {
  TOKENS.lastIndex = 0;
  for (let m = TOKENS.exec(text); m; m = TOKENS.exec(text)) {
    const token = m[0];
    if (token.charCodeAt(0) !== 34 && (token.length > 15 || /[eE]/.test(token)) && isInexact(token)) return true;
  }
  return false;
}

const WHITESPACE = /[ \t\n\r]*/y;
// eslint-disable-next-line no-control-regex -- JSON strings may not hold raw control characters
const STRING = /"(?:[^"\\\u0000-\u001f]+|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** JSON.parse, except that inexact numbers become JsonNumberText. Errors say "at position N" like V8's. */
function parseKeepingNumbers(text: string): unknown {
  let at = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} in JSON at position ${at}`);
  };
  const skip = (): void => {
    WHITESPACE.lastIndex = at;
    WHITESPACE.exec(text);
    at = WHITESPACE.lastIndex;
  };
  const match = (re: RegExp): string | undefined => {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return undefined;
    at = re.lastIndex;
    return m[0];
  };
  const value = (): unknown => {
    skip();
    const c = text[at];
    if (c === '{') {
      at++;
      const object: Record<string, unknown> = {};
      skip();
      if (text[at] === '}') return (at++, object);
      for (;;) {
        skip();
        const key = match(STRING);
        if (key === undefined) return fail('Expected property name');
        skip();
        if (text[at] !== ':') fail("Expected ':' after property name");
        at++;
        // defineProperty: a "__proto__" key is data, as in JSON.parse
        Object.defineProperty(object, JSON.parse(key) as string, { value: value(), enumerable: true, writable: true, configurable: true });
        skip();
        if (text[at] === ',') at++;
        else if (text[at] === '}') return (at++, object);
        else fail("Expected ',' or '}' after property value");
      }
    }
    if (c === '[') {
      at++;
      const array: unknown[] = [];
      skip();
      if (text[at] === ']') return (at++, array);
      for (;;) {
        array.push(value());
        skip();
        if (text[at] === ',') at++;
        else if (text[at] === ']') return (at++, array);
        else fail("Expected ',' or ']' after array element");
      }
    }
    if (c === '"') {
      const literal = match(STRING);
      return literal === undefined ? fail('Bad string') : JSON.parse(literal);
    }
    for (const [word, result] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, at)) return ((at += word.length), result);
    }
    const literal = match(NUMBER);
    if (literal === undefined) return fail(at >= text.length ? 'Unexpected end of JSON input' : `Unexpected token '${c}'`);
    return isInexact(literal) ? new JsonNumberText(literal) : Number(literal);
  };
  const result = value();
  skip();
  if (at < text.length) fail('Unexpected non-whitespace character after JSON');
  return result;
}

/**
 * Parses JSON text. `exactNumbers`: numbers a double cannot hold exactly come back as JsonNumberText
 * (files without one still go through the native JSON.parse).
 */
export function parseJson(text: string, options: { exactNumbers?: boolean } = {}): unknown {
  return options.exactNumbers && hasInexactNumber(text) ? parseKeepingNumbers(text) : JSON.parse(text);
}

/** Parses a JSON file, turning a syntax error's offset into line and column. */
export function readJsonFile(file: string, options: { exactNumbers?: boolean } = {}): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(file, `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return parseJson(text, options);
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
