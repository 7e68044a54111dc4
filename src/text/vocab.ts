/**
 * Word-level caption vocabulary: PTB-style tokens (the tokenizer the metrics use, so training and
 * scoring see the same words), lower case, a minimum count (CC3M: 4) below which words become
 * `<unk>`, and `<PERSON>` (CC12M's person-name placeholder) kept as one token.
 */
import { ptbTokenize } from './ptb-tokenizer';
import { BOS_ID, EOS_ID, MASK_ID, PAD_ID, PERSON_TOKEN, UNK_ID } from './tokens';

export const SPECIAL_TOKENS = ['<pad>', '<bos>', '<eos>', '<unk>', '<mask>'] as const;
const PERSON_PLACEHOLDER = 'zzpersonzz';

/** Caption → lower-case PTB tokens, `<PERSON>` intact. */
export function captionTokens(caption: string): string[] {
  const text = caption.split(PERSON_TOKEN).join(` ${PERSON_PLACEHOLDER} `);
  return ptbTokenize(text.toLowerCase()).map((t) => (t === PERSON_PLACEHOLDER ? PERSON_TOKEN : t));
}

export interface VocabularyJson {
  version: 1;
  minCount: number;
  words: string[];
}

export class Vocabulary {
  readonly words: readonly string[];
  readonly minCount: number;
  private readonly index = new Map<string, number>();

  constructor(words: readonly string[], minCount: number) {
    SPECIAL_TOKENS.forEach((w, i) => {
      if (words[i] !== w) throw new Error(`vocabulary: position ${i} must be ${w}, found ${String(words[i])}`);
    });
    this.words = words;
    this.minCount = minCount;
    words.forEach((w, i) => this.index.set(w, i));
  }

  /** Words seen at least `minCount` times (ties broken by first appearance order → alphabetical). */
  static build(captions: Iterable<string>, minCount: number, extraWords: readonly string[] = []): Vocabulary {
    const counts = new Map<string, number>();
    for (const caption of captions) for (const t of captionTokens(caption)) counts.set(t, (counts.get(t) ?? 0) + 1);
    const kept = [...counts].filter(([w, c]) => c >= minCount && !SPECIAL_TOKENS.includes(w as never)).map(([w]) => w);
    for (const w of extraWords) if (!counts.has(w) || (counts.get(w) ?? 0) < minCount) kept.push(w);
    const unique = [...new Set(kept)].sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
    return new Vocabulary([...SPECIAL_TOKENS, ...unique], minCount);
  }

  static fromJson(json: VocabularyJson): Vocabulary {
    return new Vocabulary(json.words, json.minCount);
  }

  toJson(): VocabularyJson {
    return { version: 1, minCount: this.minCount, words: [...this.words] };
  }

  get size(): number {
    return this.words.length;
  }

  idOf(word: string): number {
    return this.index.get(word) ?? UNK_ID;
  }

  idToWord(id: number): string {
    return this.words[id] ?? '<unk>';
  }

  has(word: string): boolean {
    return this.index.has(word);
  }

  /** Caption → ids, truncated to `maxLen` words (no BOS/EOS). */
  encode(caption: string, maxLen = Infinity): number[] {
    return captionTokens(caption)
      .slice(0, maxLen)
      .map((t) => this.idOf(t));
  }

  /** Ids → caption text, stopping at EOS, skipping PAD/BOS/MASK. */
  decode(ids: readonly number[]): string {
    return captionFromIds(ids, this);
  }
}

/** What turning ids into words needs of a vocabulary (a test's toy vocabulary can stand in). */
export type WordLookup = Pick<Vocabulary, 'idToWord'>;

/**
 * Joins the words of `ids` with single spaces, dropping PAD, BOS and MASK; EOS ends the caption
 * (anything after it is ignored). Other words, `<PERSON>` and `<unk>` included, stay as the
 * vocabulary spells them.
 */
export function captionFromIds(ids: readonly number[], vocab: WordLookup): string {
  const words: string[] = [];
  for (const id of ids) {
    if (id === EOS_ID) break;
    if (id === PAD_ID || id === BOS_ID || id === MASK_ID) continue;
    words.push(vocab.idToWord(id));
  }
  return words.join(' ');
}
