/**
 * The world's concept catalog as the CC3M hypernymiser's ConceptCatalog (src/wordnet/catalog.ts):
 * a concept is one of the catalog's display names (or a COCO name such as "sports ball"), common
 * when it is one of the 80 COCO concepts, replaced by `hypernymOf(concept, level)`. The world's
 * callers (Table 3's pipelines over the world's web pool, `cckit filter --catalog world`) pass it
 * to the filters; src/filters never imports src/world.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { CatalogConcept, ConceptCatalog } from '../wordnet/catalog';
import { buildConcepts, hypernymOf } from './concepts';
import type { Concept } from './types';

const catalogs = new WeakMap<readonly Concept[], Map<number, ConceptCatalog>>();

/** The catalog `concepts` (default: the world's default catalog) with hypernyms at `level` (default 1). */
export function worldCatalog(concepts: readonly Concept[] = buildConcepts(), level = 1): ConceptCatalog {
  let byLevel = catalogs.get(concepts);
  if (!byLevel) catalogs.set(concepts, (byLevel = new Map()));
  let catalog = byLevel.get(level);
  if (catalog) return catalog;
  const byName = new Map<string, Concept>();
  let longest = 1;
  for (const c of concepts) {
    byName.set(c.name, c);
    longest = Math.max(longest, c.name.split(' ').length);
  }
  for (const c of concepts) if (c.cocoName !== undefined && !byName.has(c.cocoName)) byName.set(c.cocoName, c);
  const memo = new Map<string, CatalogConcept>();
  catalog = {
    name: 'world',
    longestName: longest,
    concept(name: string): CatalogConcept | undefined {
      let out = memo.get(name);
      if (out === undefined) {
        const c = byName.get(name);
        if (c === undefined) return undefined;
        memo.set(name, (out = { common: c.coco, hypernym: hypernymOf(c, level) }));
      }
      return out;
    },
  };
  byLevel.set(level, catalog);
  return catalog;
}

/**
 * Whether a TSV (or shard folder) holds the world's data: its first data row has a world:// URL,
 * or a shard folder lies in a world folder (world.json in it or up to two levels above, as in
 * OUT/shards/web). `cckit filter --catalog auto` uses it.
 */
export function isWorldData(source: string): boolean {
  if (fs.statSync(source).isDirectory()) {
    let dir = path.resolve(source);
    for (let up = 0; up <= 2; up++, dir = path.dirname(dir)) if (fs.existsSync(path.join(dir, 'world.json'))) return true;
    return false;
  }
  const fd = fs.openSync(source, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const text = buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8');
    const first = text.split('\n').find((line) => line.trim().length > 0) ?? '';
    return first.split('\t').some((field) => field.trim().startsWith('world://'));
  } finally {
    fs.closeSync(fd);
  }
}
