/**
 * A fast approximation of PTB tokenization, made for statistics over 12M+ captions (the Table 1
 * pass of src/data/stats.ts; its speed against ptbTokenize: `npm run bench:stats`, figures in the
 * README). Rules, on the lower-cased caption:
 *   * whitespace separates tokens; "<PERSON>" (CC12M's name placeholder, any case) is one
 *     token, kept upper-case as the PTB tokenizer here does;
 *   * a word is a run of letters/digits (any non-ASCII character that is not whitespace or
 *     listed punctuation counts as a letter), joined across single inner "-" "." "/"
 *     ("well-known", "3.5", "24/7") and across "," or ":" between digits ("1,000");
 *     letter-dot abbreviations keep a final period ("u.s.");
 *   * clitics split as in PTB: "don't" → do n't, "dog's" → dog 's ('s 'm 'd 'll 're 've);
 *     another apostrophe inside a word is kept ("o'neill");
 *   * other punctuation is one token per character, except runs of "." or "-" and runs of
 *     "!"/"?" which are one token ("...", "--", "?!"); brackets, quotes, dashes and the
 *     ellipsis are written as PTB writes them (-lrb-, ``, '', --, ...), a straight double
 *     quote being `` after a space or bracket and '' otherwise.
 * It differs from PTB mostly on URLs, e-mails, "&" ("a&b"), and abbreviations with a final
 * period other than letter-dot ones ("mr.", "etc."); on the benchmark's synthetic web-like
 * captions token and type counts agree within 0.001% (bench/stats.ts --compare);
 * real captions with URLs, e-mails or emoji will differ more.
 */
const enum C {
  Space = 0,
  Word = 1,
  Punct = 2,
}

/** Character classes of the first 0x3100 code units; everything above is a word character. */
const CLASS = new Uint8Array(0x3100).fill(C.Word);
for (let c = 0; c <= 0x20; c++) CLASS[c] = C.Space;
for (const c of [0x7f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0x200b]) CLASS[c] = C.Space;
for (let c = 0x2000; c <= 0x200a; c++) CLASS[c] = C.Space;
for (let c = 0x21; c <= 0x7e; c++) {
  const isAlnum = (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
  CLASS[c] = isAlnum ? C.Word : C.Punct;
}
for (const c of [0xa1, 0xa6, 0xa7, 0xab, 0xb6, 0xb7, 0xbb, 0xbf, 0xd7, 0xf7]) CLASS[c] = C.Punct;
for (let c = 0x2010; c <= 0x2027; c++) CLASS[c] = C.Punct; // dashes, curly quotes, bullets, ellipsis
for (let c = 0x2030; c <= 0x205e; c++) CLASS[c] = C.Punct;

function classOf(code: number): number {
  return code < 0x3100 ? CLASS[code] : code === 0xfeff ? C.Space : C.Word;
}

const QUOTE = 0x27;
const CURLY_QUOTE = 0x2019;

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Length of a clitic starting at the apostrophe at `i` ("'s", "'ll", …), or 0. */
function cliticLength(text: string, i: number): number {
  const a = text.charCodeAt(i + 1);
  const b = text.charCodeAt(i + 2);
  // s m d
  if (a === 0x73 || a === 0x6d || a === 0x64) return classOf(b) === C.Word && !Number.isNaN(b) ? 0 : 2;
  // ll re ve
  if ((a === 0x6c && b === 0x6c) || (a === 0x72 && b === 0x65) || (a === 0x76 && b === 0x65)) {
    const c = text.charCodeAt(i + 3);
    return !Number.isNaN(c) && classOf(c) === C.Word ? 0 : 3;
  }
  return 0;
}

/** Single punctuation characters PTB writes differently (brackets, typographic quotes, dashes). */
const PTB_PUNCTUATION = new Map<number, string>([
  [0x28, '-lrb-'],
  [0x29, '-rrb-'],
  [0x5b, '-lsb-'],
  [0x5d, '-rsb-'],
  [0x7b, '-lcb-'],
  [0x7d, '-rcb-'],
  [0x201c, '``'],
  [0x201d, "''"],
  [0x2018, '`'],
  [0x2019, "'"],
  [0x2014, '--'],
  [0x2013, '--'],
  [0x2026, '...'],
]);

/** Whether text[start, end) is single letters joined by dots ("u.s", "e.g"). */
function isLetterDotAbbreviation(text: string, start: number, end: number): boolean {
  if (end - start < 3) return false;
  for (let k = start; k < end; k++) {
    const isDot = text.charCodeAt(k) === 0x2e;
    if (isDot !== ((k - start) % 2 === 1)) return false;
  }
  return true;
}

/** Receives tokens from the scanner: a range of the lower-cased caption, or a fixed string. */
export interface TokenSink {
  range(text: string, start: number, end: number): void;
  literal(token: string): void;
}

function clitic(text: string, i: number, length: number): string {
  const a = text.charCodeAt(i + 1);
  if (length === 2) return a === 0x73 ? "'s" : a === 0x6d ? "'m" : "'d";
  return a === 0x6c ? "'ll" : a === 0x72 ? "'re" : "'ve";
}

/** Scans a caption by the fast rules (see the file comment), handing each token to `sink`. */
export function scanTokens(caption: string, sink: TokenSink): void {
  const text = caption.toLowerCase();
  const n = text.length;
  let i = 0;
  while (i < n) {
    const code = text.charCodeAt(i);
    const cls = classOf(code);
    if (cls === C.Space) {
      i++;
      continue;
    }
    if (cls === C.Word) {
      const start = i;
      i++;
      for (;;) {
        while (i < n && classOf(text.charCodeAt(i)) === C.Word) i++;
        if (i + 1 >= n) break;
        const joiner = text.charCodeAt(i);
        const next = text.charCodeAt(i + 1);
        if (classOf(next) !== C.Word) break;
        if (joiner === 0x2d || joiner === 0x2e || joiner === 0x2f) {
          i += 2;
          continue;
        }
        if ((joiner === 0x2c || joiner === 0x3a) && isDigit(text.charCodeAt(i - 1)) && isDigit(next)) {
          i += 2;
          continue;
        }
        if (joiner === QUOTE || joiner === CURLY_QUOTE) {
          // n't: split "do|n't"; other clitics end the word; otherwise the apostrophe joins.
          if (next === 0x74 && text.charCodeAt(i - 1) === 0x6e && i - 1 > start && (i + 2 >= n || classOf(text.charCodeAt(i + 2)) !== C.Word)) break;
          if (cliticLength(text, i) > 0) break;
          i += 2;
          continue;
        }
        break;
      }
      if (i < n) {
        const after = text.charCodeAt(i);
        if (after === QUOTE || after === CURLY_QUOTE) {
          // A word followed by n't gives back its final "n"; 's 'll … become their own token.
          if (
            text.charCodeAt(i + 1) === 0x74 &&
            text.charCodeAt(i - 1) === 0x6e &&
            i - 1 > start &&
            (i + 2 >= n || classOf(text.charCodeAt(i + 2)) !== C.Word)
          ) {
            sink.range(text, start, i - 1);
            sink.literal("n't");
            i += 2;
            continue;
          }
          sink.range(text, start, i);
          const length = cliticLength(text, i);
          if (length > 0) {
            sink.literal(clitic(text, i, length));
            i += length;
          }
          continue;
        }
        // Letter-dot abbreviations keep their final period ("u.s." "e.g."), as PTB does.
        if (after === 0x2e && isLetterDotAbbreviation(text, start, i)) i++;
      }
      sink.range(text, start, i);
      continue;
    }
    // punctuation
    if (code === 0x3c && text.startsWith('<person>', i)) {
      sink.literal('<PERSON>');
      i += 8;
      continue;
    }
    if ((code === QUOTE || code === CURLY_QUOTE) && i > 0 && classOf(text.charCodeAt(i - 1)) !== C.Space) {
      // a clitic after a non-word token ("<PERSON>'s")
      const length = cliticLength(text, i);
      if (length > 0) {
        sink.literal(clitic(text, i, length));
        i += length;
        continue;
      }
    }
    const start = i;
    i++;
    if (code === 0x2e || code === 0x2d) {
      while (i < n && text.charCodeAt(i) === code) i++;
    } else if (code === 0x21 || code === 0x3f) {
      while (i < n && (text.charCodeAt(i) === 0x21 || text.charCodeAt(i) === 0x3f)) i++;
    } else if (code === 0x22) {
      const before = start === 0 ? 0x20 : text.charCodeAt(start - 1);
      sink.literal(classOf(before) === C.Space || before === 0x28 || before === 0x5b ? '``' : "''");
      continue;
    } else {
      const ptb = PTB_PUNCTUATION.get(code);
      if (ptb !== undefined) {
        sink.literal(ptb);
        continue;
      }
    }
    sink.range(text, start, i);
  }
}

class ArraySink implements TokenSink {
  out: string[] = [];
  range(text: string, start: number, end: number): void {
    this.out.push(text.slice(start, end));
  }
  literal(token: string): void {
    this.out.push(token);
  }
}

/** Lower-cased tokens of a caption by the fast rules (see the file comment). */
export function fastTokenize(caption: string): string[] {
  const sink = new ArraySink();
  scanTokens(caption, sink);
  return sink.out;
}
