/**
 * Expected image hashes (`--hashes FILE`): CC12M's companion list gives each URL's SHA-256 and
 * MD5. Lines are TSV or CSV, with or without a header; on each line the field that looks like a
 * URL is the key, a 64-hex-digit field the SHA-256, a 32-hex-digit one the MD5. The table is held
 * in memory (about 200 bytes a row): a 12.4M-row list needs a few GB, so give only the hashes
 * of the URLs being downloaded where memory is short.
 */
import { createHash } from 'crypto';
import { readLineBatches } from '../data/tsv';
import { InputError } from '../util/json';

const SHA256 = /^[0-9a-f]{64}$/i;
const MD5 = /^[0-9a-f]{32}$/i;
const URLISH = /^(?:https?|world|file):\/\//i;

export interface ExpectedHash {
  sha256?: string;
  md5?: string;
}

export class HashTable {
  private readonly byUrl = new Map<string, string>();

  get size(): number {
    return this.byUrl.size;
  }

  add(url: string, hash: ExpectedHash): void {
    // one string per row: "s:<sha256>" or "m:<md5>" (SHA-256 preferred when both are given)
    if (hash.sha256) this.byUrl.set(url, `s:${hash.sha256.toLowerCase()}`);
    else if (hash.md5) this.byUrl.set(url, `m:${hash.md5.toLowerCase()}`);
  }

  /** undefined: no expected hash for this URL; otherwise whether `bytes` match it. */
  verify(url: string, bytes: Buffer, sha256Hex: string): { ok: boolean; expected: string } | undefined {
    const expected = this.byUrl.get(url);
    if (expected === undefined) return undefined;
    const kind = expected.slice(0, 2);
    const want = expected.slice(2);
    const got = kind === 's:' ? sha256Hex : createHash('md5').update(bytes).digest('hex');
    return { ok: got === want, expected: `${kind === 's:' ? 'sha256' : 'md5'} ${want}` };
  }

  static async load(file: string): Promise<HashTable> {
    const table = new HashTable();
    for await (const { first, lines } of readLineBatches(file)) {
      for (const [i, text] of lines.entries()) {
        if (text.trim() === '') continue;
        const fields = (text.includes('\t') ? text.split('\t') : text.split(',')).map((f) => f.trim().replace(/^"(.*)"$/, '$1'));
        const url = fields.find((f) => URLISH.test(f));
        const sha256 = fields.find((f) => SHA256.test(f));
        const md5 = fields.find((f) => MD5.test(f));
        if (url === undefined || (sha256 === undefined && md5 === undefined)) {
          if (first + i === 1) continue; // a header line
          throw new InputError(`${file}:${first + i}`, 'expected a URL and a SHA-256 (64 hex digits) or MD5 (32 hex digits) field');
        }
        table.add(url, { sha256, md5 });
      }
    }
    return table;
  }
}
