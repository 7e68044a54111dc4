/**
 * Penn Treebank style tokenizer, as used by coco-caption.
 *
 * coco-caption runs a PTB tokenizer with lower-casing over every caption, one
 * caption per line, and then drops punctuation tokens. This module implements
 * the common PTB conventions from scratch as a small hand-written scanner:
 *
 *  - punctuation is split off words; `(` `)` `[` `]` `{` `}` become
 *    -lrb- -rrb- -lsb- -rsb- -lcb- -rcb- (lower-cased, so coco keeps them);
 *  - double quotes become `` (opening) and '' (closing), single quotes ` and ';
 *  - contractions split: "don't" -> "do n't", "I'm" -> "I 'm", 's 're 'll 've 'd;
 *    "cannot" -> "can not", "gonna" -> "gon na", etc.;
 *  - a sentence-final period is split from the last word, but abbreviations
 *    ("Mr.", "U.S.", "etc.") keep theirs (and some get an extra "." when they
 *    end a sentence);
 *  - numbers (3.5, 1,000, 10:30, 12/25/2020, 1 1/2), hyphenated and slashed
 *    words, URLs and e-mail addresses stay whole; "..." and "--" are tokens.
 *
 * Emoji (and other symbols outside the Basic Multilingual Plane) are deleted.
 */
import { PERSON_TOKEN } from './tokens';

/** Tokens that coco-caption removes after tokenising (exact, case-sensitive). */
export const COCO_PUNCTUATION: ReadonlySet<string> = new Set([
  "''",
  "'",
  '``',
  '`',
  '-LRB-',
  '-RRB-',
  '-LCB-',
  '-RCB-',
  '.',
  '?',
  '!',
  ',',
  ':',
  '-',
  '--',
  '...',
  ';',
]);

// cckit deviation: CC12M's person placeholder is kept as one token and emitted upper-case
// (`<PERSON>`), whereas the Java tool would lower-case it.

// ---------------------------------------------------------------------------
// Word lists

/** Titles and the like: they always keep their period and never end a sentence.
 *  (Words such as "fig", "ca", "approx", "pp", "sun", "sat" are NOT abbreviations
 *  for the Java tool: "fig." -> "fig ." — measured on oracle data.) */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'messrs',
  'dr',
  'prof',
  'gen',
  'col',
  'lt',
  'maj',
  'sgt',
  'capt',
  'cmdr',
  'adm',
  'gov',
  'sen',
  'rep',
  'pres',
  'rev',
  'hon',
  'st',
  'mt',
  'ft',
  'ave',
  'vs',
  'cf',
  'dept',
]);

/** Abbreviations that may end a sentence: at the end of the line, or before a
 *  capitalised word, an extra "." token is added after them ("etc. ."). */
const SENTENCE_FINAL_ABBREVIATIONS = new Set([
  'etc',
  'inc',
  'ltd',
  'co',
  'corp',
  'llc',
  'plc',
  'jr',
  'sr',
  'esq',
  'bros',
  'cos',
  'pty',
  'al',
  'est',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  'mon',
  'tue',
  'tues',
  'wed',
  'thu',
  'thur',
  'thurs',
  'fri',
  'blvd',
  'rd',
  'ala',
  'ariz',
  'ark',
  'calif',
  'colo',
  'conn',
  'fla',
  'ga',
  'kan',
  'ky',
  'md',
  'mich',
  'minn',
  'mont',
  'neb',
  'nev',
  'okla',
  'penn',
  'tenn',
  'tex',
  'va',
  'vt',
  'wis',
  'wyo',
]);

/** Like SENTENCE_FINAL_ABBREVIATIONS, but only when capitalised ("Mass." vs "mass ."). */
const CAPITALISED_ABBREVIATIONS = new Set(['Mass', 'Wash']);

/** Abbreviations only before a number: "Fig. 4", "No. 7", "ca. 1850", "pp. 10" (else "fig ."). */
const NUMBER_ABBREVIATIONS = new Set(['no', 'fig', 'figs', 'ca', 'pp', 'op']);

/** Capitalised words that open a sentence: after an acronym ("U.S.") or a single
 *  letter, they make the period also end the sentence. */
const SENTENCE_STARTERS = new Set([
  'The',
  'This',
  'That',
  'These',
  'Those',
  'There',
  'Then',
  'He',
  'She',
  'It',
  'They',
  'We',
  'You',
  'His',
  'Her',
  'Their',
  'Our',
  'My',
  'Its',
  'Your',
  'In',
  'On',
  'At',
  'But',
  'And',
  'If',
  'When',
  'What',
  'Where',
  'Who',
  'Why',
  'How',
  'So',
  'As',
  'After',
  'Before',
  'While',
  'Some',
  'Many',
  'All',
  'Most',
  'Today',
  'Also',
  'However',
  'Here',
]);

/** Multi-letter acronyms that behave like "U.S." (keep the period, may end a sentence). */
const ACRONYMS = new Set(['ph.d']);

/** Whole words split into two tokens. */
const ASSIMILATIONS: ReadonlyMap<string, readonly [string, string]> = new Map([
  ['cannot', ['can', 'not']],
  ['gonna', ['gon', 'na']],
  ['gotta', ['got', 'ta']],
  ['wanna', ['wan', 'na']],
  ['lemme', ['lem', 'me']],
  ['gimme', ['gim', 'me']],
]);

/** Words that start with an apostrophe and stay whole ('em, 'cause, ...). */
const APOSTROPHE_WORDS = ['cause', 'till', 'til', 'bout', 'em'];
/** Clitics split off the preceding word, longest first. */
const CLITICS = ['ll', 're', 've', 's', 'm', 'd'];

const BRACKETS: Record<string, string> = {
  '(': '-lrb-',
  ')': '-rrb-',
  '[': '-lsb-',
  ']': '-rsb-',
  '{': '-lcb-',
  '}': '-rcb-',
};

/** Smileys, longest first; written with escaped brackets. */
const SMILEYS: ReadonlyArray<readonly [string, string]> = [
  [':-)', ':--rrb-'],
  [':-(', ':--lrb-'],
  [';-)', ';--rrb-'],
  [':-D', ':-d'],
  [':-P', ':-p'],
  [':)', ':-rrb-'],
  [':(', ':-lrb-'],
  [';)', ';-rrb-'],
  [':D', ':d'],
  [':P', ':p'],
  [':p', ':p'],
  ['^_^', '^_^'],
];

/** Single characters rewritten to a normalised token. */
const SYMBOL_REWRITES: Record<string, string> = {
  '€': '$',
  '£': '#',
  '¢': 'cents',
  '½': '1/2',
  '¼': '1/4',
  '¾': '3/4',
  '⅓': '1/3',
  '⅔': '2/3',
  '…': '...',
  '–': '--',
  '—': '--',
  '―': '--',
};

const OPENING_CONTEXT = '([{`"“‘«';

// ---------------------------------------------------------------------------
// Character classes

const NON_ASCII_WORD = /[\p{L}\p{M}\p{Nd}]/u;
const NON_ASCII_LETTER = /[\p{L}\p{M}]/u;

function isWordCodePoint(cp: number): boolean {
  if (cp < 128) {
    return (cp >= 97 && cp <= 122) || (cp >= 65 && cp <= 90) || (cp >= 48 && cp <= 57);
  }
  return NON_ASCII_WORD.test(String.fromCodePoint(cp));
}

function isSpaceCode(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200b) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Invisible characters deleted outright (soft hyphen, joiners, variation selectors). */
function isDeletedCode(c: number): boolean {
  return c === 0xad || c === 0x200c || c === 0x200d || c === 0x2060 || (c >= 0xfe00 && c <= 0xfe0f);
}

/** Removes invisible characters and turns emoji / astral symbols into spaces. */
function normalise(text: string): string {
  if (text.includes('&')) text = text.replace(/&apos;/g, "'").replace(/&nbsp;/g, ' ');
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(text)) return text;
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (isDeletedCode(cp)) continue;
    if (cp > 0xffff && !NON_ASCII_WORD.test(ch)) out += ' ';
    else out += ch;
  }
  return out;
}

const URL_RE = /(?:(?:https?|ftp):\/\/|www\.)[^\s"<>]+/iy;
/** local@domain.tld; a "!" right after the address stays glued to it, as the Java tool does. */
const EMAIL_RE = /[A-Za-z0-9_][A-Za-z0-9._%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*!*/y;
const ENTITY_RE = /^&(?:quot|amp|lt|gt);/;
const EMAIL_LOCAL_CHARS = /[A-Za-z0-9._%+-]/;
/** `<b>`, `</b>`, `<br/>`, `<a href='x'>`, `<john@doe.org>`: one token up to the next `>`. */
const TAG_RE = /<\/?[A-Za-z][^<>\n]*>/y;
const PHONE_RE = /\(\d{3}\)[ \u00a0]?\d{3}-\d{4}(?!\d)/y;
const TRAILING_URL_PUNCT = /[.,;:!?'")\]}]+$/;

function matchAt(re: RegExp, s: string, pos: number): string | null {
  re.lastIndex = pos;
  const m = re.exec(s);
  return m ? m[0] : null;
}

// ---------------------------------------------------------------------------
// Scanner

class Scanner {
  private readonly s: string;
  /** Tokens are produced from [0, end); the rest of `s` is look-ahead only. */
  private readonly end: number;
  private pos = 0;
  private noEmailBefore = 0;
  readonly tokens: string[] = [];

  constructor(text: string, lookahead: string) {
    this.s = text + lookahead;
    this.end = text.length;
  }

  run(): string[] {
    const s = this.s;
    while (this.pos < this.end) {
      const c = s.charCodeAt(this.pos);
      if (isSpaceCode(c)) {
        this.pos++;
        continue;
      }
      this.token();
    }
    return this.tokens;
  }

  // --- helpers -------------------------------------------------------------

  private emit(token: string): void {
    this.tokens.push(token.toLowerCase());
  }

  private isWord(i: number): boolean {
    if (i >= this.s.length) return false;
    return isWordCodePoint(this.s.codePointAt(i) as number);
  }

  private isDigit(i: number): boolean {
    const c = this.s.charCodeAt(i);
    return c >= 48 && c <= 57;
  }

  private isLetter(i: number): boolean {
    if (i >= this.s.length) return false;
    const c = this.s.charCodeAt(i);
    if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
    return NON_ASCII_LETTER.test(String.fromCodePoint(this.s.codePointAt(i) as number));
  }

  private isAsciiLetter(i: number): boolean {
    const c = this.s.charCodeAt(i) | 32;
    return c >= 97 && c <= 122;
  }

  private isSpaceAt(i: number): boolean {
    return i < this.s.length && isSpaceCode(this.s.charCodeAt(i));
  }

  /** True when the character before `i` opens a phrase (start, space, bracket, opening quote). */
  private afterOpening(i: number): boolean {
    if (i === 0) return true;
    const c = this.s.charAt(i - 1);
    return isSpaceCode(c.charCodeAt(0)) || OPENING_CONTEXT.includes(c);
  }

  /** End of a run of word characters starting at `i`. */
  private wordRunEnd(i: number): number {
    const s = this.s;
    while (i < s.length) {
      const cp = s.codePointAt(i) as number;
      if (!isWordCodePoint(cp)) break;
      i += cp > 0xffff ? 2 : 1;
    }
    return i;
  }

  private digitRunEnd(i: number): number {
    while (this.isDigit(i)) i++;
    return i;
  }

  private isApostrophe(i: number): boolean {
    const c = this.s.charAt(i);
    return c === "'" || c === '\u2019';
  }

  /** Nothing but spaces (not line breaks) up to the end of the line or input. */
  private atLineEnd(i: number): boolean {
    const s = this.s;
    while (i < s.length && s.charAt(i) !== '\n' && isSpaceCode(s.charCodeAt(i))) i++;
    return i >= s.length || s.charAt(i) === '\n';
  }

  /** After some spaces, a capital letter (or `<` and a capital, as in `<PERSON>`). */
  private capitalFollows(i: number): boolean {
    const s = this.s;
    if (!this.isSpaceAt(i)) return false;
    while (this.isSpaceAt(i)) i++;
    if (s.charAt(i) === '<') i++;
    const c = s.charCodeAt(i);
    return c >= 65 && c <= 90;
  }

  /** A capitalised word follows that is not itself an abbreviation ("Co. Ltd."). */
  private newSentenceFollows(i: number): boolean {
    if (!this.capitalFollows(i)) return false;
    const s = this.s;
    while (this.isSpaceAt(i)) i++;
    const j = this.wordRunEnd(i);
    if (s.charAt(j) !== '.') return true;
    const w = s.slice(i, j).toLowerCase();
    return !SENTENCE_FINAL_ABBREVIATIONS.has(w) && !ABBREVIATIONS.has(w);
  }

  /** Stricter: a sentence-opening word with more text after it ("U.S. The dog"
   *  ends a sentence; "U.S. The" at the very end, or "U.S. Intro x", do not). */
  private sentenceStarterFollows(i: number): boolean {
    const s = this.s;
    if (!this.isSpaceAt(i)) return false;
    while (this.isSpaceAt(i)) i++;
    if (s.startsWith('<PERSON>', i)) return i + 8 < s.length;
    const j = this.wordRunEnd(i);
    return j > i && j < s.length && SENTENCE_STARTERS.has(s.slice(i, j));
  }

  // --- rules ---------------------------------------------------------------

  private token(): void {
    const s = this.s;
    const i = this.pos;
    const c = s.charAt(i);

    if (this.isWord(i)) {
      if (this.url() || this.email()) return;
      this.word(i, i);
      return;
    }
    switch (c) {
      case '&':
        this.entity();
        return;
      case '"':
      case '“':
      case '”':
      case '«':
      case '»':
        this.doubleQuote(c, 1);
        return;
      case "'":
      case '\u2019':
        this.apostrophe();
        return;
      case '‘':
        this.emit('`');
        this.pos++;
        return;
      case '(':
      case ')':
      case '[':
      case ']':
      case '{':
      case '}':
        this.bracket(c);
        return;
      case ':':
      case ';':
      case '^':
        if (this.smiley()) return;
        break;
      case '-':
      case '+':
        if (this.isDigit(i + 1) && this.afterOpening(i)) {
          this.word(i, i + 1);
          return;
        }
        if (c === '-') {
          this.hyphens();
          return;
        }
        break;
      case '.':
        this.dots();
        return;
      case '>':
      case '<':
        if (c === '<' && this.tag()) return;
        // ">>" and "<<" are one token (a third one starts a new token)
        if (s.charAt(i + 1) === c) {
          this.emit(c + c);
          this.pos = i + 2;
          return;
        }
        break;
      case '*':
        this.repeatedRun(i, '*');
        return;
      case '!':
      case '?': {
        let j = i + 1;
        while (j < this.end && (s.charAt(j) === '!' || s.charAt(j) === '?')) j++;
        this.emit(s.slice(i, j));
        this.pos = j;
        return;
      }
      case '#':
      case '@':
        if (this.isWord(i + 1)) {
          this.word(i, i + 1);
          return;
        }
        if (c === '#') {
          this.repeatedRun(i, '#');
          return;
        }
        break;
      case '_': {
        let j = i + 1;
        while (s.charAt(j) === '_') j++;
        this.emit(s.slice(i, j));
        this.pos = j;
        return;
      }
      default: {
        const rewrite = SYMBOL_REWRITES[c];
        if (rewrite !== undefined) {
          this.emit(rewrite);
          this.pos++;
          return;
        }
      }
    }
    // Any other character is a token on its own.
    const cp = s.codePointAt(i) as number;
    const len = cp > 0xffff ? 2 : 1;
    this.emit(s.slice(i, i + len));
    this.pos += len;
  }

  /** A run of one repeated character ("***", "##") is one token. */
  private repeatedRun(i: number, c: string): void {
    let j = i + 1;
    while (this.s.charAt(j) === c) j++;
    this.emit(this.s.slice(i, j));
    this.pos = j;
  }

  private url(): boolean {
    const c = this.s.charAt(this.pos).toLowerCase();
    if (c !== 'h' && c !== 'f' && c !== 'w') return false;
    const m = matchAt(URL_RE, this.s, this.pos);
    if (!m) return false;
    const url = m.replace(TRAILING_URL_PUNCT, '');
    this.emit(url);
    this.pos += url.length;
    return true;
  }

  private email(): boolean {
    // Every start inside a run of local-part characters reaches the same "@"
    // (or none), so one failed attempt rules out the whole run (keeps it linear).
    if (this.pos < this.noEmailBefore) return false;
    let j = this.pos;
    while (j < this.s.length && EMAIL_LOCAL_CHARS.test(this.s.charAt(j))) j++;
    const m = this.s.charAt(j) === '@' ? matchAt(EMAIL_RE, this.s, this.pos) : null;
    if (!m) {
      this.noEmailBefore = j;
      return false;
    }
    this.emit(m);
    this.pos += m.length;
    return true;
  }

  /** `<PERSON>` placeholder (any case) and simple HTML-like tags. */
  private tag(): boolean {
    const m = matchAt(TAG_RE, this.s, this.pos);
    if (!m) return false;
    if (m.toUpperCase() === PERSON_TOKEN) this.tokens.push(PERSON_TOKEN);
    else this.emit(m);
    this.pos += m.length;
    return true;
  }

  private entity(): void {
    const s = this.s;
    const i = this.pos;
    if (s.startsWith('&quot;', i)) {
      this.doubleQuote('"', 6);
    } else if (s.startsWith('&amp;', i)) {
      this.emit('&');
      this.pos += 5;
    } else if (s.startsWith('&lt;', i) || s.startsWith('&gt;', i)) {
      this.emit(s.charAt(i + 1) === 'l' ? '<' : '>');
      this.pos += 4;
    } else {
      this.emit('&');
      this.pos++;
    }
  }

  private doubleQuote(c: string, len: number): void {
    let opening: boolean;
    if (c === '“' || c === '«') opening = true;
    else if (c === '”' || c === '»') opening = false;
    else {
      const next = this.pos + len;
      opening = this.afterOpening(this.pos) && next < this.s.length && !this.isSpaceAt(next);
    }
    this.emit(opening ? '``' : "''");
    this.pos += len;
  }

  /** An apostrophe at the start of a token: clitic, 'tis/'twas, '90s, or a quote. */
  private apostrophe(): void {
    const s = this.s;
    const i = this.pos;
    const rest = s.slice(i + 1, i + 8).toLowerCase();

    // 'tis, 'twas -> 't is, 't was
    if (/^t(?:is|was)(?![\p{L}\p{M}\p{Nd}])/u.test(rest)) {
      this.emit("'t");
      this.pos += 2;
      return;
    }
    // 'n' as in rock 'n' roll
    if (rest.startsWith('n') && this.isApostrophe(i + 2)) {
      this.emit("'n'");
      this.pos += 3;
      return;
    }
    for (const w of APOSTROPHE_WORDS) {
      if (rest.startsWith(w) && !this.isWord(i + 1 + w.length)) {
        this.emit("'" + w);
        this.pos += 1 + w.length;
        return;
      }
    }
    // '90s
    if (this.isDigit(i + 1) && this.isDigit(i + 2)) {
      let j = i + 3;
      if (s.charAt(j) === 's') j++;
      if (!this.isWord(j)) {
        this.emit("'" + s.slice(i + 1, j));
        this.pos = j;
        return;
      }
    }
    for (const cl of CLITICS) {
      if (rest.startsWith(cl) && !this.isWord(i + 1 + cl.length)) {
        this.emit("'" + cl);
        this.pos += 1 + cl.length;
        return;
      }
    }
    const opening = this.afterOpening(i) && i + 1 < s.length && !this.isSpaceAt(i + 1);
    this.emit(opening ? '`' : "'");
    this.pos++;
  }

  private bracket(c: string): void {
    if (c === '(') {
      const phone = matchAt(PHONE_RE, this.s, this.pos);
      if (phone) {
        // "(555) 123-4567" is one token; the space inside becomes a no-break space.
        this.emit('-lrb-' + phone.slice(1, 4) + '-rrb-' + phone.slice(5).replace(/^[ \u00a0]/, '\u00a0'));
        this.pos += phone.length;
        return;
      }
      if (this.s.startsWith('(^_^)', this.pos)) {
        this.emit('-lrb-^_^-rrb-');
        this.pos += 5;
        return;
      }
    }
    this.emit(BRACKETS[c] as string);
    this.pos++;
  }

  /** Emoticons; like the Java tool, they need some character (e.g. a line break) after them. */
  private smiley(): boolean {
    const s = this.s;
    for (const [face, token] of SMILEYS) {
      if (!s.startsWith(face, this.pos)) continue;
      const after = this.pos + face.length;
      if ((after >= s.length && face !== '^_^') || this.isWord(after)) continue;
      this.emit(token);
      this.pos = after;
      return true;
    }
    return false;
  }

  /** "-" alone, "--" for two to four hyphens, longer runs kept as they are. */
  private hyphens(): void {
    let j = this.pos + 1;
    while (this.s.charAt(j) === '-') j++;
    const n = j - this.pos;
    this.emit(n === 1 ? '-' : n <= 4 ? '--' : this.s.slice(this.pos, j));
    this.pos = j;
  }

  /** ".5", "...", ". . ." and a lone ".". */
  private dots(): void {
    const s = this.s;
    const i = this.pos;
    if (this.isDigit(i + 1) && this.afterOpening(i)) {
      this.word(i, i + 1);
      return;
    }
    let j = i;
    while (s.charAt(j) === '.') j++;
    if (j - i >= 3) {
      this.emit('...');
      this.pos = j;
      return;
    }
    if (s.startsWith('. . .', i)) {
      this.emit('...');
      this.pos = i + 5;
      return;
    }
    this.emit('.');
    this.pos = i + 1;
  }

  /**
   * A word: runs of letters/digits joined by "-", "/", ".", "_", "&" between
   * letters, "," and ":" inside numbers, and apostrophes inside words.
   * `start` is where the token begins (it may include a sign, "#" or "@"),
   * `runStart` where its first run of word characters begins.
   */
  private word(start: number, runStart: number): void {
    const s = this.s;
    let i = this.wordRunEnd(runStart);
    let lastRun = runStart;
    let hasApostrophe = false;

    for (;;) {
      const c = s.charAt(i);
      if (c === '.' && s.charAt(i + 1) === '-' && this.isWord(i + 2) && isAcronym(lastPartOf(s.slice(start, i)))) {
        // U.S.-U.K.
        lastRun = i + 2;
        i = this.wordRunEnd(i + 2);
      } else if ((c === '-' && !hasApostrophe) || c === '/' || c === '.' || c === '_') {
        if (!this.isWord(i + 1)) break;
        lastRun = i + 1;
        i = this.wordRunEnd(i + 1);
      } else if (c === '&') {
        if (!this.isLetter(i - 1) || !this.isLetter(i + 1) || ENTITY_RE.test(s.slice(i, i + 6))) break;
        lastRun = i + 1;
        i = this.wordRunEnd(i + 1);
      } else if (c === ',') {
        // thousands separator: 1,000
        if (!this.allDigits(lastRun, i)) break;
        const j = this.digitRunEnd(i + 1);
        if (j - (i + 1) !== 3 || this.isWord(j)) break;
        lastRun = i + 1;
        i = j;
      } else if (c === ':') {
        // clock time: 10:30 (letters right after it start a new token: 7:45pm)
        if (!this.allDigits(lastRun, i) || !this.isDigit(i + 1)) break;
        lastRun = i + 1;
        i = this.digitRunEnd(i + 1);
      } else if (c === "'" || c === '\u2019') {
        const r = this.apostropheInWord(start, lastRun, i);
        if (r === 'done') return;
        if (r === 'stop') break;
        hasApostrophe = true;
        lastRun = i + 1;
        i = this.wordRunEnd(i + 1);
      } else {
        break;
      }
    }
    this.finishWord(start, i);
  }

  private allDigits(from: number, to: number): boolean {
    if (from >= to) return false;
    for (let k = from; k < to; k++) if (!this.isDigit(k)) return false;
    return true;
  }

  /**
   * Handles an apostrophe at `i` inside the word [start, i).
   * 'join': the apostrophe belongs to the word (O'Brien); 'stop': the word
   * ends before it; 'done': tokens were emitted and `pos` moved.
   */
  private apostropheInWord(start: number, lastRun: number, i: number): 'join' | 'stop' | 'done' {
    const s = this.s;
    const next = s.charAt(i + 1).toLowerCase();
    const prev = s.charAt(i - 1).toLowerCase();

    // n't: don't -> do n't, can't -> ca n't
    if (prev === 'n' && next === 't' && !this.isWord(i + 2) && i - 1 > start) {
      this.emitWord(s.slice(start, i - 1));
      this.emit("n't");
      this.pos = i + 2;
      return 'done';
    }
    // Java quirk: a two-letter clitic at the very end of the input is not
    // recognised ("we're" -> "we ` re"): the apostrophe becomes an opening quote.
    if (i + 3 === s.length && this.isLetter(i + 1) && this.isLetter(i + 2) && ['ll', 're', 've'].includes(s.slice(i + 1, i + 3).toLowerCase())) {
      this.emitWord(s.slice(start, i));
      this.emit('`');
      this.emit(s.slice(i + 1, i + 3));
      this.pos = i + 3;
      return 'done';
    }
    // clitics ('s 're ...) and 'n' are split off by the apostrophe rule
    for (const cl of CLITICS) {
      if (s.slice(i + 1, i + 1 + cl.length).toLowerCase() === cl && !this.isWord(i + 1 + cl.length)) {
        this.finishWordAt(start, i);
        return 'done';
      }
    }
    if (next === 'n' && this.isApostrophe(i + 2)) {
      this.finishWordAt(start, i);
      return 'done';
    }
    // y'all -> y' all
    if (i - start === 1 && prev === 'y' && this.isLetter(i + 1)) {
      this.emit(s.slice(start, i) + "'");
      this.pos = i + 1;
      return 'done';
    }
    if (this.isLetter(i + 1)) return 'join';
    // dropped g (somethin') and ol' keep their apostrophe
    const run = s.slice(lastRun, i).toLowerCase();
    if ((run.length >= 3 && run.endsWith('in')) || run === 'ol') {
      this.emitWord(s.slice(start, i) + "'");
      this.pos = i + 1;
      return 'done';
    }
    return 'stop';
  }

  private finishWordAt(start: number, end: number): void {
    this.emitWord(this.s.slice(start, end));
    this.pos = end;
  }

  /** Emits the word [start, end) with whatever suffix rule applies after it. */
  private finishWord(start: number, end: number): void {
    const s = this.s;
    const text = s.slice(start, end);
    const c = s.charAt(end);

    // C#, F#, C++
    if (end - start === 1 && this.isLetter(start)) {
      const suffix = c === '#' ? '#' : s.startsWith('++', end) ? '++' : '';
      if (suffix === '#' || (suffix && !this.isWord(end + suffix.length))) {
        this.finishWordAt(start, end + suffix.length);
        return;
      }
    }
    // currency prefixes: US$, HK$
    if (c === '$' && /^[A-Z]{1,3}$/.test(text)) {
      this.finishWordAt(start, end + 1);
      return;
    }
    // mixed fraction: 1 1/2 (joined with a no-break space)
    if ((c === ' ' || c === '\u00a0') && this.allDigits(start, end)) {
      const a = this.digitRunEnd(end + 1);
      if (a > end + 1 && s.charAt(a) === '/') {
        const b = this.digitRunEnd(a + 1);
        if (b > a + 1 && !this.isWord(b) && s.charAt(b) !== '/') {
          this.emit(text + '\u00a0' + s.slice(end + 1, b));
          this.pos = b;
          return;
        }
      }
    }
    if (c === '.' && !this.isWord(end + 1) && s.charAt(end + 1) !== '.') {
      this.finalPeriod(text, end);
      return;
    }
    this.finishWordAt(start, end);
  }

  /** A period right after a word at `dot`: abbreviation period or sentence end? */
  private finalPeriod(text: string, dot: number): void {
    const lower = text.toLowerCase();
    const after = dot + 1;
    this.pos = after;
    if (isAcronym(lastPartOf(lower)) || ACRONYMS.has(lower)) {
      this.emit(text + '.');
      if (this.sentenceStarterFollows(after)) this.emit('.');
    } else if (SENTENCE_FINAL_ABBREVIATIONS.has(lower) || CAPITALISED_ABBREVIATIONS.has(text)) {
      this.emit(text + '.');
      if (this.atLineEnd(after) || this.newSentenceFollows(after)) this.emit('.');
    } else if (ABBREVIATIONS.has(lower) || (NUMBER_ABBREVIATIONS.has(lower) && this.numberFollows(after))) {
      this.emit(text + '.');
    } else if (text.length === 1 && this.isAsciiLetter(dot - 1)) {
      // a single letter keeps its period ("John F. Kennedy", "b and w."),
      // unless a new sentence clearly starts after it
      if (this.sentenceStarterFollows(after)) {
        this.emit(text);
        this.emit('.');
      } else {
        this.emit(text + '.');
      }
    } else {
      this.emitWord(text);
      this.emit('.');
    }
  }

  private numberFollows(i: number): boolean {
    while (this.isSpaceAt(i)) i++;
    return this.isDigit(i);
  }

  /** Emits a word, splitting assimilations such as "cannot" -> "can not". */
  private emitWord(text: string): void {
    const split = text.length >= 5 && text.length <= 6 ? ASSIMILATIONS.get(text.toLowerCase()) : undefined;
    if (split) {
      this.emit(split[0]);
      this.emit(split[1]);
    } else {
      this.emit(text);
    }
  }
}

/** The part of a word after its last "-" or "/". */
function lastPartOf(word: string): string {
  return word.slice(Math.max(word.lastIndexOf('-'), word.lastIndexOf('/')) + 1);
}

/** "u.s", "a.k.a": single letters separated by periods. */
function isAcronym(word: string): boolean {
  return ACRONYM_RE.test(word);
}
const ACRONYM_RE = /^(?:[a-z]\.)+[a-z]$/i;

function tokenizeWithLookahead(text: string, lookahead: string): string[] {
  return new Scanner(normalise(text), normalise(lookahead)).run();
}

function cocoFilter(tokens: readonly string[]): string {
  return tokens.filter((t) => !COCO_PUNCTUATION.has(t)).join(' ');
}

function oneLine(text: string): string {
  return text.replace(/\n/g, ' ');
}

// ---------------------------------------------------------------------------
// Public API

/** PTB tokens of one caption, lower-cased, before coco-caption's punctuation filter. */
export function ptbTokenize(text: string): string[] {
  return tokenizeWithLookahead(text, '');
}

/** coco-caption's output for one caption tokenised on its own. */
export function tokenizeCaption(text: string): string {
  return cocoFilter(ptbTokenize(oneLine(text)));
}

/**
 * coco-caption's tokenisation of a whole set: image id -> captions (same keys
 * and order). As in the Java run, all captions form one text, one per line,
 * so the end of a caption can depend on the start of the next one.
 */
export function tokenizeCaptions(captions: Record<string, string[]>): Record<string, string[]> {
  const keys = Object.keys(captions);
  const lines: string[] = [];
  for (const k of keys) for (const c of captions[k] ?? []) lines.push(oneLine(c));

  // Look-ahead of each line: a line break, then the next line with any text
  // (blank lines in between only matter as line breaks).
  const lookaheads: string[] = new Array<string>(lines.length);
  let nextText = '';
  for (let n = lines.length - 1; n >= 0; n--) {
    const next = lines[n + 1];
    lookaheads[n] = next === undefined ? '' : next.trim() !== '' ? '\n' + next : '\n\n' + nextText;
    const line = lines[n] as string;
    if (line.trim() !== '') nextText = line;
  }
  const outputs = lines.map((line, n) => cocoFilter(tokenizeWithLookahead(line, lookaheads[n] as string)));

  const result: Record<string, string[]> = {};
  let n = 0;
  for (const k of keys) {
    result[k] = (captions[k] ?? []).map(() => outputs[n++] as string);
  }
  return result;
}
