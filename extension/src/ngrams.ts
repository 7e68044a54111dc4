/**
 * n-gram matches between a predicted caption and its references, for highlighting (sidebar and caption
 * grid). Words are lower-cased runs of letters, digits and apostrophes, as CIDEr and BLEU count them after
 * PTB tokenization (close enough for display). Pure: no vscode, no DOM.
 */

export interface Token {
  /** The text as written (a word, or the spaces and punctuation between words). */
  text: string;
  /** Lower-cased word, or undefined for the text between words. */
  word?: string;
  /** Longest n (1–maxN) of an n-gram covering this word that also occurs in a reference; 0 when none. */
  match: number;
}

const WORD = /[\p{L}\p{N}']+/gu;

export function words(s: string): string[] {
  return (s.toLowerCase().match(WORD) ?? []).filter((w) => w !== "'");
}

/** Splits `text` into words and the text between them, keeping every character. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let last = 0;
  for (const m of text.matchAll(WORD)) {
    const i = m.index ?? 0;
    if (i > last) out.push({ text: text.slice(last, i), match: 0 });
    out.push({ text: m[0], word: m[0].toLowerCase(), match: 0 });
    last = i + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), match: 0 });
  return out;
}

function ngramSet(ws: string[], n: number): Set<string> {
  const s = new Set<string>();
  for (let i = 0; i + n <= ws.length; i++) s.add(ws.slice(i, i + n).join(' '));
  return s;
}

/**
 * Tokens of `text`, each word marked with the longest n-gram (n ≤ maxN) containing it that occurs in
 * any of `others`. Used both ways: a caption against its references, a reference against the caption.
 */
export function highlight(text: string, others: string[], maxN = 4): Token[] {
  const tokens = tokenize(text);
  const wordIdx = tokens.map((t, i) => (t.word !== undefined ? i : -1)).filter((i) => i >= 0);
  const ws = wordIdx.map((i) => tokens[i]!.word!);
  const otherWords = others.map(words);
  for (let n = 1; n <= maxN; n++) {
    const grams = new Set<string>();
    for (const o of otherWords) for (const g of ngramSet(o, n)) grams.add(g);
    for (let i = 0; i + n <= ws.length; i++) {
      if (!grams.has(ws.slice(i, i + n).join(' '))) continue;
      for (let k = i; k < i + n; k++) tokens[wordIdx[k]!]!.match = n;
    }
  }
  return tokens;
}

/** Fraction of the caption's n-grams found in the references, for n = 1..maxN (a BLEU-like precision). */
export function ngramPrecision(caption: string, references: string[], maxN = 4): number[] {
  const cw = words(caption);
  const refs = references.map(words);
  const out: number[] = [];
  for (let n = 1; n <= maxN; n++) {
    const grams: string[] = [];
    for (let i = 0; i + n <= cw.length; i++) grams.push(cw.slice(i, i + n).join(' '));
    if (grams.length === 0) {
      out.push(0);
      continue;
    }
    const refGrams = new Set<string>();
    for (const r of refs) for (const g of ngramSet(r, n)) refGrams.add(g);
    out.push(grams.filter((g) => refGrams.has(g)).length / grams.length);
  }
  return out;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** HTML for highlighted tokens: matched words in `<mark class="ngN">`, everything escaped. */
export function highlightHtml(tokens: Token[]): string {
  return tokens.map((t) => (t.match > 0 ? `<mark class="ng${t.match}">${escapeHtml(t.text)}</mark>` : escapeHtml(t.text))).join('');
}
