/**
 * Pure-TypeScript re-implementation of the tokenisation that coco-caption's
 * `PTBTokenizer` (pycocoevalcap/tokenizer/ptbtokenizer.py) performs: it runs
 * Stanford CoreNLP 3.4.1's `edu.stanford.nlp.process.PTBTokenizer
 * -preserveLines -lowerCase` over the captions (one per line) and then drops
 * a fixed list of punctuation tokens.
 *
 * The lexer below follows the behaviour of CoreNLP 3.4.1's default
 * ("traditional PTB3", ptb3Escaping) settings: a flex-style scanner that, at
 * every position, takes the longest match over an ordered list of rules
 * (trailing context counts towards the length; ties go to the earlier rule).
 * Notable consequences reproduced here:
 *  - brackets become -LRB- -RRB- -LSB- -RSB- -LCB- -RCB-, and `-lowerCase`
 *    lowercases them too, so `-lrb-`/`-rrb-`/... SURVIVE coco's filter (which
 *    lists only the upper-case forms);
 *  - quotes become `` and '' (or ` and '), "n't"/"'s"/"'re"... split off,
 *    "cannot" -> "can not", "gonna" -> "gon na";
 *  - abbreviations keep their period ("mr.", "u.s.", "etc."), and some get an
 *    extra sentence-final "." token depending on what follows;
 *  - URLs, e-mails, dates, numbers, fractions, phone numbers, smileys stay whole;
 *  - characters the lexer cannot tokenise (e.g. emoji) are deleted.
 *
 * Deliberate deviations from the raw Java tool:
 *  - `<PERSON>` (any case) is emitted upper-case as `<PERSON>` (the CC12M
 *    person-name placeholder); the Java tool would lowercase it to `<person>`.
 *  - Line-breaking characters inside a caption other than "\n" (\r, U+2028,
 *    U+2029, \v, \f, U+0085) are treated as spaces; in coco-caption they would
 *    start a new output line and shift every later caption onto the wrong image.
 *  - Characters outside the Basic Multilingual Plane are never letters (as in
 *    the Java lexer); letter/digit classes come from this engine's Unicode
 *    tables, which may differ from Java's on a handful of recent code points.
 */

/** Tokens that coco-caption removes after tokenisation. */
export const COCO_PUNCTUATION: ReadonlySet<string> = new Set([
  "''", "'", '``', '`', '-LRB-', '-RRB-', '-LCB-', '-RCB-',
  '.', '?', '!', ',', ':', '-', '--', '...', ';',
]);

// ---------------------------------------------------------------------------
// Character classes (UTF-16 code units, like the Java lexer).

function classBody(pred: (cp: number) => boolean): string {
  let out = '';
  const hex = (n: number) => '\\u' + n.toString(16).padStart(4, '0');
  let start = -1;
  for (let cp = 0; cp <= 0x10000; cp++) {
    const inSet = cp < 0x10000 && (cp < 0xd800 || cp > 0xdfff) && unknownToLexer[cp] === 0 && pred(cp);
    if (inSet && start < 0) start = cp;
    else if (!inSet && start >= 0) {
      out += start === cp - 1 ? hex(start) : hex(start) + '-' + hex(cp - 1);
      start = -1;
    }
  }
  return out;
}

/**
 * BMP code points that this engine's Unicode tables class as letters, digits
 * or combining marks but that the 2014 lexer does not know (they were added to
 * Unicode later, or are marks of scripts it does not list): it deletes them.
 * Measured by probing every BMP code point against CoreNLP 3.4.1.
 */
const UNKNOWN_TO_LEXER =
  '037f 0488-0489 0528-052f 0560 0588 05ef 0610-0613 065f 07fd 0816-0819 081b-0823 0825-0827 ' +
  '0829-082d 0859-085b 0860-086a 0870-0887 0889-088f 0897-089f 08a1 08ad-08e1 08e3-08ff 093a-093b ' +
  '094f 0956-0957 0978 0980 09fc 09fe 0a51 0a70-0a71 0a75 0ae2-0ae3 0af9-0aff 0b01-0b03 0b3c ' +
  '0b3e-0b44 0b47-0b48 0b4b-0b4d 0b55-0b57 0b62-0b63 0bd7 0c00 0c04 0c34 0c3c 0c5a 0c5c-0c5d ' +
  '0c62-0c63 0c80-0c83 0cbc 0cbe-0cc4 0cc6-0cc8 0cca-0ccd 0cd5-0cd6 0cdc-0cdd 0ce2-0ce3 0cf3 ' +
  '0d00-0d04 0d3b-0d3c 0d4a-0d4d 0d54-0d57 0d5f 0d62-0d63 0d81-0d83 0dca 0dcf-0dd4 0dd6 0dd8-0ddf ' +
  '0de6-0def 0df2-0df3 0e86 0e89 0e8c 0e8e-0e93 0e98 0ea0 0ea8-0ea9 0eac 0ece 13f5 13f8-13fd ' +
  '16f1-16f8 170d 171f 1878 191d-191e 19b0-19c0 19c8-19c9 1b4c 1c80-1c8a 1c90-1cba 1cbd-1cbf ' +
  '1cf2-1cf3 1cfa 2c2f 2c5f 312e-312f 31bb-31bf 4db6-4dbf 9fcd-9fff a698-a69d a78f a794-a79f ' +
  'a7ab-a7dc a7f1-a7f7 a8fd-a8fe a9e0-a9e4 a9e6-a9fe aa7e-aa7f ab30-ab5a ab5c-ab69 ab70-abbf';
const unknownToLexer = new Uint8Array(0x10000);
for (const part of UNKNOWN_TO_LEXER.split(' ')) {
  const [a, b] = part.split('-').map((h) => parseInt(h, 16));
  for (let cp = a; cp <= (b ?? a); cp++) unknownToLexer[cp] = 1;
}

const RE_L = /\p{L}/u;
const RE_ND = /\p{Nd}/u;
const RE_UP = /\p{Uppercase}/u;
const RE_M = /\p{M}/u;

/** Java's Character.isLetter for BMP code units. */
const JLETTER = classBody((cp) => RE_L.test(String.fromCharCode(cp)) || cp === 0x1885 || cp === 0x1886);
/** Java's Character.isDigit. */
const JDIGIT = classBody((cp) => RE_ND.test(String.fromCharCode(cp)));
const UPPER = classBody((cp) => RE_UP.test(String.fromCharCode(cp)));
/**
 * The lexer's wider LETTER class: letters, the soft hyphen, and the
 * combining marks / modifier letters of the scripts below U+0F00 that the
 * lexer lets continue a word.
 */
const LETTER = classBody((cp) => {
  const ch = String.fromCharCode(cp);
  if (RE_L.test(ch) || cp === 0xad || cp === 0x1885 || cp === 0x1886) return true;
  if (cp >= 0x0237 && cp <= 0x024f) return true;
  if (cp >= 0x02c2 && cp <= 0x02ff) return !(cp >= 0x02c6 && cp <= 0x02d1) && !(cp >= 0x02e0 && cp <= 0x02e4);
  if (cp === 0x0614) return false; // a symbol to the lexer
  if (cp >= 0x0300 && cp <= 0x0eff) return RE_M.test(ch) || isExtraLetter(cp);
  return false;
});
/** Extra non-mark code points (unassigned in old Unicode or symbols) the lexer treats as letters. */
function isExtraLetter(cp: number): boolean {
  return (
    (cp >= 0x0370 && cp <= 0x037d) || cp === 0x0384 || cp === 0x0385 || cp === 0x03cf || cp === 0x03f6 ||
    (cp >= 0x03fc && cp <= 0x03ff) || cp === 0x04cf || (cp >= 0x04f6 && cp <= 0x04ff) ||
    (cp >= 0x0510 && cp <= 0x0525) || (cp >= 0x055a && cp <= 0x055f) || (cp >= 0x063b && cp <= 0x063f) ||
    (cp >= 0x06d6 && cp <= 0x06ef) || (cp >= 0x06fa && cp <= 0x06ff) || cp === 0x070f ||
    (cp >= 0x074b && cp <= 0x077f) || (cp >= 0x07a6 && cp <= 0x07b1) ||
    (cp >= 0x07ca && cp <= 0x07f5) || cp === 0x07fa || (cp >= 0x0a3e && cp <= 0x0a4f) ||
    (cp >= 0x0abc && cp <= 0x0acf) || (cp >= 0x0c3e && cp <= 0x0c56) || (cp >= 0x0e30 && cp <= 0x0e3a) ||
    (cp >= 0x0e47 && cp <= 0x0e4e) || (cp >= 0x0eb1 && cp <= 0x0ebc) || (cp >= 0x0ec8 && cp <= 0x0ecd)
  );
}
const DIGIT = JDIGIT + '\\u07c0-\\u07c9';

// ---------------------------------------------------------------------------
// Pattern building blocks. Literal letters outside character classes are
// matched case-insensitively (the lexer is caseless); character classes are
// case-sensitive. `ci` rewrites a pattern accordingly.

function ci(src: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      const n = src[i + 1];
      const len = n === 'u' ? 6 : n === 'x' ? 4 : 2;
      out += src.slice(i, i + len);
      i += len - 1;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      // a leading ']' or '^]' would be literal; not used in this file
      continue;
    }
    const lo = c.toLowerCase();
    const up = c.toUpperCase();
    out += lo !== up && /[a-z]/i.test(c) ? `[${lo}${up}]` : c;
  }
  return out;
}

const SPLET = '&[aeiouAEIOU](?:acute|grave|uml);';
const LET = `(?:[${LETTER}]|${SPLET})`;
const LETDIG = `(?:[${LETTER}${DIGIT}]|${SPLET})`;
const SPACE = '[ \\t\\u00a0\\u2000-\\u200a\\u3000]';
const NEWLINE = '(?:\\r?\\n|\\r|[\\u2028\\u2029\\u000b\\u000c\\u0085])';
const SPACENL = `(?:${SPACE}|${NEWLINE})`;
const SGML =
  "<(?:[!?][A-Za-z\\-][^>\\r\\n]*|[A-Za-z][A-Za-z0-9_:.\\-]*(?:[ ]+(?:[A-Za-z][A-Za-z0-9_:.\\-]*[ ]*=[ ]*(?:'[^']*'|\"[^\"]*\")|[A-Za-z][A-Za-z0-9_:.\\-]*))*[ ]*\\/?|\\/[A-Za-z][A-Za-z0-9_:.\\-]*)[ ]*>";
const SENTEND = `${SPACENL}(?:${SPACENL}|[${UPPER}]|${SGML})`;
const D = `[${DIGIT}]`;
const WORD = `${LET}${LETDIG}*(?:[.!?]${LET}${LETDIG}*)*`;
const APOS = "(?:['\\u0092\\u2019]|&apos;)";
const APOSETC = "(?:['\\u0092\\u2019`\\u0091\\u2018\\u201b]|&apos;)";
const REDAUX = `${APOS}(?:[msdMSD]|re|ve|ll)`;
const SWORD = '[A-Za-z\\u00ad]*[A-MO-Za-mo-z]\\u00ad*';
const SREDAUX = `n${APOSETC}t`;
const JL = `[${JLETTER}]`;
const JLD = `[${JLETTER}${JDIGIT}]`;
const HYPHEN = '[\\-_\\u058a\\u2010\\u2011]';
const THING = `(?:[dDoOlL]${APOSETC}${JLD})?${JLD}+(?:${HYPHEN}(?:[dDoOlL]${APOSETC}${JLD})?${JLD}+)*`;
const ACRO_LONG = '(?:Canada|Sino|Korean|EU|Japan|non)-U\\.S|U\\.S\\.-(?:U\\.S\\.S\\.R|U\\.K)';
const ACRO = `(?:${ACRO_LONG}|[A-Za-z](?:\\.[A-Za-z])*)`;
const ACRO2 = `(?:${ACRO_LONG}|[A-Za-z](?:\\.[A-Za-z])+)`;
const HTHING = `[A-Za-z0-9][A-Za-z0-9.,\\u00ad]*(?:-(?:${ACRO2}\\.|[A-Za-z0-9\\u00ad]+))+`;
const THINGA = '[A-Z]+(?:(?:[+&]|&amp;)[A-Z]+)+';
const INSENTP = '[,;:\\u3001]';
const ABMONTH = 'Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec';
const ABDAYS = 'Mon|Tues|Tue|Wed|Thurs|Thu|Fri';
const ABSTATE =
  'Ala|Ariz|[A]z|[A]rk|Calif|Colo|Conn|Ct|Dak|[D]el|Fla|Ga|[I]ll|Ind|Kans?|Ky|[L]a|[M]ass|Md|Mich|Minn|[M]iss|Mo|Mont|Neb|Nev|Okla|[O]re|[P]a|Penn|Tenn|[T]ex|Va|Vt|[W]ash|Wisc?|Wyo';
const ABCOMP = 'Inc|Cos?|Corp|Pp?t[ye]s?|Ltd|Plc|Rt|Bancorp|Bhd|Assn|Univ|Intl|Sys';
const ABNUM = 'tel|est|ext|sq';
const ABPTIT = 'Jr|Sr|Bros|(?:Ed|Ph)\\.D|Blvd|Rd|Esq';
const ABBREV1 = `(?:${ABMONTH}|${ABDAYS}|${ABSTATE}|${ABCOMP}|${ABNUM}|${ABPTIT}|etc|al|seq|Bldg)\\.`;
const ABTITLE =
  'Mr|Mrs|Ms|[M]iss|Drs?|Profs?|Sens?|Reps?|Attys?|Lt|Col|Gen|Messrs|Govs?|Adm|Rev|Maj|Sgt|Cpl|Pvt|Capt|Ste?|Ave|Pres|Lieut|Hon|Brig|Co?mdr|Pfc|Spc|Supts?|Det|Mt|Ft|Adj|Adv|Asst|Assoc|Ens|Insp|Mlle|Mme|Msgr|Sfc';
// ABBREV4 minus its ACRO alternative, which is tried as a separate pattern
// so that the longer of the two wins (as in a longest-match lexer).
const ABBREV4_WORDS = `(?:${ABTITLE}|vs|Alex|Wm|Jos|Cie|a\\.k\\.a|cf|TREAS|Ph|Invt|Elec|Natl|M[ft]g|Dept)`;
const ACRONYM_NEXT =
  '[A]bout|[A]ccording|[A]dditionally|[A]fter|[A]n|[A]|[A]s|[A]t|[B]ut|[E]arlier|[H]e|[H]er|[H]ere|[H]owever|[I]f|[I]n|[I]t|[L]ast|[M]any|[M]ore|[M]r\\.|[M]s\\.|[N]ow|[O]nce|[O]ne|[O]ther|[O]ur|[S]he|[S]ince|[S]o|[S]ome|[S]uch|[T]hat|[T]he|[T]heir|[T]hen|[T]here|[T]hese|[T]hey|[T]his|[W]e|[W]hen|[W]hile|[W]hat|[Y]et|[Y]ou';
const FILENAME_EXT =
  'bat|bmp|class|cgi|cpp|c|dll|docx|doc|exe|gif|gz|html|htm|h|jar|java|jpeg|jpg|mov|mp3|pdf|php|pl|png|ppt|ps|py|sql|tar|txt|wav|xml|x|zip';
const QUOTE_CHARS = '`\\u2018\\u2019\\u201a\\u201b\\u201c\\u201d\\u0091\\u0092\\u0093\\u0094\\u201e\\u201f\\u2039\\u203a\\u00ab\\u00bb';
const MISCSYMBOL =
  '+%&~\\^|\\\\\\u00a6\\u00a7\\u00a8\\u00a9\\u00ac\\u00ae\\u00af\\u00b0-\\u00ba\\u00d7\\u00f7\\u0387\\u05be\\u05c0\\u05c3\\u05c6\\u05f3\\u05f4\\u0600-\\u0603\\u0606-\\u060a\\u060c\\u0614\\u061b\\u061e\\u066a\\u066d\\u0703-\\u070d\\u07f6-\\u07f8\\u0964\\u0965\\u0e4f\\u1fbd\\u2016\\u2017\\u2020-\\u2023\\u2030-\\u2038\\u203b\\u203e-\\u2042\\u2044\\u207a-\\u207f\\u208a-\\u208e\\u2100-\\u214f\\u2190-\\u21ff\\u2200-\\u2bff\\u3012\\u30fb\\uff01-\\uff0f\\uff1a-\\uff20\\uff3b-\\uff40\\uff5b-\\uff65';

// ---------------------------------------------------------------------------
// Token normalisation helpers.

function removeSoftHyphens(s: string): string {
  if (s.indexOf('\u00ad') < 0) return s;
  const out = s.replace(/\u00ad/g, '');
  return out === '' ? '-' : out;
}

/** PTB3 "latex" quote normalisation. */
function quotes(tok: string, probablyLeft: boolean): string {
  let s = tok;
  if (probablyLeft) s = s.replace(/&apos;|'/g, '`').replace(/"|&quot;/g, '``');
  else s = s.replace(/&apos;|'/g, "'").replace(/"|&quot;/g, "''");
  return s
    .replace(/[\u0091\u2018\u201b\u2039]/g, '`')
    .replace(/[\u0092\u2019\u203a]/g, "'")
    .replace(/[\u0093\u201c\u00ab]/g, '``')
    .replace(/[\u0094\u201d\u00bb]/g, "''");
}

const parens = (s: string) => s.replace(/\(/g, '-LRB-').replace(/\)/g, '-RRB-');
const nbsp = (s: string) => s.replace(/ /g, '\u00a0');
const amp = (s: string) => s.replace(/&amp;/gi, '&');

// ---------------------------------------------------------------------------
// The rule table.

/** Emits tokens for a match; returns how many characters were consumed. */
type Action = (tok: string, out: string[]) => number;

interface Rule {
  re: RegExp;
  /** Whether group 1 holds the token (the rest is trailing context). */
  ctx: boolean;
  act: Action;
  prio: number;
}

const keep: Action = (t, out) => {
  out.push(t);
  return t.length;
};
const emit = (f: (t: string) => string): Action => (t, out) => {
  out.push(f(t));
  return t.length;
};
/** Emit all but the last `rescan` characters, which are scanned again. */
const split = (rescan: number): Action => (t, out) => {
  out.push(t.slice(0, t.length - rescan));
  return t.length - rescan;
};
/** Emit the whole token, then re-scan its final period. */
const withPeriod: Action = (t, out) => {
  out.push(t);
  return t.length - 1;
};
const skip: Action = (t) => t.length;

interface RuleSpec {
  /** first-character class (JS class body) that the rule can start with */
  first: string;
  /** pattern alternatives (each matched separately; the longest wins) */
  pats: string[];
  /** trailing context */
  ctx?: string;
  act: Action;
}

const R = (first: string, pats: string | string[], act: Action, ctx?: string): RuleSpec => ({
  first,
  pats: Array.isArray(pats) ? pats : [pats],
  act,
  ctx,
});

const LETTER_FIRST = `${LETTER}&`;
const AP1 = "'\\u0092\\u2019&";

const SPECS: RuleSpec[] = [
  R('cC', 'c\\+\\+', keep),
  R('cCfF', '(?:c|f)#', keep),
  R('cC', 'cannot', split(3)),
  R("'", "'twas", split(3)),
  R("'", "'tis", split(2)),
  R('gGlLwW', 'gonna|gotta|lemme|gimme|wanna', split(2)),
  R('<', SGML, emit(nbsp)),
  R('&\\u0096\\u0097\\u2013-\\u2015', '&(?:MD|mdash|ndash);|[\\u0096\\u0097\\u2013\\u2014\\u2015]', emit(() => '--')),
  R('&', '&amp;', emit(amp)),
  R('&', '&(?:HT|TL|UR|LR|QC|QL|QR|odq|cdq|#[0-9]+);', keep),
  R(LETTER_FIRST, WORD, emit(removeSoftHyphens), REDAUX),
  R('A-Za-z\\u00ad', SWORD, emit(removeSoftHyphens), SREDAUX),
  R(LETTER_FIRST, WORD, emit(removeSoftHyphens)),
  R(`${JLETTER}${AP1}`, [
    `${APOS}n${APOS}?`,
    `[lLdDjJ]${APOS}`,
    `Dunkin${APOS}`,
    `somethin${APOS}`,
    `ol${APOS}`,
    `${APOS}em`,
    `[A-HJ-XZn]${APOSETC}${JL}{2}${JL}*`,
    `${APOS}[2-9]0s`,
    `${APOS}till?`,
    `${JL}+[aeiouyAEIOUY]${APOSETC}[aeiouA-Z]${JL}*`,
    `${APOS}cause`,
    "cont'd\\.?",
    "'twas",
    "nor'easter",
    "c'mon",
    "e'er",
    "s'mores",
    "ev'ry",
    "li'l",
    "nat'l",
    `o${APOSETC}o`,
  ], keep),
  R('yY', `y${APOS}`, keep, JL),
  R('hH', 'https?:\\/\\/[^ \\t\\n\\f\\r"<>|(){}]+[^ \\t\\n\\f\\r"<>|.!?(){},\\-]', keep),
  R('\\s\\S', [
    '(?:www\\.(?:[^ \\t\\n\\f\\r"<>|.!?(){},]+\\.)+[a-zA-Z]{2,4}|(?:[^ \\t\\n\\f\\r"`\'<>|.!?(){},-_$]+\\.)+(?:com|net|org|edu))(?:\\/[^ \\t\\n\\f\\r"<>|()]+[^ \\t\\n\\f\\r"<>|.!?(){},\\-])?',
  ], keep),
  R('a-zA-Z0-9<&', '(?:&lt;|<)?[a-zA-Z0-9][^ \\t\\n\\f\\r"<>|()\\u00a0{}]*@(?:[^ \\t\\n\\f\\r"<>|(){}.\\u00a0]+\\.)*[^ \\t\\n\\f\\r"<>|(){}.\\u00a0]+(?:&gt;|>)?', keep),
  R('@#', ['@[a-zA-Z_][a-zA-Z_0-9]*', `#${LET}+`], keep),
  R(AP1, REDAUX, (t, out) => (out.push(quotes(t, false)), t.length), '[^A-Za-z]'),
  R('nN', SREDAUX, (t, out) => (out.push(quotes(t, false)), t.length), '[^A-Za-z]'),
  R(DIGIT, `${D}{1,2}[\\-\\/]${D}{1,2}[\\-\\/]${D}{2,4}`, keep),
  R(`${DIGIT}\\-+.:,\\u00ad\\u066b\\u066c`, `[\\-+]?(?:${D}*(?:[.:,\\u00ad\\u066b\\u066c]${D}+)+|${D}+)`, emit(removeSoftHyphens)),
  R('\\u207a\\u207b\\u208a\\u208b\\u2070\\u00b9\\u00b2\\u00b3\\u2074-\\u2079\\u2080-\\u2089',
    '[\\u207a\\u207b\\u208a\\u208b]?(?:[\\u2070\\u00b9\\u00b2\\u00b3\\u2074-\\u2079]+|[\\u2080-\\u2089]+)', keep),
  R(DIGIT, `(?:${D}{1,4}[\\- \\u00a0])?${D}{1,4}(?:\\\\?\\/|\\u2044)${D}{1,4}`, emit(nbsp)),
  R('\\u00bc-\\u00be\\u2153-\\u215e', '[\\u00bc\\u00bd\\u00be\\u2153-\\u215e]', emit((t) =>
    t.replace('\u00bc', '1/4').replace('\u00bd', '1/2').replace('\u00be', '3/4').replace('\u2153', '1/3').replace('\u2154', '2/3'))),
  R('\\-cCpPaAsS', `-(?:RRB|LRB|RCB|LCB|RSB|LSB)-|C\\.D\\.s|pro-|anti-|S(?:&|&amp;)P-500|S(?:&|&amp;)Ls|Cap${APOS}n|c${APOS}est`, emit(amp)),
  R('A-Za-z0-9', '[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}(?:\\\\?\\/[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}){1,2}', keep),
  R('A-Z$#', ['[A-Z]*\\$', '#'], keep),
  R('\\u00a2-\\u00a5\\u0080\\u20a0\\u20ac\\u060b\\u0e3f\\u20a4\\uffe0\\uffe1\\uffe5\\uffe6',
    '[\\u00a2\\u00a3\\u00a4\\u00a5\\u0080\\u20a0\\u20ac\\u060b\\u0e3f\\u20a4\\uffe0\\uffe1\\uffe5\\uffe6]',
    emit((t) => t.replace('\u00a2', 'cents').replace('\u00a3', '#').replace(/[\u0080\u00a4\u20a0\u20ac]/, '$'))),
  // An acronym before one of these sentence-starting words ends the sentence:
  // "I." -> "I" + "."; "U.S." -> "U.S." + ".".
  R('A-Za-z', `${ACRO}\\.`, (t, out) => {
    if (t.length === 2) {
      out.push(t[0]);
      return 1;
    }
    out.push(t);
    return t.length - 1;
  }, `${SPACENL}+(?:${ACRONYM_NEXT}|${SGML})${SPACENL}`),
  R('A-Za-z', '(?:ca|figs?|prop|nos?|art|bldg|pp|op)\\.', keep, `${SPACENL}?[${JDIGIT}]`),
  R('pPcC', '(?:pt[eyEY]|co)\\.', keep, `${SPACE}(?:ltd|lim)`),
  R('A-Za-z', ABBREV1, withPeriod, SENTEND),
  R('A-Za-z', ABBREV1, keep, '[\\s\\S]{2}'),
  R('A-Za-z', ABBREV1, withPeriod),
  R('A-Za-z', [`${ABBREV4_WORDS}\\.`, `${ACRO}\\.`], keep),
  R('A-Za-z', [ABBREV4_WORDS, ACRO], keep, SPACE),
  R('A-Za-z', ACRO, keep, SPACENL),
  R(AP1, `${APOS}[0-9][0-9]`, keep, SPACENL),
  R(`${LETTER}${DIGIT}&`, `${LETDIG}+(?:\\.${LETDIG}+)*\\.(?:${FILENAME_EXT})`, keep, `(?:${SPACENL}|[.?!,])`),
  R(LETTER_FIRST, `${WORD}\\.`, emit(removeSoftHyphens), INSENTP),
  R('(+0-9', [
    '(?:\\([0-9]{2,3}\\)[ \\u00a0]?|(?:\\+\\+?)?(?:[0-9]{2,4}[\\- \\u00a0])?[0-9]{2,4}[\\- \\u00a0])[0-9]{3,4}[\\- \\u00a0]?[0-9]{3,5}',
    '(?:(?:\\+\\+?)?[0-9]{2,4}\\.)?[0-9]{2,4}\\.[0-9]{3,4}\\.[0-9]{3,5}',
  ], emit((t) => parens(nbsp(t)))),
  R('"&', '"|&quot;', (t, out) => (out.push(quotes(t, true)), t.length), '[A-Za-z0-9$]'),
  R('"&', '"|&quot;', (t, out) => (out.push(quotes(t, false)), t.length)),
  R('\\x7f', '\\x7f', skip),
  R('<&', '<|&lt;', emit(() => '<')),
  R('>&', '>|&gt;', emit(() => '>')),
  R('<>:;=', "[<>]?[:;=][\\-o*']?[()DPdpO\\\\{@|\\[\\]]", emit(parens), '[^A-Za-z0-9]'),
  R("\\^x=~<>\\-'(", [
    '[\\^x=~<>]\\.\\[\\^x=~<>\\]',
    "[\\-\\^x=~<>']_[\\-\\^x=~<>']",
    "\\([\\-\\^x=~<>'][_.]?[\\-\\^x=~<>']\\)",
    "\\([\\^x=~<>']-[\\^x=~<>'`]\\)",
  ], emit(parens)),
  R('{', '\\{', emit(() => '-LCB-')),
  R('}', '\\}', emit(() => '-RCB-')),
  R('\\[', '\\[', emit(() => '-LSB-')),
  R('\\]', '\\]', emit(() => '-RSB-')),
  R('(', '\\(', emit(() => '-LRB-')),
  R(')', '\\)', emit(() => '-RRB-')),
  R('\\-', '-+', emit((t) => (t.length >= 3 && t.length <= 4 ? '--' : t))),
  R('.\\u0085\\u2026', '\\.{3,5}|(?:\\.[ \\u00a0]){2,4}\\.|[\\u0085\\u2026]', emit(() => '...')),
  R('@#_', ['@+', '#+', '_+'], keep),
  R('*\\\\', ['\\*+', '(?:\\\\\\*){1,3}'], keep),
  R(',;:\\u3001', INSENTP, keep),
  R('?!', '[?!]+', keep),
  R('.\\u00a1\\u00bf\\u037e\\u0589\\u061f\\u06d4\\u0700-\\u0702\\u07fa\\u3002',
    '[.\\u00a1\\u00bf\\u037e\\u0589\\u061f\\u06d4\\u0700-\\u0702\\u07fa\\u3002]', keep),
  R('=', '=', keep),
  R('/', '\\/', keep),
  R('A-Za-z0-9', `${HTHING}\\.`, emit(removeSoftHyphens), INSENTP),
  R('A-Za-z0-9', HTHING, emit(removeSoftHyphens)),
  R(`${JLETTER}${JDIGIT}`, `${THING}\\.`, keep, INSENTP),
  R(`${JLETTER}${JDIGIT}`, THING, keep),
  R('A-Z', `${THINGA}\\.`, emit(amp), INSENTP),
  R('A-Z', THINGA, emit(amp)),
  R("'", "'", (t, out) => (out.push(quotes(t, true)), t.length), '[A-Za-z][^ \\t\\n\\r\\u00a0]'),
  R(AP1, REDAUX, (t, out) => (out.push(quotes(t, false)), t.length)),
  R('nN', SREDAUX, (t, out) => (out.push(quotes(t, false)), t.length)),
  R(`${AP1}${QUOTE_CHARS}`, [APOS, "''", `[${QUOTE_CHARS}]{1,2}`], (t, out) => (out.push(quotes(t, false)), t.length)),
  R('<>', '<<|>>', keep),
  R(MISCSYMBOL, `[${MISCSYMBOL}]`, keep),
  R('\\x00 \\t\\u00a0\\u2000-\\u200b\\u200e\\u200f\\u3000\\ufeff', `\\x00|${SPACE}+|[\\u200b\\u200e\\u200f\\ufeff]`, skip),
  R('\\r\\n\\u2028\\u2029\\u000b\\u000c\\u0085', NEWLINE, skip),
  R('&', '&nbsp;', skip),
];

const RULES: Rule[][] = SPECS.map((spec, prio) =>
  spec.pats.map((p) => ({
    re: new RegExp(spec.ctx ? `(${ci(p)})${ci(spec.ctx)}` : ci(p), 'y'),
    ctx: spec.ctx !== undefined,
    act: spec.act,
    prio,
  })),
);
const FIRST: RegExp[] = SPECS.map((s) => new RegExp(`[${s.first}]`));

/** Candidate rules per first UTF-16 code unit, computed lazily. */
const candidates: (Rule[] | undefined)[] = new Array(0x10000);
function candidatesFor(code: number): Rule[] {
  let c = candidates[code];
  if (c === undefined) {
    const ch = String.fromCharCode(code);
    c = [];
    for (let k = 0; k < SPECS.length; k++) if (FIRST[k].test(ch)) c.push(...RULES[k]);
    candidates[code] = c;
  }
  return c;
}

// ---------------------------------------------------------------------------
// The scanner.

const ASSIMILATIONS = new Map<string, number>([
  ['cannot', 3], ['gonna', 2], ['gotta', 2], ['lemme', 2], ['gimme', 2], ['wanna', 2],
]);

function isAsciiLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 0xa0 || (c >= 0x2000 && c <= 0x200a) || c === 0x3000;
}
/** Whitespace that no rule (not even the URL ones) lets into a token. */
function isBreak(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12;
}

/**
 * Lexes s[start, end) into raw PTB tokens (original case). Characters after
 * `end` are visible as trailing context only (coco-caption's next line).
 */
function lex(s: string, start: number, end: number, out: string[]): void {
  let i = start;
  while (i < end) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 9) {
      // One SPACES token: the whole run of space characters (NBSP included,
      // which therefore cannot start a URL-like token here).
      i++;
      while (i < end && isSpace(s.charCodeAt(i))) i++;
      continue;
    }
    // Fast path: a run of ASCII letters followed by a space/newline or the end
    // is one WORD token under every rule (apart from the assimilations).
    if (isAsciiLetter(c)) {
      let j = i + 1;
      while (j < end && isAsciiLetter(s.charCodeAt(j))) j++;
      if (j === s.length || isBreak(s.charCodeAt(j))) {
        const w = s.slice(i, j);
        const cut = j - i <= 6 ? ASSIMILATIONS.get(w.toLowerCase()) : undefined;
        if (cut !== undefined) {
          out.push(w.slice(0, w.length - cut), w.slice(w.length - cut));
        } else out.push(w);
        i = j;
        continue;
      }
    }
    const cands = candidatesFor(c);
    let best: Rule | undefined;
    let bestLen = 0;
    let bestTok = '';
    for (let k = 0; k < cands.length; k++) {
      const r = cands[k];
      if (best !== undefined && r.prio > best.prio && bestLen >= s.length - i) break;
      r.re.lastIndex = i;
      const m = r.re.exec(s);
      if (m === null) continue;
      const len = m[0].length;
      if (len > bestLen || (len === bestLen && best !== undefined && r.prio < best.prio)) {
        best = r;
        bestLen = len;
        bestTok = r.ctx ? m[1] : m[0];
      }
    }
    if (best === undefined || bestTok.length === 0) {
      i++; // untokenizable character: deleted
      continue;
    }
    i += best.act(bestTok, out);
  }
}

const PERSON = '<person>';

function finish(raw: string[]): string[] {
  const out = new Array<string>(raw.length);
  for (let k = 0; k < raw.length; k++) {
    const t = raw[k].toLowerCase();
    // Deviation from the Java tool: keep the CC12M placeholder upper-case.
    out[k] = t === PERSON ? '<PERSON>' : t;
  }
  return out;
}

/** PTB tokens of one caption, lower-cased, before coco-caption's punctuation filter. */
export function ptbTokenize(text: string): string[] {
  const raw: string[] = [];
  lex(text, 0, text.length, raw);
  return finish(raw);
}

function filterJoin(tokens: string[]): string {
  let out = '';
  for (const t of tokens) {
    if (COCO_PUNCTUATION.has(t)) continue;
    out = out === '' ? t : out + ' ' + t;
  }
  return out;
}

/** What coco-caption's tokenizer yields for one caption (as if it were the only caption). */
export function tokenizeCaption(text: string): string {
  return filterJoin(ptbTokenize(text.replace(/\n/g, ' ')));
}

/**
 * coco-caption's `PTBTokenizer.tokenize` on image id → captions. Captions are
 * lexed in the order coco-caption writes them (one per line), each seeing the
 * start of the next one as trailing context, exactly like the Java run.
 */
export function tokenizeCaptions(captions: Record<string, string[]>): Record<string, string[]> {
  const ids = Object.keys(captions);
  const lines: string[] = [];
  for (const id of ids) for (const c of captions[id]) lines.push(c.replace(/\n/g, ' '));
  const joined = lines.join('\n');
  const result: Record<string, string[]> = {};
  let pos = 0;
  let k = 0;
  for (const id of ids) {
    const list: string[] = [];
    for (let n = 0; n < captions[id].length; n++, k++) {
      const end = pos + lines[k].length;
      const raw: string[] = [];
      lex(joined, pos, end, raw);
      list.push(filterJoin(finish(raw)));
      pos = end + 1;
    }
    result[id] = list;
  }
  return result;
}
