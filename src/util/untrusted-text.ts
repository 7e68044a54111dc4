/**
 * Text that comes from outside (sample names, URLs, captions, option values) before it reaches a terminal,
 * a log line or a generated script. docs/trust.md says which inputs cckit does not trust.
 */

// eslint-disable-next-line no-control-regex -- C0 controls, DEL and C1 controls are what we look for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex -- as above
const CONTROL_GLOBAL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Whether the text holds a control character (newline, tab, escape, NUL, DEL, C1). */
export function hasControlCharacters(text: string): boolean {
  return CONTROL.test(text);
}

/**
 * The text with every control character written as a visible escape (`\n`, `\t`, `\x1b`, `\u0085`), so
 * quoting input in a message can neither move the cursor, colour the terminal nor forge a new line.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL_GLOBAL, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Input quoted in a message: control characters escaped, and at most `max` characters (the rest elided). */
export function quoteInput(text: string, max = 200): string {
  const escaped = escapeControlCharacters(text);
  return escaped.length <= max ? escaped : `${escaped.slice(0, max)}… (${escaped.length} characters)`;
}

const CONTROL_NAMES: Readonly<Record<string, string>> = {
  '\n': 'newline',
  '\r': 'carriage return',
  '\t': 'tab',
  '\0': 'NUL',
  '\x1b': 'escape',
  '\x7f': 'DEL',
};

/** The first control character of the text, by name ("newline", "U+0085"), and its position; undefined when none. */
export function firstControlCharacter(text: string): { name: string; position: number } | undefined {
  const characters = [...text];
  const position = characters.findIndex((c) => CONTROL.test(c));
  if (position < 0) return undefined;
  const c = characters[position]!;
  return { name: CONTROL_NAMES[c] ?? `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`, position };
}
