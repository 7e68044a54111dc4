/**
 * Vision tags of image–text pairs, by URL: JSON lines `{"url": string, "tags": [string]}` (the world
 * writes its simulated tagger's labels as web/truth.jsonl; for real data any tagger's output in that
 * shape). The filters' image–text stage and the encoder's tag tokens both read them.
 */
import * as fs from 'fs';
import * as path from 'path';

export type TagLookup = (url: string) => string[] | undefined;

/** Loads `{url, tags}` JSON lines (the world's web/truth.jsonl has this shape) into a lookup. */
export function loadTagsFile(file: string): TagLookup {
  const tags = new Map<string, string[]>();
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (line.trim() === '') return;
      let record: { url?: unknown; tags?: unknown };
      try {
        record = JSON.parse(line);
      } catch (err) {
        throw new Error(`${file}:${index + 1}: ${(err as Error).message}`);
      }
      if (typeof record.url !== 'string' || !Array.isArray(record.tags)) throw new Error(`${file}:${index + 1}: expected {"url": string, "tags": [string]}`);
      tags.set(record.url, record.tags.map(String));
    });
  return (url) => tags.get(url);
}

/** The tags file a pair list uses by default: truth.jsonl beside it, when there is one. */
export function tagsFileBeside(list: string): string | undefined {
  const file = path.join(path.dirname(list), 'truth.jsonl');
  return fs.existsSync(file) ? file : undefined;
}
